// /api-umbrella/v1/admins: admin accounts, as on the web admin's Admin
// Accounts. An admin holding admin_view or admin_manage reads the accounts
// that page shows them (a superuser, all); superusers add, change and
// delete them, and admins holding admin_manage those they manage
// (src/admins/accounts.ts). No answer holds a password or token hash; a new
// admin's clear token is answered once, when it is made.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accountSeenBy, accountsSeenBy, ADMIN_READERS, type SeenAccount } from '../admin-groups/admin-visibility.js';
import { accessOf, guard, managePolicyOf, requirePermission, sendForbiddenBecause } from '../admin-groups/request-access.js';
import { listOf } from '../admin-groups/validate.js';
import { accountErrors, createAccount, deleteAccount, managesAccount, mayBecomeAccount, newPasswordErrors, updateAccount, type AccountChanges, type NewAccount } from '../admins/accounts.js';
import type { Admin } from '../admins/repository.js';
import type { AppContext } from '../context.js';
import { ErrorCollector, isPlainObject, toBoolean, type FieldErrors, type Parsed } from '../lib/validation-errors.js';
import { notFound, sendDataTablesPage, stripJson, textSearch, unwrap, withJsonSuffix, type DataTablesList } from './routes.js';

type IdParams = { Params: { id: string } };

/**
 * As API Umbrella's list: searched by email (its name and username: an
 * admin here has only an email, which is also what they sign in with), and
 * ordered by its columns, `username` and `current_sign_in_at` being the email
 * and the latest sign-in here.
 */
const LISTED: DataTablesList<ApiAdmin> = {
  matches: textSearch((admin) => [admin.email]),
  orderable: {
    email: (admin) => admin.email,
    username: (admin) => admin.email,
    last_sign_in_at: (admin) => admin.last_sign_in_at,
    current_sign_in_at: (admin) => admin.last_sign_in_at,
    created_at: (admin) => admin.created_at,
    updated_at: (admin) => admin.updated_at,
  },
};

const PASSWORD_ELSEWHERE = 'cannot be changed here: the admin sets it under My Account in the web admin, or an operator runs `parasol admins reset-password`';

export function adminRoutes(app: FastifyInstance, context: AppContext): void {
  const minLength = context.config.admin.password_min_length;

  app.register(async (viewers) => {
    guard(viewers, requirePermission(context, ...ADMIN_READERS));

    withJsonSuffix(viewers, 'GET', '/admins', async (request, reply) =>
      sendDataTablesPage(reply, request.query, LISTED, () => seenBy(request).map((account) => toApiAdmin(account, request.admin!))),
    );

    // An account the viewer does not see is answered as one that is not there.
    viewers.get<IdParams>('/admins/:id', async (request, reply) => {
      const found = seenAs(request, stripJson(request.params.id));
      return found === null ? notFound(reply) : { admin: found };
    });
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
      // The clear token, never stored, is shown this once: no cache may keep it.
      // Without its groups if they were deleted meanwhile (the viewer may then no longer see it).
      const answer = seenAs(request, admin.id) ?? toApiAdmin({ admin, groups: [], otherGroups: 0 }, request.admin!);
      return reply.code(201).header('cache-control', 'no-store').send({ admin: { ...answer, authentication_token: authToken } });
    });

    managers.put<IdParams>('/admins/:id', async (request, reply) => {
      const target = seenAdmin(request, stripJson(request.params.id));
      if (target === undefined) return notFound(reply);
      if (!managesAccount(context, managePolicyOf(context, request), target)) return refuse(request, reply);
      const changes = accountChanges(unwrap(request.body, 'admin'), target);
      if (!changes.ok) return invalid(reply, changes.errors);
      if (!mayBecomeAccount(context, managePolicyOf(context, request), target, changes.value)) return refuse(request, reply);
      const saved = updateAccount(context, target.id, changes.value);
      if (saved === null) return notFound(reply);
      return saved.ok ? reply.code(204).send() : invalid(reply, saved.errors);
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

  function refuse(request: FastifyRequest, reply: FastifyReply): FastifyReply {
    return sendForbiddenBecause(reply, managePolicyOf(context, request).refusal().refused);
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

  /** A POST's account: an email and password are needed (the confirmation only when sent); a superuser only when asked for. */
  function newAccount(raw: unknown): Parsed<NewAccount> {
    const input = isPlainObject(raw) ? raw : {};
    const parsed = parseChanges(input);
    const account = { email: '', superuser: false, enabled: true, group_ids: [], ...parsed.value, password: textOf(input.password) ?? '' };
    const errors = { ...parsed.errors, ...accountErrors(context, account, null), ...newPasswordErrors(account.password, confirmationOf(input), minLength) };
    return Object.keys(errors).length === 0 ? { ok: true, value: account } : { ok: false, errors };
  }

  /** A PUT's changes to `target`: the fields it names. */
  function accountChanges(raw: unknown, target: Admin): Parsed<AccountChanges> {
    const input = isPlainObject(raw) ? raw : {};
    const parsed = parseChanges(input);
    const errors = { ...parsed.errors, ...accountErrors(context, parsed.value, target) };
    // Setting a password ends the admin's sessions and asks for the current one on My Account: not a side effect of an edit.
    if (Object.hasOwn(input, 'password')) errors.password = [PASSWORD_ELSEWHERE];
    return Object.keys(errors).length === 0 ? { ok: true, value: parsed.value } : { ok: false, errors };
  }
}

/** The fields the body names, typed (absent ones left out), and errors for flags that are neither true nor false. */
function parseChanges(input: Record<string, unknown>): { value: AccountChanges; errors: FieldErrors } {
  const errors = new ErrorCollector();
  const named = (field: string) => Object.hasOwn(input, field);
  const flag = (field: string) => {
    const value = toBoolean(input[field]);
    if (value === null) errors.add(field, 'must be true or false');
    return value ?? undefined;
  };
  const value: AccountChanges = {
    ...(named('email') ? { email: (textOf(input.email) ?? '').trim() } : {}),
    ...(named('superuser') ? { superuser: flag('superuser') } : {}),
    ...(named('enabled') ? { enabled: flag('enabled') } : {}),
    ...(named('group_ids') ? { group_ids: groupIdsOf(input.group_ids, errors) } : {}),
  };
  return { value, errors: errors.errors };
}

/**
 * A list of ids, a comma-separated string or numbered form rows. Anything
 * else is an error rather than read as "no groups", which would take every
 * group away from the admin.
 */
function groupIdsOf(raw: unknown, errors: ErrorCollector): string[] {
  const rows = isPlainObject(raw) && Object.keys(raw).every((key) => /^\d+$/.test(key)) ? Object.values(raw) : raw;
  const listed = typeof rows === 'string' || (Array.isArray(rows) && rows.every((item) => typeof item === 'string'));
  if (!listed) errors.add('group_ids', 'must be a list of admin group ids');
  return listed ? [...new Set(listOf(rows))] : [];
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
    email: admin.email,
    superuser: admin.superuser,
    enabled: admin.enabled,
    group_ids: groups.map((group) => group.id),
    auth_token_preview: viewer.superuser || viewer.id === admin.id ? admin.auth_token_preview : null,
    created_at: admin.created_at,
    updated_at: admin.updated_at,
    last_sign_in_at: admin.last_sign_in_at,
  };
}

function invalid(reply: FastifyReply, errors: FieldErrors): FastifyReply {
  return reply.code(422).send({ errors });
}
