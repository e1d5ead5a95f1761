// Users › API Scopes: the hosts and path prefixes admin groups grant their
// permissions in. Superusers, and admins holding admin_manage for the scopes
// within theirs; admin_view holders see those within theirs, read-only.
import type { FastifyInstance } from 'fastify';
import { apiScopeMatches } from '../admin-api/api-scopes.js';
import type { AdminGroup, ApiScope, ApiScopeInput } from '../admin-groups/model.js';
import { ScopeInUseError } from '../admin-groups/repository.js';
import { deleteApiScope, saveApiScope } from '../admin-groups/service.js';
import type { AppContext } from '../context.js';
import { formString } from './account-fields.js';
import { managedResourcePages } from './managed-resource-pages.js';

export function apiScopePages(app: FastifyInstance, context: AppContext): void {
  const { adminGroups } = context;

  managedResourcePages<ApiScopeInput, ApiScope>(app, context, {
    path: 'api_scopes',
    plural: 'API Scopes',
    singular: 'API scope',
    labels: { name: 'Name', host: 'Host', path_prefix: 'Path Prefix' },
    blankForm: () => ({ name: '', host: '', path_prefix: '/' }),
    formFromBody: (body) => ({ name: formString(body, 'name'), host: formString(body, 'host'), path_prefix: formString(body, 'path_prefix') }),
    get: (id) => adminGroups.getScope(id),
    manages: (policy, scope) => policy.managesScope(scope),
    reads: (policy, scope) => policy.readsScope(scope),
    readOnlyReason: (policy) =>
      policy.access.has('admin_manage') ? 'It lies outside the API scopes where you hold Admin Accounts - Manage: you may view it, not change it.' : 'You may view API scopes, not change them.',
    save: (policy, form, id) => saveApiScope(adminGroups, policy, form, id),
    ifUnchanged: (id, updatedAt, write) => adminGroups.ifScopeUnchanged(id, updatedAt, write),
    delete: (policy, id) => deleteApiScope(adminGroups, policy, id),
    listed: (policy) => adminGroups.listScopes().filter((scope) => policy.readsScope(scope)),
    matches: apiScopeMatches,
    listRows: (policy, scopes) => {
      // Another team's group names are that team's business: only groups the admin reads are named.
      const all = adminGroups.listGroups();
      const named = all.filter((group) => policy.readsGroup(group));
      return {
        scopes: scopes.map((scope) => {
          const groups = groupsUsing(named, scope.id);
          return { scope, groups, otherGroups: groupsUsing(all, scope.id).length - groups.length, manageable: policy.managesScope(scope) };
        }),
      };
    },
    formChoices: () => ({}),
    deleteConsequences: (policy, scope) => {
      const users = groupsUsing(adminGroups.listGroups(), scope.id);
      // Said before the admin tries: the store would refuse it with these words.
      if (users.length > 0) return [policy.scopeInUse(new ScopeInUseError(users.map((group) => group.name)))];
      return ['No admin group uses it, so no admin loses anything.'];
    },
  });
}

function groupsUsing(groups: readonly AdminGroup[], scopeId: string): AdminGroup[] {
  return groups.filter((group) => group.api_scope_ids.includes(scopeId));
}
