// Users › Admin Accounts: everyone sees who the admins are; superusers add,
// edit, disable and delete them. The last superuser can never be removed.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LastSuperuserError, type Admin } from '../admins/repository.js';
import type { AppContext } from '../context.js';
import type { FieldErrors } from '../lib/validation-errors.js';
import { emailProblem, formString, newPasswordErrors } from './account-fields.js';
import { redirectWithFlash } from './flash.js';
import { FormErrors } from './form-errors.js';
import { renderAdminPage, renderErrorPage } from './page.js';

type IdParams = { Params: { id: string } };

interface AdminForm {
  email: string;
  superuser: boolean;
  enabled: boolean;
}

const LIST_PATH = '/admin/admins';
const BACK = { backHref: LIST_PATH, backLabel: 'Back to Admin Accounts', section: 'admins' } as const;
const LABELS: Record<string, string> = { email: 'Email', password: 'Password', password_confirmation: 'Password Confirmation' };

export function adminAccountPages(app: FastifyInstance, context: AppContext): void {
  const { admins } = context;
  const minLength = context.config.admin.password_min_length;

  app.get('/admins', async (_request, reply) =>
    renderAdminPage(context, reply, 'admin/admins/index', { title: 'Admin Accounts', section: 'admins', admins: admins.list() }),
  );

  // Everything below changes accounts: superusers only.
  app.register(async (superusers) => {
    superusers.addHook('preHandler', async (request, reply) => {
      if (!request.admin!.superuser) return forbidden(reply);
    });

    superusers.get('/admins/new', async (_request, reply) => renderForm(reply, { form: { email: '', superuser: false, enabled: true }, target: null }));

    superusers.post('/admins', async (request, reply) => {
      const form = formFromBody(request.body);
      const password = formString(request.body, 'password');
      const errors = { ...emailErrors(form.email, null), ...newPasswordErrors(password, formString(request.body, 'password_confirmation'), minLength) };
      if (Object.keys(errors).length > 0) return renderForm(reply, { form, target: null, errors }, 422);
      await admins.create({ email: form.email, password, superuser: form.superuser });
      return redirectWithFlash(reply, LIST_PATH, 'success', `Added the admin ${form.email}. They can sign in with the password you set.`);
    });

    superusers.get<IdParams>('/admins/:id/edit', async (request, reply) => {
      const target = admins.get(request.params.id);
      return target === null ? notFound(reply) : renderForm(reply, { form: { ...target }, target });
    });

    superusers.post<IdParams>('/admins/:id', async (request, reply) => {
      const target = admins.get(request.params.id);
      if (target === null) return notFound(reply);
      const form = formFromBody(request.body);
      const errors = emailErrors(form.email, target);
      if (Object.keys(errors).length > 0) return renderForm(reply, { form, target, errors }, 422);
      try {
        admins.update(target.id, form);
      } catch (error) {
        if (!(error instanceof LastSuperuserError)) throw error;
        return renderForm(reply, { form, target, errors: { superuser: [error.message] } }, 422);
      }
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
      try {
        admins.delete(target.id);
      } catch (error) {
        if (!(error instanceof LastSuperuserError)) throw error;
        return redirectWithFlash(reply, LIST_PATH, 'error', error.message);
      }
      // Deleting one's own account ends its sessions (they cascade): back to sign-in.
      return redirectWithFlash(reply, target.id === request.admin!.id ? '/admin/login' : LIST_PATH, 'success', `Deleted the admin ${target.email}.`);
    });
  });

  function emailErrors(email: string, target: Admin | null): FieldErrors {
    const problem = emailProblem(email);
    if (problem !== null) return { email: [problem] };
    const holder = admins.findByEmail(email);
    return holder !== null && holder.id !== target?.id ? { email: ['has already been taken'] } : {};
  }

  function renderForm(reply: FastifyReply, data: { form: AdminForm; target: Admin | null; errors?: FieldErrors }, status = 200) {
    const errors = new FormErrors(data.errors ?? {}, (field) => LABELS[field] ?? field);
    const title = data.target === null ? 'Add Admin' : `Edit ${data.target.email}`;
    return renderAdminPage(context, reply, 'admin/admins/form', { title, section: 'admins', ...data, errors, minLength }, status);
  }

  function forbidden(reply: FastifyReply) {
    const message = 'Only superusers can add, change or delete admin accounts. Ask a superuser to do it for you.';
    return renderErrorPage(context, reply, 403, { title: 'Superusers only', message, ...BACK });
  }

  function notFound(reply: FastifyReply) {
    return renderErrorPage(context, reply, 404, { title: 'Admin not found', message: 'No admin has this id.', ...BACK });
  }
}

function formFromBody(body: FastifyRequest['body']): AdminForm {
  return { email: formString(body, 'email').trim(), superuser: formString(body, 'superuser') !== '', enabled: formString(body, 'enabled') !== '' };
}
