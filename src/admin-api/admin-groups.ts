// /api-umbrella/v1/admin_groups: groups granting API Umbrella's permissions within API scopes.
import type { FastifyInstance } from 'fastify';
import { PERMISSION_LABELS, scopeDisplayName, type AdminGroup } from '../admin-groups/model.js';
import type { AdminGroupRepository } from '../admin-groups/repository.js';
import { deleteAdminGroup, saveAdminGroup } from '../admin-groups/service.js';
import type { AppContext } from '../context.js';
import { managedResourceRoutes } from './managed-resources.js';
import { textSearch, type DataTablesList } from './data-tables.js';

/** As API Umbrella's list searches (and so Users › Admin Groups in the web admin): by name. */
export const adminGroupMatches = textSearch<AdminGroup>((group) => [group.name]);

/** As API Umbrella's list: searched by name, ordered by name unless asked otherwise. */
const LISTED: DataTablesList<AdminGroup> = {
  matches: adminGroupMatches,
  orderable: {
    name: (group) => group.name,
    created_at: (group) => group.created_at,
    updated_at: (group) => group.updated_at,
  },
  defaultOrder: [{ column: 'name', dir: 'asc' }],
};

export function adminGroupRoutes(app: FastifyInstance, context: AppContext): void {
  const { adminGroups } = context;
  managedResourceRoutes(app, context, {
    path: '/admin_groups',
    key: 'admin_group',
    list: () => adminGroups.listGroups(),
    listed: LISTED,
    get: (id) => adminGroups.getGroup(id),
    manages: (policy, group) => policy.managesGroup(group),
    reads: (policy, group) => policy.readsGroup(group),
    save: (policy, raw, id) => saveAdminGroup(adminGroups, policy, raw, id),
    delete: (policy, id) => deleteAdminGroup(adminGroups, policy, id),
    present: (groups) => presentGroups(adminGroups, groups),
  });
}

/**
 * Groups as API Umbrella answers them: with their admins (by username, which
 * is the email here), and the names of their permissions and scopes beside
 * the ids, in the same order. Whoever reads a group sees its admins on Admin
 * Accounts too: its every scope lies within their admin_view or admin_manage
 * scopes.
 */
function presentGroups(adminGroups: AdminGroupRepository, groups: readonly AdminGroup[]) {
  const scopes = new Map(adminGroups.listScopes().map((scope) => [scope.id, scope]));
  const members = adminGroups.membersOf(groups.map((group) => group.id));
  return groups.map((group) => {
    const admins = (members.get(group.id) ?? []).map((admin) => ({
      id: admin.id,
      username: admin.email,
      current_sign_in_at: admin.current_sign_in_at,
      last_sign_in_at: admin.last_sign_in_at,
    }));
    return {
      ...group,
      admins,
      admin_usernames: admins.map((admin) => admin.username),
      permission_display_names: group.permission_ids.map((id) => PERMISSION_LABELS.get(id)!),
      api_scope_display_names: group.api_scope_ids.map((id) => scopeDisplayName(scopes.get(id)!)),
    };
  });
}
