// Users › Admin Groups: what admins who are not superusers may do (API
// Umbrella's permissions), and within which API scopes. Superusers, and
// admins holding admin_manage for the groups within their scopes.
import type { FastifyInstance } from 'fastify';
import { PERMISSION_LABELS, PERMISSIONS, type AdminGroup } from '../admin-groups/model.js';
import { deleteAdminGroup, saveAdminGroup } from '../admin-groups/service.js';
import type { AppContext } from '../context.js';
import { formString, formStrings } from './account-fields.js';
import { managedResourcePages } from './managed-resource-pages.js';

interface AdminGroupForm {
  readonly name: string;
  readonly api_scope_ids: readonly string[];
  readonly permission_ids: readonly string[];
}

export function adminGroupPages(app: FastifyInstance, context: AppContext): void {
  const { adminGroups } = context;

  managedResourcePages<AdminGroupForm, AdminGroup>(app, context, {
    path: 'admin_groups',
    plural: 'Admin Groups',
    singular: 'admin group',
    labels: { name: 'Name', api_scope_ids: 'API Scopes', permission_ids: 'Permissions' },
    blankForm: () => ({ name: '', api_scope_ids: [], permission_ids: [] }),
    formFromBody: (body) => ({ name: formString(body, 'name'), api_scope_ids: formStrings(body, 'api_scope_ids'), permission_ids: formStrings(body, 'permission_ids') }),
    get: (id) => adminGroups.getGroup(id),
    manages: (policy, group) => policy.managesGroup(group),
    save: (policy, form, id) => saveAdminGroup(adminGroups, policy, form, id),
    delete: (policy, id) => deleteAdminGroup(adminGroups, policy, id),
    listData: (policy) => {
      const scopes = new Map(adminGroups.listScopes().map((scope) => [scope.id, scope]));
      const groups = policy.manageableGroups();
      const members = adminGroups.membersOf(groups.map((group) => group.id));
      const rows = groups.map((group) => ({
        group,
        scopes: group.api_scope_ids.map((id) => scopes.get(id)!),
        permissions: group.permission_ids.map((id) => PERMISSION_LABELS.get(id)!),
        members: (members.get(group.id) ?? []).map((member) => member.email),
      }));
      return { groups: rows };
    },
    formChoices: (policy) => ({ scopes: adminGroups.listScopes().filter((scope) => policy.managesScope(scope)), permissions: PERMISSIONS }),
    deleteConsequences: (_policy, group) => {
      const members = adminGroups.memberEmails(group.id);
      if (members.length === 0) return ['No admin is in this group.'];
      return [`Its admins (${members.join(', ')}) keep their accounts but lose what this group granted them.`];
    },
  });
}
