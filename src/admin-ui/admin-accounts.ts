// Users › Admin Accounts: superusers see every admin, and add, edit (their
// groups too), disable and delete them; an admin holding admin_view or
// admin_manage sees, as in API Umbrella, the admins of groups within those
// scopes, and with admin_manage adds and changes the ones they manage
// (src/admins/accounts.ts). The last superuser can never be removed. With a
// mailer, as in API Umbrella, Add Admin sends an invite by default (the
// password may then be left for the admin to choose through its link), and
// Edit Admin can resend it to an admin who has never signed in. The list is
// searched as the admin API's (name and email), 50 a page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { adminMatches } from '../admin-api/admins.js';
import { accountSeenBy, accountsSeenBy, ADMIN_READERS } from '../admin-groups/admin-visibility.js';
import type { ManagePolicy } from '../admin-groups/manage-policy.js';
import { accessOf, managePolicyOf } from '../admin-groups/request-access.js';
import { accountErrors, createAccount, deleteAccount, managesAccount, mayBecomeAccount, newPasswordErrors, updateAccount } from '../admins/accounts.js';
import { adminEmail, type Admin } from '../admins/repository.js';
import type { PasswordLinks } from '../admins/password-links.js';
import type { AppContext } from '../context.js';
import { baseUrl } from '../lib/base-url.js';
import { withLineFeeds } from '../lib/nested-form.js';
import type { FieldErrors } from '../lib/validation-errors.js';
import { formString, formStrings } from './account-fields.js';
import { redirectWithFlash } from './flash.js';
import { differingFields, editConflictErrors, FormErrors, postedVersion } from './form-errors.js';
import { searchedPage } from './list-page.js';
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
const LABELS: Record<string, string> = {
  email: 'Email',
  name: 'Name',
  notes: 'Notes',
  password: 'Password',
  password_confirmation: 'Password Confirmation',
  group_ids: 'Groups',
  groups: 'Groups',
  superuser: 'Superuser',
  enabled: 'Enabled',
};

/** The invite boxes: "Send invite email" on Add Admin (ticked at first), "Resend invite email" on Edit Admin (never). */
interface InviteChoice {
  readonly checked: boolean;
}

export function adminAccountPages(app: FastifyInstance, context: AppContext, links: PasswordLinks): void {
  const { adminGroups } = context;
  const minLength = context.config.admin.password_min_length;

  // The default way back (the admin's start page): an admin without admin_view or admin_manage has no list to go back to.
  // Only the accounts the admin sees are searched and paged.
  app.get('/admins', { preHandler: requirePagePermission(context, { section: 'admins' }, ...ADMIN_READERS) }, async (request, reply) => {
    const policy = managePolicyOf(context, request);
    const seen = accountsSeenBy(context, request.admin!, policy.access);
    const { search, paging, rows: page } = searchedPage(seen, request.query as Record<string, unknown>, (row, search) => adminMatches(row.admin, search));
    const rows = page.map((row) => ({ ...row, manageable: managesAccount(context, policy, row.admin) }));
    const data = { title: 'Admin Accounts', section: 'admins' as const, rows, search, paging, seenCount: seen.length, mayAdd: policy.access.has('admin_manage') };
    return renderAdminPage(context, reply, 'admin/admins/index', data);
  });

  // Everything below changes accounts: superusers, and admin_manage holders for the accounts they manage.
  app.register(async (managers) => {
    managers.addHook('preHandler', async (request, reply) => {
      if (!accessOf(context, request).has('admin_manage')) return forbidden(reply);
    });

    managers.get('/admins/new', async (request, reply) =>
      renderForm(reply, managePolicyOf(context, request), {
        form: { email: '', name: '', notes: '', superuser: false, enabled: true, group_ids: [] },
        target: null,
        invite: { checked: true },
      }),
    );

    managers.post('/admins', async (request, reply) => {
      const policy = managePolicyOf(context, request);
      const form = formFromBody(request.body);
      // A box posted without a mailer (a page from before a config change) asks for nothing.
      const invite = { checked: links.sendsMail && formString(request.body, 'send_invite_email') !== '' };
      const password = formString(request.body, 'password');
      const confirmation = formString(request.body, 'password_confirmation');
      // With an invite, the admin may be left to choose their password through its link.
      const leftToThem = invite.checked && password === '' && confirmation === '';
      const errors = { ...accountErrors(context, accountChanges(form), null), ...(leftToThem ? {} : newPasswordErrors(password, confirmation, minLength)) };
      if (Object.keys(errors).length > 0) return renderForm(reply, policy, { form, target: null, errors, invite }, 422);
      if (!mayBecomeAccount(context, policy, null, form)) return renderForm(reply, policy, { form, target: null, errors: { base: [policy.refusal().refused] }, invite }, 403);
      // A new admin is enabled: the form has no such box (a post without the field is no request to disable).
      const created = await createAccount(context, { ...accountChanges(form), enabled: true, password: leftToThem ? null : password });
      if (!created.ok) return renderForm(reply, policy, { form, target: null, errors: created.errors, invite }, 422);
      const invited = invite.checked && links.invite(created.value.admin, baseUrl(context.config, request));
      const next = invited ? 'An invite email with a link to set their password (good for 7 days) is on its way to them.' : 'They can sign in with the password you set.';
      return redirectWithFlash(reply, LIST_PATH, 'success', `Added the admin ${form.email}. ${next}`);
    });

    managers.get<IdParams>('/admins/:id/edit', async (request, reply) =>
      withTarget(request, reply, (target, policy) => renderForm(reply, policy, { form: formOf(target), target, version: target.updated_at, invite: { checked: false } })),
    );

    managers.post<IdParams>('/admins/:id', async (request, reply) =>
      withTarget(request, reply, async (target, policy) => {
        const form = formFromBody(request.body);
        const invite = { checked: formString(request.body, 'resend_invite_email') !== '' };
        const posted = postedVersion(request.body);
        // Shown again, the form keeps the version it was filled from (one from an older page, without it, takes the account's).
        const version = posted ?? target.updated_at;
        if (version !== target.updated_at) return renderConflict(reply, policy, form, target, invite);
        const errors = accountErrors(context, accountChanges(form), target);
        if (Object.keys(errors).length > 0) return renderForm(reply, policy, { form, target, version, errors, invite }, 422);
        if (!mayBecomeAccount(context, policy, target, form)) return renderForm(reply, policy, { form, target, version, errors: { base: [policy.refusal().refused] }, invite }, 403);
        const update = () => updateAccount(context, target.id, accountChanges(form));
        // The check with the write, its groups too: another process (the CLI) may have changed the account since it was read above.
        const saved = posted === null ? update() : context.admins.ifUnchanged(target.id, posted, update);
        if (saved === 'conflict') return renderConflict(reply, policy, form, context.admins.get(target.id), invite);
        if (saved === null) return notFound(reply);
        if (!saved.ok) return renderForm(reply, policy, { form, target, version, errors: saved.errors, invite }, 422);
        // As API Umbrella: only to an admin who has not signed in (nor been disabled) meanwhile; else the box asks for nothing.
        const invited = invite.checked && links.invite(saved.value, baseUrl(context.config, request));
        return redirectWithFlash(reply, LIST_PATH, 'success', `Saved the admin ${form.email}.${invited ? ` A new invite email is on its way to ${form.email}.` : ''}`);
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

  /**
   * A save refused because the account changed after the form was filled:
   * the form again with what the admin typed, the account's current version
   * (so that saving again keeps their values) and what now differs; 404 once
   * deleted. (Accounts keep no record of who changed them.)
   */
  function renderConflict(reply: FastifyReply, policy: ManagePolicy, form: AdminForm, current: Admin | null, invite: InviteChoice) {
    if (current === null) return notFound(reply);
    const fields = differingFields(formOf(current), form).map((field) => LABELS[field] ?? field);
    const errors = editConflictErrors({ record: 'admin', by: null, at: current.updated_at, fields }, reply.request.admin!.email);
    return renderForm(reply, policy, { form, target: current, version: current.updated_at, errors, invite }, 409);
  }

  /** The account's fields as its edit form shows them. */
  function formOf(target: Admin): AdminForm {
    return { email: target.email, name: target.name ?? '', notes: target.notes ?? '', superuser: target.superuser, enabled: target.enabled, group_ids: adminGroups.groupIdsOf(target.id) };
  }

  /** `version`: the account's as the form was filled (record_version); none for a new one. */
  function renderForm(reply: FastifyReply, policy: ManagePolicy, data: { form: AdminForm; target: Admin | null; version?: string; errors?: FieldErrors; invite: InviteChoice }, status = 200) {
    const errors = new FormErrors(data.errors ?? {}, (field) => LABELS[field] ?? field);
    const title = data.target === null ? 'Add Admin' : `Edit ${data.target.email}`;
    const choices = { groups: policy.manageableGroups(), maySetSuperuser: policy.superuser };
    // Offered with a mailer: on Add Admin, and on Edit Admin for an admin who has never signed in.
    const offersInvite = data.target === null ? links.sendsMail : links.mayInvite(data.target);
    return renderAdminPage(context, reply, 'admin/admins/form', { title, section: 'admins', ...data, errors, minLength, ...choices, offersInvite }, status);
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
    // A textarea: LF line endings whatever the browser sent.
    notes: withLineFeeds(formString(body, 'notes')),
    superuser: formString(body, 'superuser') !== '',
    enabled: formString(body, 'enabled') !== '',
    group_ids: formStrings(body, 'group_ids'),
  };
}

/** The form as the accounts take it: blank name and notes are none. */
function accountChanges(form: AdminForm) {
  return { ...form, name: form.name === '' ? null : form.name, notes: form.notes.trim() === '' ? null : form.notes };
}
