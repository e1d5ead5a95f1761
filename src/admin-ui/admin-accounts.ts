// Users › Admin Accounts: superusers see every admin, and add, edit (their
// groups too), disable and delete them; an admin holding admin_view or
// admin_manage sees, as in API Umbrella, the admins of groups within those
// scopes, and with admin_manage adds and changes the ones they manage
// (src/admins/accounts.ts). The last superuser can never be removed.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accountSeenBy, accountsSeenBy, ADMIN_READERS } from '../admin-groups/admin-visibility.js';
import type { ManagePolicy } from '../admin-groups/manage-policy.js';
import { accessOf, managePolicyOf } from '../admin-groups/request-access.js';
import { accountErrors, createAccount, deleteAccount, managesAccount, mayBecomeAccount, newPasswordErrors, updateAccount } from '../admins/accounts.js';
import { adminEmail, type Admin } from '../admins/repository.js';
import type { AppContext } from '../context.js';
import type { FieldErrors } from '../lib/validation-errors.js';
import { formString, formStrings } from './account-fields.js';
import { redirectWithFlash } from './flash.js';
import { FormErrors } from './form-errors.js';
import { renderAdminPage, renderErrorPage } from './page.js';
import { renderForbiddenPage, requirePagePermission } from './page-access.js';

type IdParams = { Params: { id: string } };

interface AdminForm {
  email: string;
  /** API Umbrella's free texts; blank is none. */
  name: string;
  notes: string;
  superuser: boolean;
  enabled: boolean;
  group_ids: string[];
}

const LIST_PATH = '/admin/admins';
const BACK = { backHref: LIST_PATH, backLabel: 'Back to Admin Accounts', section: 'admins' } as const;
const LABELS: Record<string, string> = { email: 'Email', name: 'Name', notes: 'Notes', password: 'Password', password_confirmation: 'Password Confirmation', group_ids: 'Groups', groups: 'Groups', superuser: 'Superuser' };

export function adminAccountPages(app: FastifyInstance, context: AppContext): void {
  const { adminGroups } = context;
  const minLength = context.config.admin.password_min_length;

  // The default way back (the admin's start page): an admin without admin_view or admin_manage has no list to go back to.
  app.get('/admins', { preHandler: requirePagePermission(context, { section: 'admins' }, ...ADMIN_READERS) }, async (request, reply) => {
    const policy = managePolicyOf(context, request);
    const rows = accountsSeenBy(context, request.admin!, policy.access).map((row) => ({ ...row, manageable: managesAccount(context, policy, row.admin) }));
    return renderAdminPage(context, reply, 'admin/admins/index', { title: 'Admin Accounts', section: 'admins', rows, mayAdd: policy.access.has('admin_manage') });
  });

  // Everything below changes accounts: superusers, and admin_manage holders for the accounts they manage.
  app.register(async (managers) => {
    managers.addHook('preHandler', async (request, reply) => {
      if (!accessOf(context, request).has('admin_manage')) return forbidden(reply);
    });

    managers.get('/admins/new', async (request, reply) =>
      renderForm(reply, managePolicyOf(context, request), { form: { email: '', name: '', notes: '', superuser: false, enabled: true, group_ids: [] }, target: null }),
    );

    managers.post('/admins', async (request, reply) => {
      const policy = managePolicyOf(context, request);
      const form = formFromBody(request.body);
      const password = formString(request.body, 'password');
      const errors = { ...accountErrors(context, accountChanges(form), null), ...newPasswordErrors(password, formString(request.body, 'password_confirmation'), minLength) };
      if (Object.keys(errors).length > 0) return renderForm(reply, policy, { form, target: null, errors }, 422);
      if (!mayBecomeAccount(context, policy, null, form)) return renderForm(reply, policy, { form, target: null, errors: { base: [policy.refusal().refused] } }, 403);
      // A new admin is enabled: the form has no such box (a post without the field is no request to disable).
      const created = await createAccount(context, { ...accountChanges(form), enabled: true, password });
      if (!created.ok) return renderForm(reply, policy, { form, target: null, errors: created.errors }, 422);
      return redirectWithFlash(reply, LIST_PATH, 'success', `Added the admin ${form.email}. They can sign in with the password you set.`);
    });

    managers.get<IdParams>('/admins/:id/edit', async (request, reply) =>
      withTarget(request, reply, (target, policy) =>
        renderForm(reply, policy, { form: { ...target, name: target.name ?? '', notes: target.notes ?? '', group_ids: adminGroups.groupIdsOf(target.id) }, target }),
      ),
    );

    managers.post<IdParams>('/admins/:id', async (request, reply) =>
      withTarget(request, reply, async (target, policy) => {
        const form = formFromBody(request.body);
        const errors = accountErrors(context, accountChanges(form), target);
        if (Object.keys(errors).length > 0) return renderForm(reply, policy, { form, target, errors }, 422);
        if (!mayBecomeAccount(context, policy, target, form)) return renderForm(reply, policy, { form, target, errors: { base: [policy.refusal().refused] } }, 403);
        const saved = updateAccount(context, target.id, accountChanges(form));
        if (saved === null) return notFound(reply);
        if (!saved.ok) return renderForm(reply, policy, { form, target, errors: saved.errors }, 422);
        return redirectWithFlash(reply, LIST_PATH, 'success', `Saved the admin ${form.email}.`);
      }),
    );

    managers.get<IdParams>('/admins/:id/delete', async (request, reply) =>
      withTarget(request, reply, (target) =>
        renderAdminPage(context, reply, 'admin/admins/delete', { title: `Delete ${target.email}`, section: 'admins', target, self: target.id === request.admin!.id }),
      ),
    );

    managers.post<IdParams>('/admins/:id/delete', async (request, reply) =>
      withTarget(request, reply, async (target) => {
        const deleted = deleteAccount(context, target.id);
        if (!deleted.ok) return redirectWithFlash(reply, LIST_PATH, 'error', deleted.errors.base!.join(' '));
        // Deleting one's own account ends its sessions (they cascade): back to sign-in.
        return redirectWithFlash(reply, target.id === request.admin!.id ? '/admin/login' : LIST_PATH, 'success', `Deleted the admin ${target.email}.`);
      }),
    );
  });

  /** The account, when the admin sees it (else 404) and manages it as it is (else 403). */
  async function withTarget(request: FastifyRequest<IdParams>, reply: FastifyReply, then: (target: Admin, policy: ManagePolicy) => Promise<FastifyReply>) {
    const policy = managePolicyOf(context, request);
    const target = accountSeenBy(context, request.admin!, policy.access, request.params.id)?.admin;
    if (target === undefined) return notFound(reply);
    if (!managesAccount(context, policy, target)) return renderForbiddenPage(context, reply, BACK, policy.refusal().refused);
    return then(target, policy);
  }

  function renderForm(reply: FastifyReply, policy: ManagePolicy, data: { form: AdminForm; target: Admin | null; errors?: FieldErrors }, status = 200) {
    const errors = new FormErrors(data.errors ?? {}, (field) => LABELS[field] ?? field);
    const title = data.target === null ? 'Add Admin' : `Edit ${data.target.email}`;
    const choices = { groups: policy.manageableGroups(), maySetSuperuser: policy.superuser };
    return renderAdminPage(context, reply, 'admin/admins/form', { title, section: 'admins', ...data, errors, minLength, ...choices }, status);
  }

  function forbidden(reply: FastifyReply) {
    const message = 'Only superusers, and admins whose group grants "Admin Accounts - Manage", can add, change or delete admin accounts. Ask a superuser to do it for you.';
    // Back to the list only for those who may see it.
    const back = accessOf(context, reply.request).has(...ADMIN_READERS) ? BACK : { section: 'admins' as const };
    return renderErrorPage(context, reply, 403, { title: 'Not authorized', message, ...back });
  }

  function notFound(reply: FastifyReply) {
    return renderErrorPage(context, reply, 404, { title: 'Admin not found', message: 'No admin has this id.', ...BACK });
  }
}

function formFromBody(body: FastifyRequest['body']): AdminForm {
  return {
    email: adminEmail(formString(body, 'email')),
    name: formString(body, 'name').trim(),
    notes: formString(body, 'notes'),
    superuser: formString(body, 'superuser') !== '',
    enabled: formString(body, 'enabled') !== '',
    group_ids: formStrings(body, 'group_ids'),
  };
}

/** The form as the accounts take it: blank name and notes are none. */
function accountChanges(form: AdminForm) {
  return { ...form, name: form.name === '' ? null : form.name, notes: form.notes.trim() === '' ? null : form.notes };
}
