// Users › API Users: a searchable, sortable, paged list (list-view.ts); add
// (the key is shown once); view and edit roles, enabled state, the key's
// expiry, per-user rate limits and the IPs and referers the key is restricted
// to; regenerate the key (shown once), the old one stopping at once or after
// a chosen while, and end that while early, each asked first; delete after a
// confirmation page.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ApiUser } from '../../api-users/model.js';
import { EXPIRING_WITHIN_DAYS, KEY_STATUSES, type KeyStatus } from '../../api-users/repository.js';
import { parseApiUser, PREVIOUS_KEY_MAX_DAYS } from '../../api-users/validate.js';
import type { AppContext } from '../../context.js';
import { DAY_MS } from '../../lib/iso-instant.js';
import { hasErrors, type FieldErrors } from '../../lib/validation-errors.js';
import { accessOf, userRefusal } from '../../admin-groups/request-access.js';
import { askToConfirm, confirmPrompt, isConfirmed, type ActionQuestion } from '../confirm-action.js';
import { redirectWithFlash } from '../flash.js';
import { rolesInUseFor } from '../../admin-groups/role-policy.js';
import { rolesInUseHint } from '../roles-hint.js';
import { renderForbiddenPage, requirePagePermission } from '../page-access.js';
import { differingFields, editConflictErrors, FormErrors, postedVersion } from '../form-errors.js';
import { joinLines, splitLines } from '../line-list.js';
import { decodeNestedForm, rowsOf, textareaOf, textOf, treeOf, type FormTree } from '../../lib/nested-form.js';
import { listPage, requestedPage } from '../list-page.js';
import { listView, parseListOrder, repositoryOrder, type ListState } from './list-view.js';
import { renderAdminPage, renderErrorPage } from '../page.js';
import { BLANK_RATE_LIMIT_ROW, DURATION_UNITS, formMessage, isBlankRow, rateLimitRowsInput, rowFromForm, rowFromRateLimit, type RateLimitRow } from '../rate-limit-rows.js';
import { formAfterRowAction, rowActionOf } from '../row-actions.js';
import { registrationDetailsOf } from '../../signup/registration-details.js';
import type { Signups } from '../../signup/signups.js';

type IdParams = { Params: { id: string } };

export const PAGE_SIZE = 25;

export interface ApiUserForm {
  email: string;
  first_name: string;
  last_name: string;
  website: string;
  use_description: string;
  roles: string;
  enabled: boolean;
  email_verified: boolean;
  throttle_by_ip: boolean;
  expires_at: string;
  /** On adding a user: their key goes to their address as well (API Umbrella's "Send user welcome e-mail"). */
  send_welcome_email: boolean;
  settings: { rate_limit_mode: string; rate_limits: RateLimitRow[]; allowed_ips: string; allowed_referers: string };
}

const LABELS: Record<string, string> = {
  email: 'Email',
  first_name: 'First Name',
  last_name: 'Last Name',
  website: 'Website',
  use_description: 'Purpose',
  roles: 'Roles',
  enabled: 'Enabled',
  email_verified: 'Email verified',
  expires_at: 'Key Expires At',
  throttle_by_ip: 'Throttle by IP',
  'settings.rate_limit_mode': 'Rate Limit',
  'settings.rate_limits': 'Rate Limits',
  'settings.allowed_ips': 'Restrict Access to IPs',
  'settings.allowed_referers': 'Restrict Access to HTTP Referers',
};
/** How long the key being replaced keeps working, as the user's page offers it (at most PREVIOUS_KEY_MAX_DAYS). */
const GRACE_CHOICES: readonly { value: string; ms: number; label: string }[] = [
  { value: '', ms: 0, label: 'Current key stops at once' },
  { value: '1h', ms: DAY_MS / 24, label: 'Current key works 1 more hour' },
  { value: '1d', ms: DAY_MS, label: 'Current key works 1 more day' },
  { value: '7d', ms: 7 * DAY_MS, label: 'Current key works 7 more days' },
  { value: '30d', ms: PREVIOUS_KEY_MAX_DAYS * DAY_MS, label: `Current key works ${PREVIOUS_KEY_MAX_DAYS} more days` },
];
const STATUS_CHOICES: readonly { value: KeyStatus | ''; label: string }[] = [
  { value: '', label: 'Every key' },
  { value: 'enabled', label: 'Enabled' },
  { value: 'expiring', label: `Expiring within ${EXPIRING_WITHIN_DAYS} days` },
  { value: 'expired', label: 'Expired' },
  { value: 'disabled', label: 'Disabled' },
];
const BLANKS = { rate_limits: () => ({ ...BLANK_RATE_LIMIT_ROW }) };
const BACK = { backHref: '/admin/api_users', backLabel: 'Back to API Users', section: 'api_users' } as const;

export function apiUserPages(app: FastifyInstance, context: AppContext, signups: Signups): void {
  const { users } = context;

  app.register(async (viewers) => {
    // Managing users takes seeing them: user_manage alone shows them too.
    viewers.addHook('preHandler', requirePagePermission(context, { section: 'api_users' }, 'user_view', 'user_manage'));

    viewers.get('/api_users', async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const search = typeof query.search === 'string' ? query.search.trim() : '';
      // An unknown status (an old link) shows every user rather than an error page.
      const status = KEY_STATUSES.find((known) => known === query.status);
      const state: ListState = { search, status: status ?? '', order: parseListOrder(query.order) };
      const requested = requestedPage(query.page);
      const now = context.clock.now();
      const order = repositoryOrder(state.order);
      const usersOn = (page: number) => users.list({ search: search || undefined, status, order, now, offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE });
      let { users: list, total } = usersOn(requested);
      const paging = listPage(requested, total, PAGE_SIZE);
      if (paging.page < requested) list = usersOn(paging.page).users;
      return renderAdminPage(context, reply, 'admin/api_users/index', {
        title: 'API Users',
        section: 'api_users',
        users: list,
        paging,
        ...state,
        ...listView(state),
        statuses: STATUS_CHOICES,
        now,
        canManage: accessOf(context, request).has('user_manage'),
      });
    });

    viewers.get<IdParams>('/api_users/:id', async (request, reply) => {
      const found = users.versioned(request.params.id);
      return found === null ? notFound(reply) : renderForm(reply, { form: formFromUser(found.user), user: found.user, version: String(found.version) });
    });
  });

  app.register(async (managers) => {
    managers.addHook('preHandler', requirePagePermission(context, BACK, 'user_manage'));

    managers.get('/api_users/new', async (_request, reply) => renderForm(reply, { form: formFromUser(null), user: null }));

    managers.post('/api_users', async (request, reply) => {
      const tree = decodeNestedForm(request.body);
      const read = (fields: FormTree) => formFromSubmission(fields, null);
      const rowAction = rowActionOf(tree);
      if (rowAction !== null) return renderForm(reply, { form: formAfterRowAction(tree, rowAction, read, BLANKS), user: null });
      const form = read(tree);
      const { input, errors } = userInput(form, null);
      const parsed = parseApiUser(input);
      if (!parsed.ok || hasErrors(errors)) return renderForm(reply, { form, user: null, errors: { ...errors, ...(parsed.ok ? {} : parsed.errors) } }, 422);
      const refusal = userRefusal(context, request, null, parsed.value.roles);
      if (refusal !== null) return renderForm(reply, { form, user: null, errors: { roles: [refusal] } }, 403);
      const asked = { sendWelcome: form.send_welcome_email && signups.sendsMail };
      const { user, apiKey } = signups.createByAdmin(parsed.value, request.admin!.id, registrationDetailsOf(request), asked);
      return renderKey(reply, user, apiKey, asked.sendWelcome ? 'created and mailed' : 'created');
    });

    managers.post<IdParams>('/api_users/:id', async (request, reply) => {
      const found = users.versioned(request.params.id);
      if (found === null) return notFound(reply);
      const { user } = found;
      const held = userRefusal(context, request, user, null);
      if (held !== null) return renderForbiddenPage(context, reply, BACK, held);
      const tree = decodeNestedForm(request.body);
      const read = (fields: FormTree) => formFromSubmission(fields, user);
      const posted = postedVersion(request.body);
      // Shown again, the form keeps the version it was filled from (one from an older page, without it, takes the user's).
      const version = posted ?? String(found.version);
      const rowAction = rowActionOf(tree);
      if (rowAction !== null) return renderForm(reply, { form: formAfterRowAction(tree, rowAction, read, BLANKS), user, version });
      const form = read(tree);
      if (version !== String(found.version)) return renderConflict(reply, form, found);
      const { input, errors } = userInput(form, user);
      const parsed = parseApiUser(input, user);
      if (!parsed.ok || hasErrors(errors)) return renderForm(reply, { form, user, version, errors: { ...errors, ...(parsed.ok ? {} : parsed.errors) } }, 422);
      const refusal = userRefusal(context, request, user, parsed.value.roles);
      if (refusal !== null) return renderForm(reply, { form, user, version, errors: { roles: [refusal] } }, 403);
      const by = request.admin!.id;
      const saved = posted === null ? users.update(user.id, parsed.value, by) : users.update(user.id, parsed.value, by, { version: found.version });
      // Changed since it was read above (by another process: the CLI), checked with the write.
      if (saved === 'conflict') return renderConflict(reply, form, users.versioned(user.id));
      if (saved === null) return notFound(reply);
      return redirectWithFlash(reply, `/admin/api_users/${user.id}`, 'success', `Saved the API user ${user.email}.`);
    });

    managers.post<IdParams>('/api_users/:id/regenerate_key', async (request, reply) => {
      const user = users.get(request.params.id);
      if (user === null) return notFound(reply);
      const refusal = userRefusal(context, request, user, null);
      if (refusal !== null) return renderForbiddenPage(context, reply, BACK, refusal);
      const chosen = textOf(decodeNestedForm(request.body), 'previous_key_grace');
      const grace = GRACE_CHOICES.find((choice) => choice.value === chosen);
      if (grace === undefined) return renderErrorPage(context, reply, 400, { title: 'Unknown choice', message: 'Choose how long the current key keeps working from the list.', ...BACK });
      if (!isConfirmed(request)) return askToConfirm(context, reply, regenerateKeyQuestion(user, `${grace.label}.`));
      const previousKeyEnd = grace.ms === 0 ? null : new Date(context.clock.now() + grace.ms).toISOString();
      const result = users.regenerateKey(user.id, previousKeyEnd, request.admin!.id);
      return result === null ? notFound(reply) : renderKey(reply, result.user, result.apiKey, 'regenerated');
    });

    managers.post<IdParams>('/api_users/:id/end_previous_key', async (request, reply) => {
      const user = users.get(request.params.id);
      if (user === null) return notFound(reply);
      const refusal = userRefusal(context, request, user, null);
      if (refusal !== null) return renderForbiddenPage(context, reply, BACK, refusal);
      if (!isConfirmed(request)) return askToConfirm(context, reply, endPreviousKeyQuestion(user));
      if (users.endPreviousKey(user.id, request.admin!.id) === null) return notFound(reply);
      return redirectWithFlash(reply, `/admin/api_users/${user.id}`, 'success', `The previous key of ${user.email} no longer works.`);
    });

    // Deleting cannot be undone (disabling can): superusers only.
    managers.get<IdParams>('/api_users/:id/delete', async (request, reply) => {
      if (!request.admin!.superuser) return superusersOnly(reply);
      const user = users.get(request.params.id);
      return user === null ? notFound(reply) : renderAdminPage(context, reply, 'admin/api_users/delete', { title: `Delete ${user.email}`, section: 'api_users', user });
    });

    managers.post<IdParams>('/api_users/:id/delete', async (request, reply) => {
      if (!request.admin!.superuser) return superusersOnly(reply);
      const user = users.get(request.params.id);
      if (user === null || !users.delete(user.id, request.admin!.email)) return notFound(reply);
      return redirectWithFlash(reply, '/admin/api_users', 'success', `Deleted the API user ${user.email}. Its key no longer works.`);
    });
  });

  /** `version`: the user's as the form was filled (record_version); none for a new user. */
  function renderForm(reply: FastifyReply, data: { form: ApiUserForm; user: ApiUser | null; version?: string; errors?: FieldErrors }, status = 200) {
    const messages = Object.fromEntries(Object.entries(data.errors ?? {}).map(([field, list]) => [field, list.map((message) => formMessage(field, message))]));
    const errors = new FormErrors(messages, labelOf);
    const title = data.user === null ? 'Add API User' : data.user.email;
    const now = context.clock.now();
    // Admins who may view users and not manage them see the page without its forms' buttons.
    // So do those who may manage users but not this one (see user-policy.ts), told why.
    const mayManage = accessOf(context, reply.request).has('user_manage');
    const outOfReach = data.user === null || !mayManage ? null : userRefusal(context, reply.request, data.user, null);
    const readOnly = !mayManage || outOfReach !== null;
    const rolesHint = rolesInUseHint(rolesInUseFor(context, accessOf(context, reply.request)));
    const prompts = data.user === null ? null : { regenerateKey: confirmPrompt(regenerateKeyQuestion(data.user, GRACE_CHOSEN_BESIDE)), endPreviousKey: confirmPrompt(endPreviousKeyQuestion(data.user)) };
    const view = { title, section: 'api_users' as const, ...data, errors, units: DURATION_UNITS, now, graceChoices: GRACE_CHOICES, previousKeyUntil: previousKeyUntil(data.user, now), readOnly, outOfReach, sendsMail: signups.sendsMail, rolesHint, prompts };
    return renderAdminPage(context, reply, 'admin/api_users/form', view, status);
  }

  /**
   * A save refused because the user changed after the form was filled: the
   * form again with what the admin typed, the user's current version (so that
   * saving again keeps their values) and what now differs; 404 once deleted.
   */
  function renderConflict(reply: FastifyReply, form: ApiUserForm, current: { user: ApiUser; version: number } | null) {
    if (current === null) return notFound(reply);
    const { user } = current;
    const fields = differingFields(formFromUser(user), form).map(labelOf);
    const errors = editConflictErrors({ record: 'API user', by: user.updater.username, at: user.updated_at, fields }, reply.request.admin!.email);
    return renderForm(reply, { form, user, version: String(current.version), errors }, 409);
  }

  /** The clear key is in this one response and nowhere else: no redirect, no cookie, no log. */
  function renderKey(reply: FastifyReply, user: ApiUser, apiKey: string, event: 'created' | 'created and mailed' | 'regenerated') {
    reply.header('Cache-Control', 'no-store');
    const view = { title: 'API key', section: 'api_users' as const, user, apiKey, event, previousKeyUntil: previousKeyUntil(user, context.clock.now()) };
    return renderAdminPage(context, reply, 'admin/api_users/key', view, event === 'regenerated' ? 200 : 201);
  }

  function notFound(reply: FastifyReply) {
    return renderErrorPage(context, reply, 404, { title: 'API user not found', message: 'No API user has this id.', ...BACK });
  }

  function superusersOnly(reply: FastifyReply) {
    const message = 'Only superusers can delete API users; you can disable one instead. Ask a superuser to delete it for you.';
    return renderErrorPage(context, reply, 403, { title: 'Superusers only', message, ...BACK });
  }
}

function labelOf(field: string): string {
  return LABELS[field] ?? field.replace(/^settings\./, '').replace(/_/g, ' ');
}

/** What the dialog, asked before the form is posted, says of the grace the admin chose in it. */
const GRACE_CHOSEN_BESIDE = 'The current key stops working at the time chosen beside the button.';

function regenerateKeyQuestion(user: ApiUser, grace: string): ActionQuestion {
  const consequences = [`Parasol makes a new key for ${user.email} and shows it once, on the next page.`, grace];
  return { question: `Regenerate the key of ${user.email}?`, consequences, button: 'Regenerate key', ...backTo(user) };
}

function endPreviousKeyQuestion(user: ApiUser): ActionQuestion {
  const consequences = ['Requests with the previous key are refused from then on; the current key keeps working.'];
  return { question: `End the previous key of ${user.email} now?`, consequences, button: 'End it now', ...backTo(user) };
}

/** A question asked from the user's page leads back to it. */
function backTo(user: ApiUser): Pick<ActionQuestion, 'back' | 'section'> {
  return { back: { href: `/admin/api_users/${user.id}`, label: user.email }, section: 'api_users' };
}

/** Until when the user's previous key works: its own end or the user's, whichever comes first; null when it works no more. */
function previousKeyUntil(user: ApiUser | null, now: number): string | null {
  if (user?.previous_api_key_expires_at == null) return null;
  const ends = [user.previous_api_key_expires_at, user.expires_at].filter((end) => end !== null).map((end) => Date.parse(end));
  const until = Math.min(...ends);
  return until > now ? new Date(until).toISOString() : null;
}

function formFromUser(user: ApiUser | null): ApiUserForm {
  return {
    email: user?.email ?? '',
    first_name: user?.first_name ?? '',
    last_name: user?.last_name ?? '',
    website: user?.website ?? '',
    use_description: user?.use_description ?? '',
    roles: (user?.roles ?? []).join(', '),
    enabled: user?.enabled ?? true,
    email_verified: user?.email_verified ?? true,
    throttle_by_ip: user?.throttle_by_ip ?? false,
    expires_at: user?.expires_at ?? '',
    send_welcome_email: false,
    settings: {
      rate_limit_mode: user?.settings.rate_limit_mode ?? '',
      rate_limits: (user?.settings.rate_limits ?? []).map(rowFromRateLimit),
      allowed_ips: joinLines(user?.settings.allowed_ips ?? []),
      allowed_referers: joinLines(user?.settings.allowed_referers ?? []),
    },
  };
}

function formFromSubmission(tree: FormTree, saved: ApiUser | null): ApiUserForm {
  const settings = treeOf(tree, 'settings');
  return {
    email: textOf(tree, 'email').trim(),
    first_name: textOf(tree, 'first_name').trim(),
    last_name: textOf(tree, 'last_name').trim(),
    website: textOf(tree, 'website').trim(),
    // Textareas: LF line endings whatever the browser sent (textareaOf).
    use_description: textareaOf(tree, 'use_description'),
    roles: textOf(tree, 'roles'),
    enabled: textOf(tree, 'enabled') !== '',
    email_verified: textOf(tree, 'email_verified') !== '',
    throttle_by_ip: textOf(tree, 'throttle_by_ip') !== '',
    send_welcome_email: saved === null && textOf(tree, 'send_welcome_email') !== '',
    // A post without the field (not from this form) keeps the saved expiry rather than lifting it.
    expires_at: 'expires_at' in tree ? textOf(tree, 'expires_at').trim() : (saved?.expires_at ?? ''),
    settings: {
      rate_limit_mode: textOf(settings, 'rate_limit_mode'),
      rate_limits: rowsOf(settings, 'rate_limits').map(rowFromForm).filter((row) => !isBlankRow(row)),
      allowed_ips: listText(settings, 'allowed_ips', saved),
      allowed_referers: listText(settings, 'allowed_referers', saved),
    },
  };
}

/** A restriction list's textarea as sent; a post without the field (not from this form) keeps the saved list. */
function listText(settings: FormTree, key: 'allowed_ips' | 'allowed_referers', saved: ApiUser | null): string {
  return key in settings ? textareaOf(settings, key) : joinLines(saved?.settings[key] ?? []);
}

/** What parseApiUser() takes. */
/** The API shape parseApiUser() checks, and what the form itself finds wrong. */
function userInput(form: ApiUserForm, existing: ApiUser | null): { input: Record<string, unknown>; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const input = {
    ...form,
    enabled: form.enabled ? '1' : '0',
    email_verified: form.email_verified ? '1' : '0',
    throttle_by_ip: form.throttle_by_ip ? '1' : '0',
    settings: {
      rate_limit_mode: form.settings.rate_limit_mode,
      rate_limits: rateLimitRowsInput(form.settings.rate_limit_mode, form.settings.rate_limits, 'settings', errors),
      allowed_ips: splitLines(form.settings.allowed_ips),
      allowed_referers: splitLines(form.settings.allowed_referers),
    },
    registration_source: existing?.registration_source ?? 'web_admin',
  };
  return { input, errors };
}
