// /api-umbrella/v1/api_scopes: the hosts and path prefixes admin groups grant their permissions in.
import type { FastifyInstance } from 'fastify';
import { deleteApiScope, saveApiScope } from '../admin-groups/service.js';
import type { AppContext } from '../context.js';
import { managedResourceRoutes } from './managed-resources.js';

export function apiScopeRoutes(app: FastifyInstance, context: AppContext): void {
  const { adminGroups } = context;
  managedResourceRoutes(app, context, {
    path: '/api_scopes',
    key: 'api_scope',
    list: () => adminGroups.listScopes(),
    get: (id) => adminGroups.getScope(id),
    manages: (policy, scope) => policy.managesScope(scope),
    save: (policy, raw, id) => saveApiScope(adminGroups, policy, raw, id),
    delete: (policy, id) => deleteApiScope(adminGroups, policy, id),
  });
}
