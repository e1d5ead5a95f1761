// /api-umbrella/v1/admin_groups: groups granting API Umbrella's permissions within API scopes.
import type { FastifyInstance } from 'fastify';
import type { AdminGroup } from '../admin-groups/model.js';
import { deleteAdminGroup, saveAdminGroup } from '../admin-groups/service.js';
import type { AppContext } from '../context.js';
import { managedResourceRoutes } from './managed-resources.js';
import { textSearch, type DataTablesList } from './data-tables.js';

/** As API Umbrella's list: searched by name, ordered by name unless asked otherwise. */
const LISTED: DataTablesList<AdminGroup> = {
  matches: textSearch((group) => [group.name]),
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
    save: (policy, raw, id) => saveAdminGroup(adminGroups, policy, raw, id),
    delete: (policy, id) => deleteAdminGroup(adminGroups, policy, id),
  });
}
