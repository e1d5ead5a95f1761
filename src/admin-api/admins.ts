// /api-umbrella/v1/admins: admin accounts, as on the web admin's Admin
// Accounts. An admin holding admin_view or admin_manage reads the accounts
// that page shows them (a superuser, all), any admin their own; superusers add, change and
// delete them, and admins holding admin_manage those they manage
// (src/admins/accounts.ts). No answer holds a password or token hash; a new
// admin's clear token is answered once, when it is made. As API Umbrella's,
// `username` is the email (taken for it, answered beside it, lowercased),
// and 422s are its list of {code, field, message, full_message}. As there,
// `send_invite_email: true` (on the admin or in `options`) on a POST or PUT
// mails the admin an invite to set their password (src/admins/password-links.ts),
// unless they have signed in already; without a mailer it is ignored and
// logged, as API Umbrella logs its failed mail and answers as usual.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accountSeenBy, accountsSeenBy, ADMIN_READERS, type SeenAccount } from '../admin-groups/admin-visibility.js';
import { accessOf, guard, managePolicyOf, requirePermission, sendForbidden, sendForbiddenBecause } from '../admin-groups/request-access.js';
import { listOf } from '../admin-groups/validate.js';
import { accountErrors, createAccount, deleteAccount, managesAccount, mayBecomeAccount, newPasswordErrors, updateAccount, type AccountChanges, type NewAccount } from '../admins/accounts.js';
import { adminEmail, type Admin } from '../admins/repository.js';
import type { PasswordLinks } from '../admins/password-links.js';
import type { AppContext } from '../context.js';
import { baseUrl } from '../lib/base-url.js';
import { ErrorCollector, isPlainObject, toBoolean, type FieldErrors, type Parsed } from '../lib/validation-errors.js';
import { notFound, stripJson, unwrap, updateRoute, withJsonSuffix } from './routes.js';
import { sendDataTablesPage, textSearch, type DataTablesList } from './data-tables.js';
import { signupStyleErrors } from './users.js';

type IdParams = { Params: { id: string } };

/**
 * As API Umbrella's list searches (and so Users › Admin Accounts in the web
 * admin): by name and email (its username: an admin here signs in with their email).
 */
export const adminMatches = textSearch<Pick<Admin, 'id' | 'name' | 'email'>>((admin) => [admin.name, admin.email]);

/** As API Umbrella's list: searched as adminMatches, and ordered by its columns, `username` being the email here. */
const LISTED: DataTablesList<ApiAdmin> = {
  matches: adminMatches,
  orderable: {
    name: (admin) => admin.name,
    email: (admin) => admin.email,
    username: (admin) => admin.email,
    last_sign_in_at: (admin) => admin.last_sign_in_at,
    current_sign_in_at: (admin) => admin.current_sign_in_at,
    created_at: (admin) => admin.created_at,
    updated_at: (admin) => admin.updated_at,
  },
};

const PASSWORD_ELSEWHERE =
  'cannot be changed here: the admin sets it under My Account in the web admin or through a link mailed to them (send_invite_email, Forgot your password?), or an operator runs `parasol admins reset-password`';

export function adminRoutes(app: FastifyInstance, context: AppContext, links: PasswordLinks): void {
  const minLength = context.config.admin.password_min_length;

  // Without admin_view or admin_manage, an empty list (200), as in API Umbrella: not even their own account.
  withJsonSuffix(app, 'GET', '/admins', async (request, reply) =>
    sendDataTablesPage(reply, request.query, LISTED, () => (readsAdmins(request) ? seenBy(request).map((account) => toApiAdmin(account, request.admin!)) : []), (page) => page),
  );

  // An account the viewer does not see is answered as one that is not there. As in API Umbrella,
  // an admin may always read their own (with their token's preview), whatever their groups.
  app.get<IdParams>('/admins/:id', async (request, reply) => {
    const id = stripJson(request.params.id);
    if (id !== request.admin!.id && !readsAdmins(request)) return sendForbidden(reply, accessOf(context, request));
    const found = seenAs(request, id);
    return found === null ? notFound(reply) : { admin: found };
  });

  app.register(async (managers) => {
    // Before the body is read (a refused admin gets the same answer whatever they send), and again after.
    guard(managers, requirePermission(context, 'admin_manage'));

    withJsonSuffix(managers, 'POST', '/admins', async (request, reply) => {
      const account = newAccount(unwrap(request.body, 'admin'));
      if (!account.ok) return invalid(reply, account.errors);
      if (!mayBecomeAccount(context, managePolicyOf(context, request), null, account.value)) return refuse(request, reply);
      const created = await createAccount(context, account.value);
      if (!created.ok) return invalid(reply, created.errors);
      const { admin, authToken } = created.value;
      inviteIfAsked(request, admin);
      // The clear token, never stored, is shown this once: no cache may keep it.
      // Without its groups if they were deleted meanwhile (the viewer may then no longer see it).
      const answer = seenAs(request, admin.id) ?? toApiAdmin({ admin, groups: [], otherGroups: 0 }, request.admin!);
      return reply.code(201).header('cache-control', 'no-store').send({ admin: { ...answer, authentication_token: authToken } });
    });

    updateRoute<IdParams>(managers, '/admins/:id', async (request, reply) => {
      const target = seenAdmin(request, stripJson(request.params.id));
      if (target === undefined) return notFound(reply);
      if (!managesAccount(context, managePolicyOf(context, request), target)) return refuse(request, reply);
      const changes = accountChanges(unwrap(request.body, 'admin'), target);
      if (!changes.ok) return invalid(reply, changes.errors);
      if (!mayBecomeAccount(context, managePolicyOf(context, request), target, changes.value)) return refuse(request, reply);
      const saved = updateAccount(context, target.id, changes.value);
      if (saved === null) return notFound(reply);
      if (!saved.ok) return invalid(reply, saved.errors);
      inviteIfAsked(request, saved.value);
      // As API Umbrella: 200 with the account as it now is (the admin still sees it: they manage what it became).
      const answer = seenAs(request, target.id) ?? toApiAdmin({ admin: saved.value, groups: [], otherGroups: 0 }, request.admin!);
      return { admin: answer };
    });

    managers.delete<IdParams>('/admins/:id', async (request, reply) => {
      const target = seenAdmin(request, stripJson(request.params.id));
      if (target === undefined) return notFound(reply);
      if (!managesAccount(context, managePolicyOf(context, request), target)) return refuse(request, reply);
      const deleted = deleteAccount(context, target.id);
      if (!deleted.ok) return invalid(reply, deleted.errors);
      return deleted.value ? reply.code(204).send() : notFound(reply);
    });
  });

  /**
   * API Umbrella's send_invite_email, on the admin or in options: only true
   * or "true" asks. Sent to an admin who has never signed in (and is
   * enabled); without a mailer, ignored with a warning in the log, where
   * API Umbrella logs that its mail failed; the answer is the same.
   */
  function inviteIfAsked(request: FastifyRequest, admin: Admin): void {
    if (!asksForInvite(request.body)) return;
    if (!links.sendsMail) {
      context.logger.warn({ admin_id: admin.id }, 'send_invite_email ignored: no mailer (mailer.smtp.host is not set)');
      return;
    }
    links.invite(admin, baseUrl(context.config, request));
  }

  function refuse(request: FastifyRequest, reply: FastifyReply): FastifyReply {
    return sendForbiddenBecause(reply, managePolicyOf(context, request).refusal().refused);
  }

  function readsAdmins(request: FastifyRequest): boolean {
    return accessOf(context, request).has(...ADMIN_READERS);
  }

  function seenBy(request: FastifyRequest): SeenAccount[] {
    return accountsSeenBy(context, request.admin!, accessOf(context, request));
  }

  /** An account the request's admin sees: one they do not is answered as one that is not there. */
  function seenAdmin(request: FastifyRequest, id: string): Admin | undefined {
    return accountSeenBy(context, request.admin!, accessOf(context, request), id)?.admin;
  }

  function seenAs(request: FastifyRequest, id: string): ReturnType<typeof toApiAdmin> | null {
    const account = accountSeenBy(context, request.admin!, accessOf(context, request), id);
    return account === undefined ? null : toApiAdmin(account, request.admin!);
  }

  /**
   * A POST's account: an email (or API Umbrella's `username`) is needed; a
   * superuser only when asked for. A password is taken when sent (the
   * confirmation checked only when sent too); without one the admin uses the
   * API token answered now, and signs in to the web admin once a password is
   * set: through the invite send_invite_email mails them, as in API
   * Umbrella, or `parasol admins reset-password`.
   */
  function newAccount(raw: unknown): Parsed<NewAccount> {
    const input = isPlainObject(raw) ? raw : {};
    const parsed = parseChanges(input, null);
    const password = isBlankText(input.password) ? null : (textOf(input.password) ?? '');
    const confirmation = confirmationOf(input);
    const account = { email: '', superuser: false, enabled: true, group_ids: [], ...parsed.value, password };
    const passwordErrors =
      password !== null ? newPasswordErrors(password, confirmation, minLength) : isBlankText(confirmation) ? {} : { password: ["can't be blank"] };
    const errors = { ...parsed.errors, ...accountErrors(context, account, null), ...passwordErrors };
    return Object.keys(errors).length === 0 ? { ok: true, value: account } : { ok: false, errors };
  }

  /** A PUT's changes to `target`: the fields it names. */
  function accountChanges(raw: unknown, target: Admin): Parsed<AccountChanges> {
    const input = isPlainObject(raw) ? raw : {};
    const parsed = parseChanges(input, target.email);
    const errors = { ...parsed.errors, ...accountErrors(context, parsed.value, target) };
    // Setting a password ends the admin's sessions and asks for the current one on My Account: not a side effect of an edit.
    // A blank one (a form's empty field, a null) sets nothing and is no request to.
    if (!isBlankText(input.password)) errors.password = [PASSWORD_ELSEWHERE];
    return Object.keys(errors).length === 0 ? { ok: true, value: parsed.value } : { ok: false, errors };
  }
}

/** send_invite_email: true or "true" (as API Umbrella reads it), on the admin or in the body's options. */
function asksForInvite(body: unknown): boolean {
  const admin = unwrap(body, 'admin');
  const options = isPlainObject(body) && isPlainObject(body.options) ? body.options : {};
  return [isPlainObject(admin) ? admin.send_invite_email : undefined, options.send_invite_email].some((value) => value === true || value === 'true');
}

/**
 * The fields the body names, typed (absent ones left out, and groups that
 * are no list), and errors for flags that are neither true nor false.
 * `current`: the stored email of the account changed (null for a new one).
 */
function parseChanges(input: Record<string, unknown>, current: string | null): { value: AccountChanges; errors: FieldErrors } {
  const errors = new ErrorCollector();
  const named = (field: string) => Object.hasOwn(input, field);
  const flag = (field: string) => {
    const value = toBoolean(input[field]);
    if (value === null) errors.add(field, 'must be true or false');
    return value ?? undefined;
  };
  const email = emailOf(input, current);
  const groupIds = named('group_ids') ? groupIdsOf(input.group_ids, errors) : undefined;
  const value: AccountChanges = {
    ...(email === undefined ? {} : { email }),
    ...(named('superuser') ? { superuser: flag('superuser') } : {}),
    ...(named('enabled') ? { enabled: flag('enabled') } : {}),
    ...(groupIds === undefined ? {} : { group_ids: groupIds }),
    ...(named('name') ? { name: freeText(input, 'name', errors) } : {}),
    ...(named('notes') ? { notes: freeText(input, 'notes', errors) } : {}),
  };
  return { value, errors: errors.errors };
}

/**
 * The email a body names: `email`, or API Umbrella's `username`, which is the
 * same field. When both are sent and differ (a script that read an account
 * and changed one of them), a blank one gives way, then the one that changes
 * the stored email wins, else `username`, as API Umbrella copies the username
 * over the email.
 */
function emailOf(input: Record<string, unknown>, current: string | null): string | undefined {
  const sent = (field: string) => (Object.hasOwn(input, field) ? adminEmail(textOf(input[field]) ?? '') : undefined);
  const [username, email] = [sent('username'), sent('email')];
  if (username === undefined || email === undefined || username === email) return username ?? email;
  if (username === '' || email === '') return username || email;
  return username === current ? email : username;
}

/** A name or notes: text as sent, none when blank or null; anything else is an error. */
function freeText(input: Record<string, unknown>, field: string, errors: ErrorCollector): string | null | undefined {
  const value = input[field];
  if (isBlankText(value)) return null;
  if (typeof value === 'string') return value;
  errors.add(field, 'must be text');
  return undefined;
}

/** Absent, null or a string of nothing but whitespace: not sent, as API Umbrella reads a blank password. */
function isBlankText(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/**
 * A list of ids, a comma-separated string or numbered form rows. Anything
 * else is an error (and no change) rather than read as "no groups", which
 * would take every group away from the admin.
 */
function groupIdsOf(raw: unknown, errors: ErrorCollector): string[] | undefined {
  const rows = isPlainObject(raw) && Object.keys(raw).every((key) => /^\d+$/.test(key)) ? Object.values(raw) : raw;
  const listed = typeof rows === 'string' || (Array.isArray(rows) && rows.every((item) => typeof item === 'string'));
  if (!listed) errors.add('group_ids', 'must be a list of admin group ids');
  return listed ? [...new Set(listOf(rows))] : undefined;
}

/** The confirmation when one is sent: one that is not text cannot match (it is never skipped as absent). */
function confirmationOf(input: Record<string, unknown>): string | undefined {
  if (!Object.hasOwn(input, 'password_confirmation')) return undefined;
  return textOf(input.password_confirmation) ?? '';
}

/** A string as sent; anything else (absent, null, a number) as none. */
function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

type ApiAdmin = ReturnType<typeof toApiAdmin>;

/** An account as `viewer` may read it: the token preview (token material, however little) only their own or for a superuser. */
function toApiAdmin({ admin, groups }: SeenAccount, viewer: Admin) {
  // Field by field, so that whatever the account may come to hold stays out unless it is added here.
  return {
    id: admin.id,
    // API Umbrella's key field, which is the email here.
    username: admin.email,
    email: admin.email,
    name: admin.name,
    notes: admin.notes,
    superuser: admin.superuser,
    enabled: admin.enabled,
    group_ids: groups.map((group) => group.id),
    // As API Umbrella: the names of the same groups, then "Superuser" for one.
    group_names: [...groups.map((group) => group.name), ...(admin.superuser ? ['Superuser'] : [])],
    auth_token_preview: viewer.superuser || viewer.id === admin.id ? admin.auth_token_preview : null,
    created_at: admin.created_at,
    updated_at: admin.updated_at,
    // API Umbrella's (Devise's) sign-in tracking, IPs included, as it answers them to whoever reads the account.
    sign_in_count: admin.sign_in_count,
    current_sign_in_at: admin.current_sign_in_at,
    last_sign_in_at: admin.last_sign_in_at,
    current_sign_in_ip: admin.current_sign_in_ip,
    last_sign_in_ip: admin.last_sign_in_ip,
  };
}

/** 422 in API Umbrella's words for this endpoint: {"errors":[{code, field, message, full_message}]}, e.g. "Groups: must belong to…". */
function invalid(reply: FastifyReply, errors: FieldErrors): FastifyReply {
  return reply.code(422).send(signupStyleErrors(errors));
}
