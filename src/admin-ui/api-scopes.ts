// Users › API Scopes: the hosts and path prefixes admin groups grant their
// permissions in. Superusers only.
import type { FastifyInstance } from 'fastify';
import type { AdminGroup, ApiScope, ApiScopeInput } from '../admin-groups/model.js';
import { ScopeInUseError } from '../admin-groups/repository.js';
import { deleteApiScope, saveApiScope } from '../admin-groups/service.js';
import type { AppContext } from '../context.js';
import { formString } from './account-fields.js';
import { superuserResourcePages } from './superuser-resource-pages.js';

export function apiScopePages(app: FastifyInstance, context: AppContext): void {
  const { adminGroups } = context;

  superuserResourcePages<ApiScopeInput, ApiScope>(app, context, {
    path: 'api_scopes',
    plural: 'API Scopes',
    singular: 'API scope',
    labels: { name: 'Name', host: 'Host', path_prefix: 'Path Prefix' },
    blankForm: () => ({ name: '', host: '', path_prefix: '/' }),
    formFromBody: (body) => ({ name: formString(body, 'name'), host: formString(body, 'host'), path_prefix: formString(body, 'path_prefix') }),
    get: (id) => adminGroups.getScope(id),
    save: (form, id) => saveApiScope(adminGroups, form, id),
    delete: (id) => deleteApiScope(adminGroups, id),
    listData: () => {
      const groups = adminGroups.listGroups();
      return { scopes: adminGroups.listScopes().map((scope) => ({ scope, groups: groupsUsing(groups, scope.id) })) };
    },
    formChoices: () => ({}),
    deleteConsequences: (scope) => {
      const users = groupsUsing(adminGroups.listGroups(), scope.id);
      // Said before the admin tries: the store would refuse it with these words.
      if (users.length > 0) return [new ScopeInUseError(users.map((group) => group.name)).message];
      return ['No admin group uses it, so no admin loses anything.'];
    },
  });
}

function groupsUsing(groups: readonly AdminGroup[], scopeId: string): AdminGroup[] {
  return groups.filter((group) => group.api_scope_ids.includes(scopeId));
}
