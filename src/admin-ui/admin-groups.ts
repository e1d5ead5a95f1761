// Users › Admin Groups: what admins who are not superusers may do (API
// Umbrella's permissions), and within which API scopes. Superusers, and
// admins holding admin_manage for the groups within their scopes; admin_view
// holders see the groups wholly within theirs, read-only. As in API
// Umbrella, a group's page lists its admins with their last sign-in, and
// offers to duplicate it.
import type { FastifyInstance } from 'fastify';
import { adminGroupMatches } from '../admin-api/admin-groups.js';
import { isRefusal, type Judged } from '../admin-groups/manage-policy.js';
import { PERMISSION_LABELS, PERMISSIONS, type AdminGroup, type Permission } from '../admin-groups/model.js';
import { deleteAdminGroup, saveAdminGroup } from '../admin-groups/service.js';
import { managesAccount } from '../admins/accounts.js';
import type { AppContext } from '../context.js';
import type { FieldErrors } from '../lib/validation-errors.js';
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
    labels: { name: 'Group Name', api_scope_ids: 'API Scopes', permission_ids: 'Permissions' },
    blankForm: () => ({ name: '', api_scope_ids: [], permission_ids: [] }),
    formFromBody: (body) => ({ name: formString(body, 'name'), api_scope_ids: formStrings(body, 'api_scope_ids'), permission_ids: formStrings(body, 'permission_ids') }),
    get: (id) => adminGroups.getGroup(id),
    manages: (policy, group) => policy.managesGroup(group),
    reads: (policy, group) => policy.readsGroup(group),
    readOnlyReason: (policy, group) => {
      if (!policy.access.has('admin_manage')) return 'You may view admin groups, not change them.';
      const ungrantable = policy.ungrantable(group);
      if (policy.managesScopesOf(group) && ungrantable.length > 0) return `It grants what you do not hold in its API scopes (${ungrantable.join(', ')}): you may view it, not change it.`;
      return 'Some of its API scopes lie outside those where you hold Admin Accounts - Manage: you may view it, not change it.';
    },
    save: (policy, form, id) => asFormErrors(saveAdminGroup(adminGroups, policy, form, id)),
    ifUnchanged: (id, updatedAt, write) => adminGroups.ifGroupUnchanged(id, updatedAt, write),
    delete: (policy, id) => deleteAdminGroup(adminGroups, policy, id),
    listed: (policy) => adminGroups.listGroups().filter((group) => policy.readsGroup(group)),
    matches: adminGroupMatches,
    listRows: (policy, groups) => {
      const scopes = new Map(adminGroups.listScopes().map((scope) => [scope.id, scope]));
      const members = adminGroups.membersOf(groups.map((group) => group.id));
      const rows = groups.map((group) => ({
        group,
        manageable: policy.managesGroup(group),
        scopes: group.api_scope_ids.map((id) => scopes.get(id)!),
        permissions: group.permission_ids.map((id) => PERMISSION_LABELS.get(id)!),
        members: (members.get(group.id) ?? []).map((member) => member.email),
      }));
      return { groups: rows };
    },
    // Read-only, the group's scopes are among those the admin reads. Else those they manage, and
    // those the form holds that they read (a duplicated group's): shown ticked, so that nothing is
    // dropped unseen; saving one they do not manage is refused, as for any group.
    formChoices: (policy, readOnly, form) => ({
      scopes: adminGroups
        .listScopes()
        .filter((scope) => (readOnly ? policy.readsScope(scope) : policy.managesScope(scope) || (form.api_scope_ids.includes(scope.id) && policy.readsScope(scope)))),
      permissions: PERMISSIONS,
    }),
    // API Umbrella's "Admins" (Last Login), each linked to their account's page when the viewer may open it.
    recordDetails: (policy, group) => ({
      members: (adminGroups.membersOf([group.id]).get(group.id) ?? []).map((member) => {
        const account = context.admins.get(member.id);
        return { ...member, href: account !== null && managesAccount(context, policy, account) ? `/admin/admins/${member.id}/edit` : null };
      }),
    }),
    // As API Umbrella's: the same name (taken, so to be changed before saving), scopes and permissions.
    duplicate: (group) => ({ name: group.name, api_scope_ids: group.api_scope_ids, permission_ids: group.permission_ids }),
    deleteConsequences: (_policy, group) => {
      const members = adminGroups.memberEmails(group.id);
      if (members.length === 0) return ['No admin is in this group.'];
      return [`Its admins (${members.join(', ')}) keep their accounts but lose what this group granted them.`];
    },
  });
}

/**
 * A refused save's errors (API Umbrella's fields and words, for the admin API) as the form
 * shows them: each next to its boxes, permission ids named as the boxes label them.
 */
function asFormErrors<T>(judged: Judged<T> | null): Judged<T> | null {
  if (judged === null || judged.ok || isRefusal(judged)) return judged;
  const labelled = (message: string) => message.replace(PERMISSION_ID, (id) => PERMISSION_LABELS.get(id as Permission) ?? id);
  const errors: FieldErrors = {};
  for (const [field, messages] of Object.entries(judged.errors)) {
    const boxes = BOXES_OF[field] ?? field;
    errors[boxes] = [...(errors[boxes] ?? []), ...messages.map(labelled)];
  }
  return { ok: false, errors };
}

/** API Umbrella names a blank list by its association; the form's boxes are named by the ids. */
const BOXES_OF: Readonly<Record<string, string>> = { api_scopes: 'api_scope_ids', permissions: 'permission_ids' };

const PERMISSION_ID = new RegExp(`\\b(?:${PERMISSIONS.map((permission) => permission.id).join('|')})\\b`, 'g');
