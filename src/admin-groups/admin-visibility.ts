// Which admins an admin holding admin_view sees on Admin Accounts, as in API
// Umbrella: those in a group with a scope inside one of the viewer's
// admin_view scopes, so that a team sees its own admins and not another's.
import type { AdminAccess } from './admin-access.js';
import type { ApiScope } from './model.js';

type Place = Pick<ApiScope, 'host' | 'path_prefix'>;

/** The same host, and a path prefix starting with the outer scope's. */
export function scopeWithin(scope: Place, outer: Place): boolean {
  return scope.host === outer.host && scope.path_prefix.startsWith(outer.path_prefix);
}

/** `scopes`: those of every group the admin is in. A superuser sees everyone; nobody else sees an admin in no group. */
export function seesAdminIn(access: AdminAccess, scopes: readonly Place[]): boolean {
  const viewable = access.scopesWith('admin_view');
  return viewable === null || scopes.some((scope) => viewable.some((outer) => scopeWithin(scope, outer)));
}
