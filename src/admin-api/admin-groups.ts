// /api-umbrella/v1/admin_groups: groups granting API Umbrella's permissions within API scopes.
import type { FastifyInstance } from 'fastify';
import { saveAdminGroup } from '../admin-groups/service.js';
import type { AppContext } from '../context.js';
import { superuserResourceRoutes } from './superuser-resources.js';

export function adminGroupRoutes(app: FastifyInstance, context: AppContext): void {
  const { adminGroups } = context;
  superuserResourceRoutes(app, context, {
    path: '/admin_groups',
    key: 'admin_group',
    list: () => adminGroups.listGroups(),
    get: (id) => adminGroups.getGroup(id),
    save: (raw, id) => saveAdminGroup(adminGroups, raw, id),
    delete: (id) => ({ ok: true, value: adminGroups.deleteGroup(id) }),
  });
}
