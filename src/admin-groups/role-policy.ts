// Which API roles an admin who is not a superuser may give or take: not
// those an API backend outside their reach requires (giving one would open
// another team's API to a key), nor Parasol's own "api-umbrella-…" roles
// other than the key creator's, as in API Umbrella.
import type { ApiBackendConfig } from '../api-backends/model.js';
import { KEY_CREATOR_ROLE } from '../api-users/model.js';
import type { AdminAccess } from './admin-access.js';

type RoleRequirer = Pick<ApiBackendConfig, 'frontend_host' | 'url_matches' | 'settings' | 'sub_settings'>;

/** Every role a backend requires, in its settings or any sub-setting. */
export function requiredRolesOf(backend: RoleRequirer): string[] {
  return [...new Set([...backend.settings.required_roles, ...backend.sub_settings.flatMap((sub) => sub.settings.required_roles)])];
}

/** The roles among `roles` the admin may not give or take, judged against every draft backend; [] for a superuser. */
export function refusedRoles(access: AdminAccess, roles: Iterable<string>, backends: readonly RoleRequirer[]): string[] {
  if (access.superuser) return [];
  const foreign = new Set(backends.filter((backend) => !access.allowsBackend(backend, 'backend_manage')).flatMap(requiredRolesOf));
  return [...new Set(roles)].filter((role) => foreign.has(role) || (role.startsWith('api-umbrella') && role !== KEY_CREATOR_ROLE));
}

/** Roles in one list and not the other: what a change gives or takes. */
export function changedRoles(before: readonly string[], after: readonly string[]): string[] {
  const old = new Set(before);
  const next = new Set(after);
  return [...after.filter((role) => !old.has(role)), ...before.filter((role) => !next.has(role))];
}
