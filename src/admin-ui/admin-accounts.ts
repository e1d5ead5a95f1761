// Users › Admin Accounts: superusers see every admin, and add, edit (their
// groups too), disable and delete them; an admin holding admin_view sees, as
// in API Umbrella, the admins of groups within their admin_view scopes. The
// last superuser can never be removed.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accountsSeenBy } from '../admin-groups/admin-visibility.js';
import { accessOf } from '../admin-groups/request-access.js';
import { accountErrors, createAccount, deleteAccount, newPasswordErrors, updateAccount } from '../admins/accounts.js';
import type { Admin } from '../admins/repository.js';
import type { AppContext } from '../context.js';
import type { FieldErrors } from '../lib/validation-errors.js';
import { formString, formStrings } from './account-fields.js';
import { redirectWithFlash } from './flash.js';
import { FormErrors } from './form-errors.js';
import { renderAdminPage, renderErrorPage } from './page.js';
import { requirePagePermission } from './page-access.js';

type IdParams = { Params: { id: string } };

interface AdminForm {
  email: string;
  superuser: boolean;
  enabled: boolean;
  group_ids: string[];
}

const LIST_PATH = '/admin/admins';
const BACK = { backHref: LIST_PATH, backLabel: 'Back to Admin Accounts', section: 'admins' } as const;
const LABELS: Record<string, string> = { email: 'Email', password: 'Password', password_confirmation: 'Password Confirmation', group_ids: 'Groups' };

export function adminAccountPages(app: FastifyInstance, context: AppContext): void {
  const { admins, adminGroups } = context;
  const minLength = context.config.admin.password_min_length;

  // The default way back (the admin's start page): an admin without admin_view has no list to go back to.
  app.get('/admins', { preHandler: requirePagePermission(context, { section: 'admins' }, 'admin_view') }, async (request, reply) => {
    const rows = accountsSeenBy(context, request.admin!, accessOf(context, request));
    return renderAdminPage(context, reply, 'admin/admins/index', { title: 'Admin Accounts', section: 'admins', rows });
  });

  // Everything below changes accounts: superusers only.
  app.register(async (superusers) => {
    superusers.addHook('preHandler', async (request, reply) => {
      if (!request.admin!.superuser) return forbidden(reply);
    });

    superusers.get('/admins/new', async (_request, reply) => renderForm(reply, { form: { email: '', superuser: false, enabled: true, group_ids: [] }, target: null }));

    superusers.post('/admins', async (request, reply) => {
      const form = formFromBody(request.body);
      const password = formString(request.body, 'password');
      const errors = { ...accountErrors(context, form, null), ...newPasswordErrors(password, formString(request.body, 'password_confirmation'), minLength) };
      if (Object.keys(errors).length > 0) return renderForm(reply, { form, target: null, errors }, 422);
      // A new admin is enabled: the form has no such box (a post without the field is no request to disable).
      await createAccount(context, { ...form, enabled: true, password });
      return redirectWithFlash(reply, LIST_PATH, 'success', `Added the admin ${form.email}. They can sign in with the password you set.`);
    });

    superusers.get<IdParams>('/admins/:id/edit', async (request, reply) => {
      const target = admins.get(request.params.id);
      return target === null ? notFound(reply) : renderForm(reply, { form: { ...target, group_ids: adminGroups.groupIdsOf(target.id) }, target });
    });

    superusers.post<IdParams>('/admins/:id', async (request, reply) => {
      const target = admins.get(request.params.id);
      if (target === null) return notFound(reply);
      const form = formFromBody(request.body);
      const errors = accountErrors(context, form, target);
      if (Object.keys(errors).length > 0) return renderForm(reply, { form, target, errors }, 422);
      const saved = updateAccount(context, target.id, form);
      if (saved === null) return notFound(reply);
      if (!saved.ok) return renderForm(reply, { form, target, errors: saved.errors }, 422);
      return redirectWithFlash(reply, LIST_PATH, 'success', `Saved the admin ${form.email}.`);
    });

    superusers.get<IdParams>('/admins/:id/delete', async (request, reply) => {
      const target = admins.get(request.params.id);
      if (target === null) return notFound(reply);
      return renderAdminPage(context, reply, 'admin/admins/delete', { title: `Delete ${target.email}`, section: 'admins', target, self: target.id === request.admin!.id });
    });

    superusers.post<IdParams>('/admins/:id/delete', async (request, reply) => {
      const target = admins.get(request.params.id);
      if (target === null) return notFound(reply);
      const deleted = deleteAccount(context, target.id);
      if (!deleted.ok) return redirectWithFlash(reply, LIST_PATH, 'error', deleted.errors.base!.join(' '));
      // Deleting one's own account ends its sessions (they cascade): back to sign-in.
      return redirectWithFlash(reply, target.id === request.admin!.id ? '/admin/login' : LIST_PATH, 'success', `Deleted the admin ${target.email}.`);
    });
  });

  function renderForm(reply: FastifyReply, data: { form: AdminForm; target: Admin | null; errors?: FieldErrors }, status = 200) {
    const errors = new FormErrors(data.errors ?? {}, (field) => LABELS[field] ?? field);
    const title = data.target === null ? 'Add Admin' : `Edit ${data.target.email}`;
    return renderAdminPage(context, reply, 'admin/admins/form', { title, section: 'admins', ...data, errors, minLength, groups: adminGroups.listGroups() }, status);
  }

  function forbidden(reply: FastifyReply) {
    const message = 'Only superusers can add, change or delete admin accounts. Ask a superuser to do it for you.';
    // Back to the list only for those who may see it.
    const back = accessOf(context, reply.request).has('admin_view') ? BACK : { section: 'admins' as const };
    return renderErrorPage(context, reply, 403, { title: 'Superusers only', message, ...back });
  }

  function notFound(reply: FastifyReply) {
    return renderErrorPage(context, reply, 404, { title: 'Admin not found', message: 'No admin has this id.', ...BACK });
  }
}

function formFromBody(body: FastifyRequest['body']): AdminForm {
  return {
    email: formString(body, 'email').trim(),
    superuser: formString(body, 'superuser') !== '',
    enabled: formString(body, 'enabled') !== '',
    group_ids: formStrings(body, 'group_ids'),
  };
}
