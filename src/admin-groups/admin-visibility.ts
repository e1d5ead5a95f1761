// Which admins an admin holding admin_view (or admin_manage) sees on Admin
// Accounts, as in API Umbrella: those in a group with a scope inside one of
// the viewer's scopes with either, so that a team sees its own admins and not another's;
// and of their groups, only those wholly inside (another team's group names
// are that team's business). The admin API's /admins lists the same.
import type { Admin } from '../admins/repository.js';
import type { AppContext } from '../context.js';
import type { AdminAccess, Place } from './admin-access.js';
import type { AdminGroup, Permission } from './model.js';

/** The permissions that show Admin Accounts: managing admins needs seeing them. */
export const ADMIN_READERS: readonly Permission[] = ['admin_view', 'admin_manage'];

/** `scopes`: those of every group the admin is in. A superuser sees everyone; nobody else sees an admin in no group. */
function seesAdminIn(access: AdminAccess, scopes: readonly Place[]): boolean {
  return access.superuser || scopes.some((scope) => access.covers(scope, ...ADMIN_READERS));
}

/** Whether the viewer may see a group by name: every one of its scopes lies inside their admin_view or admin_manage scopes. */
function seesGroupOf(access: AdminAccess, scopes: readonly Place[]): boolean {
  return scopes.every((scope) => access.covers(scope, ...ADMIN_READERS));
}

/** An account as a viewer sees it: the groups they may see by name, and how many more there are. */
export interface SeenAccount {
  readonly admin: Admin;
  readonly groups: readonly AdminGroup[];
  readonly otherGroups: number;
}

/** The accounts `viewer` sees (themselves, with all their groups, and those seesAdminIn), in the store's order, groups by name. */
export function accountsSeenBy(stores: Pick<AppContext, 'admins' | 'adminGroups'>, viewer: Admin, access: AdminAccess): SeenAccount[] {
  return accountRows(stores)
    .filter((row) => row.admin.id === viewer.id || seesAdminIn(access, row.groups.flatMap((group) => group.scopes)))
    .map(({ admin, groups }) => {
      const shown = admin.id === viewer.id ? groups : groups.filter((group) => seesGroupOf(access, group.scopes));
      return { admin, groups: shown, otherGroups: groups.length - shown.length };
    });
}

/** One account `viewer` sees by id; undefined for one they do not see, as for one that is not there. */
export function accountSeenBy(stores: Pick<AppContext, 'admins' | 'adminGroups'>, viewer: Admin, access: AdminAccess, id: string): SeenAccount | undefined {
  return accountsSeenBy(stores, viewer, access).find((row) => row.admin.id === id);
}

/** Every admin with their groups, each with its scopes (what admin_view and admin_manage are judged by). */
function accountRows({ admins, adminGroups }: Pick<AppContext, 'admins' | 'adminGroups'>) {
  const scopes = new Map(adminGroups.listScopes().map((scope) => [scope.id, scope]));
  const groups = adminGroups.listGroups().map((group) => ({ ...group, scopes: group.api_scope_ids.map((id) => scopes.get(id)!) }));
  return admins.list().map((admin) => {
    const ids = new Set(adminGroups.groupIdsOf(admin.id));
    return { admin, groups: groups.filter((group) => ids.has(group.id)) };
  });
}
