// Which admins an admin holding admin_view sees on Admin Accounts, as in API
// Umbrella: those in a group with a scope inside one of the viewer's
// admin_view scopes, so that a team sees its own admins and not another's;
// and of their groups, only those wholly inside (another team's group names
// are that team's business).
import { hostInScope, type AdminAccess } from './admin-access.js';
import type { ApiScope } from './model.js';

type Place = Pick<ApiScope, 'host' | 'path_prefix'>;

/** The outer scope's host (a port-less one covering every port), and a path prefix starting with the outer scope's. */
function scopeWithin(scope: Place, outer: Place): boolean {
  return hostInScope(scope.host, outer) && scope.path_prefix.startsWith(outer.path_prefix);
}

/** `scopes`: those of every group the admin is in. A superuser sees everyone; nobody else sees an admin in no group. */
export function seesAdminIn(access: AdminAccess, scopes: readonly Place[]): boolean {
  const viewable = access.scopesWith('admin_view');
  return viewable === null || scopes.some((scope) => viewable.some((outer) => scopeWithin(scope, outer)));
}

/** Whether the viewer may see a group by name: every one of its scopes lies inside their admin_view scopes. */
export function seesGroupOf(access: AdminAccess, scopes: readonly Place[]): boolean {
  const viewable = access.scopesWith('admin_view');
  return viewable === null || scopes.every((scope) => viewable.some((outer) => scopeWithin(scope, outer)));
}
