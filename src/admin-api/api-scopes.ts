// /api-umbrella/v1/api_scopes: the hosts and path prefixes admin groups grant their permissions in.
import type { FastifyInstance } from 'fastify';
import type { ApiScope } from '../admin-groups/model.js';
import { deleteApiScope, saveApiScope } from '../admin-groups/service.js';
import type { AppContext } from '../context.js';
import { managedResourceRoutes } from './managed-resources.js';
import { textSearch, type DataTablesList } from './data-tables.js';

/** As API Umbrella's list searches (and so Users › API Scopes in the web admin): by name, host and prefix. */
export const apiScopeMatches = textSearch<ApiScope>((scope) => [scope.name, scope.host, scope.path_prefix]);

/** As API Umbrella's list: searched by name, host and prefix, ordered by name unless asked otherwise. */
const LISTED: DataTablesList<ApiScope> = {
  matches: apiScopeMatches,
  orderable: {
    name: (scope) => scope.name,
    host: (scope) => scope.host,
    path_prefix: (scope) => scope.path_prefix,
    created_at: (scope) => scope.created_at,
    updated_at: (scope) => scope.updated_at,
  },
  defaultOrder: [{ column: 'name', dir: 'asc' }],
};

export function apiScopeRoutes(app: FastifyInstance, context: AppContext): void {
  const { adminGroups } = context;
  managedResourceRoutes(app, context, {
    path: '/api_scopes',
    key: 'api_scope',
    list: () => adminGroups.listScopes(),
    listed: LISTED,
    get: (id) => adminGroups.getScope(id),
    manages: (policy, scope) => policy.managesScope(scope),
    reads: (policy, scope) => policy.readsScope(scope),
    save: (policy, raw, id) => saveApiScope(adminGroups, policy, raw, id),
    delete: (policy, id) => deleteApiScope(adminGroups, policy, id),
  });
}
