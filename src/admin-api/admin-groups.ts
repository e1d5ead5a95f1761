// /api-umbrella/v1/admin_groups: groups granting API Umbrella's permissions within API scopes.
import type { FastifyInstance } from 'fastify';
import { deleteAdminGroup, saveAdminGroup } from '../admin-groups/service.js';
import type { AppContext } from '../context.js';
import { managedResourceRoutes } from './managed-resources.js';

export function adminGroupRoutes(app: FastifyInstance, context: AppContext): void {
  const { adminGroups } = context;
  managedResourceRoutes(app, context, {
    path: '/admin_groups',
    key: 'admin_group',
    list: () => adminGroups.listGroups(),
    get: (id) => adminGroups.getGroup(id),
    manages: (policy, group) => policy.managesGroup(group),
    save: (policy, raw, id) => saveAdminGroup(adminGroups, policy, raw, id),
    delete: (policy, id) => deleteAdminGroup(adminGroups, policy, id),
  });
}
