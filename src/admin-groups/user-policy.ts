// What an admin who is not a superuser may do to an API user under
// user_manage. API users belong to no host, so any such admin may manage a
// user, as in API Umbrella — except one holding a role that an API backend
// outside the admin's reach requires: regenerating its key or changing its
// address would hand the admin a working key to another team's API.
import type { AdminAccess } from './admin-access.js';
import { changedRoles, heldRolesMessage, refusedRoles, refusedRolesMessage, type RoleRequirer } from './role-policy.js';

/**
 * Why the admin may not turn `user` (null: a new one) into one with the
 * roles `after` (null: the roles stay), as a message; null when they may.
 */
export function userChangeRefusal(access: AdminAccess, user: { readonly roles: readonly string[] } | null, after: readonly string[] | null, requirers: readonly RoleRequirer[]): string | null {
  const held = user === null ? [] : refusedRoles(access, 'user_manage', user.roles, requirers);
  if (held.length > 0) return heldRolesMessage(held);
  const changed = after === null ? [] : refusedRoles(access, 'user_manage', changedRoles(user?.roles ?? [], after), requirers);
  return changed.length > 0 ? refusedRolesMessage(changed) : null;
}
