// /api-umbrella/v1/api_scopes: the hosts and path prefixes admin groups grant their permissions in.
import type { FastifyInstance } from 'fastify';
import { deleteApiScope, saveApiScope } from '../admin-groups/service.js';
import type { AppContext } from '../context.js';
import { superuserResourceRoutes } from './superuser-resources.js';

export function apiScopeRoutes(app: FastifyInstance, context: AppContext): void {
  const { adminGroups } = context;
  superuserResourceRoutes(app, context, {
    path: '/api_scopes',
    key: 'api_scope',
    list: () => adminGroups.listScopes(),
    get: (id) => adminGroups.getScope(id),
    save: (raw, id) => saveApiScope(adminGroups, raw, id),
    delete: (id) => deleteApiScope(adminGroups, id),
  });
}
