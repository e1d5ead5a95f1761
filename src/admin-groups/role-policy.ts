// Which API roles an admin who is not a superuser may give or take: not
// those an API backend outside their reach requires (giving one would open
// another team's API to a key), nor Parasol's own "api-umbrella-…" roles
// other than the key creator's, as in API Umbrella. "Their reach" is that
// of the permission at work: user_manage for users' roles, backend_manage
// for backends' (API Umbrella judges both by backend_manage, which refuses
// an admin who manages a team's users and not its backends every role).
import type { ApiBackendConfig } from '../api-backends/model.js';
import { KEY_CREATOR_ROLE } from '../api-users/model.js';
import type { AppContext } from '../context.js';
import type { AdminAccess } from './admin-access.js';
import type { Permission } from './model.js';

export type RoleRequirer = Pick<ApiBackendConfig, 'frontend_host' | 'url_matches' | 'settings' | 'sub_settings'>;

/** Every role a backend requires, in its settings or any sub-setting. */
export function requiredRolesOf(backend: RoleRequirer): string[] {
  return [...new Set([...backend.settings.required_roles, ...backend.sub_settings.flatMap((sub) => sub.settings.required_roles)])];
}

/**
 * The roles among `roles` the admin may not give or take under `permission`,
 * judged against `backends`: every draft and every live backend (see
 * roleRequirers), as a role the live config still requires opens that API
 * until the next publish. [] for a superuser.
 */
export function refusedRoles(access: AdminAccess, permission: Permission, roles: Iterable<string>, backends: readonly RoleRequirer[]): string[] {
  if (access.superuser) return [];
  const foreign = new Set(backends.filter((backend) => !access.allowsBackend(backend, permission)).flatMap(requiredRolesOf));
  return [...new Set(roles)].filter((role) => foreign.has(role) || (role.startsWith('api-umbrella') && role !== KEY_CREATOR_ROLE));
}

/** Every backend whose required roles count: the drafts and the live ones. */
export function roleRequirers(context: Pick<AppContext, 'backends' | 'publisher'>): RoleRequirer[] {
  return [...context.backends.list(), ...context.publisher.current.apis];
}

/**
 * The roles in use, those users hold and those draft or live backends
 * require, that the admin may see (the user_roles API's answer, and what the
 * forms' Roles fields offer): not those a backend beyond both their
 * user_manage and backend_manage scopes requires, nor Parasol's own but the
 * key creator's. Sorted.
 */
export function rolesInUseFor(context: Pick<AppContext, 'backends' | 'publisher' | 'users'>, access: AdminAccess): string[] {
  const backends = roleRequirers(context);
  const roles = [...new Set([...context.users.heldRoles(), ...backends.flatMap(requiredRolesOf)])];
  if (access.superuser) return roles.sort();
  const hidden = new Set(refusedRoles(access, 'user_manage', roles, backends.filter((backend) => !access.allowsBackend(backend, 'backend_manage'))));
  return roles.filter((role) => !hidden.has(role)).sort();
}

/** Roles in one list and not the other: what a change gives or takes. */
export function changedRoles(before: readonly string[], after: readonly string[]): string[] {
  const old = new Set(before);
  const next = new Set(after);
  return [...after.filter((role) => !old.has(role)), ...before.filter((role) => !next.has(role))];
}

/** Why a change of roles was refused, naming the roles. */
export function refusedRolesMessage(roles: readonly string[]): string {
  return `You are not authorized to give or take ${rolesWhose(roles)}.`;
}

/** Why an API user holding such roles is out of the admin's reach. */
export function heldRolesMessage(roles: readonly string[]): string {
  return `You are not authorized to change this API user or its key: it holds ${rolesWhose(roles)}. Ask an admin of those APIs or a superuser.`;
}

function rolesWhose(roles: readonly string[]): string {
  const one = roles.length === 1;
  return `the role${one ? '' : 's'} ${roles.map((role) => `"${role}"`).join(', ')}, which belong${one ? 's' : ''} to API backends outside your API scopes or to Parasol itself`;
}
