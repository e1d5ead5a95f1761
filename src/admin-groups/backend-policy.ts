// What an admin who is not a superuser may do to an API backend, as in API
// Umbrella: manage it only while it lies within their reach for
// backend_manage, before the change and after it (or they could move another
// team's backend into their scopes, or theirs into another team's), and give
// or take only the roles role-policy.ts allows.
import type { ApiBackendConfig } from '../api-backends/model.js';
import type { AdminAccess, BackendPlace } from './admin-access.js';
import { changedRoles, refusedRoles, requiredRolesOf, type RoleRequirer } from './role-policy.js';

export type BackendRefusal =
  /** The backend as it is lies outside the admin's reach: they may not touch it. */
  | { readonly reason: 'not_theirs' }
  /** The change would take the backend out of their reach, by these URL matches (indexes into the new config's url_matches). */
  | { readonly reason: 'outside'; readonly urlMatches: readonly number[] }
  /** The change gives or takes roles the admin may not. */
  | { readonly reason: 'roles'; readonly roles: readonly string[] };

export function mayManage(access: AdminAccess, backend: BackendPlace): boolean {
  return access.allowsBackend(backend, 'backend_manage');
}

/**
 * Why the admin may not turn `before` (null: a new backend) into `after`,
 * `requirers` being every draft and live backend (see roleRequirers); null
 * when they may (always for a superuser).
 */
export function backendChangeRefusal(access: AdminAccess, before: ApiBackendConfig | null, after: ApiBackendConfig, requirers: readonly RoleRequirer[]): BackendRefusal | null {
  if (before !== null && !mayManage(access, before)) return { reason: 'not_theirs' };
  if (!mayManage(access, after)) return { reason: 'outside', urlMatches: urlMatchesOutside(access, after) };
  const roles = refusedRoles(access, 'backend_manage', changedRoles(before === null ? [] : requiredRolesOf(before), requiredRolesOf(after)), requirers);
  return roles.length > 0 ? { reason: 'roles', roles } : null;
}

/** The URL matches that put the backend out of reach, each judged alone, for the form to mark. */
function urlMatchesOutside(access: AdminAccess, backend: BackendPlace): number[] {
  return backend.url_matches.flatMap((match, index) => (mayManage(access, { frontend_host: backend.frontend_host, url_matches: [match] }) ? [] : [index]));
}
