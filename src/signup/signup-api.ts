// POST /api-umbrella/v1/users(.json): API Umbrella's JSON signup API, for
// admins and for sites that embed a signup form with a key-creator key.
// CORS is open, as the embedding page lives on another origin.
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accessOf, guard, sendForbidden, sendForbiddenBecause, userRefusal } from '../admin-groups/request-access.js';
import { adminFromToken, presentsAdminToken, requireAdminToken, UNAUTHENTICATED_MESSAGE } from '../admin-api/auth.js';
import { parseFormBody } from '../admin-api/form-body.js';
import { jsonErrorHandler } from '../admin-api/plugin.js';
import { AdminHosts } from '../web/admin-hosts.js';
import { refuseApisOverHttp } from '../web/https-only.js';
import { openToAnyOrigin } from '../web/open-cors.js';
import { sendWithKey, signupStyleErrors } from '../admin-api/users.js';
import { KEY_CREATOR_ROLE } from '../api-users/model.js';
import { parseApiUser } from '../api-users/validate.js';
import type { AppContext } from '../context.js';
import { extractApiKey } from '../gateway/api-key.js';
import { parseRequestTarget } from '../gateway/request-url.js';
import { baseUrl } from '../lib/base-url.js';
import { isPlainObject } from '../lib/validation-errors.js';
import { checkSignupLimit } from './abuse.js';
import { registrationDetailsOf, withoutRegistrationDetails } from './registration-details.js';
import { knownDomains } from './known-domains.js';
import { parseSignup } from './signup-input.js';
import { requestedOption, signupOptions, welcomeCustomization } from './signup-options.js';
import type { Signups } from './signups.js';

const NO_MAIL = 'cannot be used: this gateway sends no email (mailer.smtp.host is not set)';

type Caller = { readonly kind: 'admin'; readonly id: string } | { readonly kind: 'key_creator'; readonly id: string };

/** Registered under /api-umbrella/v1 beside (not inside) the admin API, whose hook wants an admin token. */
export function signupApiPlugin(context: AppContext, signups: Signups) {
  return async (app: FastifyInstance): Promise<void> => {
    // The embeddable form posts jQuery-style form fields (user[first_name]=…), and scripts
    // Rails-style ones (user[roles][]=…, user[settings][rate_limits][0][limit]=…): read as the admin API reads them.
    await app.register(formbody, { parser: parseFormBody });
    app.setErrorHandler(jsonErrorHandler);
    app.decorateRequest('admin', null);
    const urls = ['/users', '/users.json'];
    openToAnyOrigin(app, urls);
    // After the CORS header is set: an embedding page can read why its call over plain HTTP was refused.
    const overHttp = refuseApisOverHttp(context.config);
    if (overHttp !== null) app.addHook('onRequest', overHttp);
    // An admin's call is the admin API's, which answers only on the admin's hosts (admin.hosts); a key creator's is taken on every host.
    const adminHosts = AdminHosts.of(context);
    app.addHook('onRequest', async (request, reply) => {
      if (adminHosts !== null && presentsAdminToken(request) && adminHosts.refuseOffHost(request, reply)) return;
      request.admin = adminFromToken(request, context.admins);
    });
    const adminToken = requireAdminToken(context.admins);
    // Read again once the body is in (see guard): a token that no longer works is refused, not taken for a key creator's call.
    app.addHook('preHandler', async (request, reply) => request.admin !== null && adminToken(request, reply));
    // An admin without user_manage is refused before the body is read, and after, as in the admin API.
    guard(app, async (request, reply) => {
      if (request.admin === null) return;
      const access = accessOf(context, request);
      if (!access.has('user_manage')) return sendForbidden(reply, access);
    });
    for (const url of urls) app.post(url, (request, reply) => createUser(context, signups, request, reply));
  };
}

async function createUser(context: AppContext, signups: Signups, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const caller = callerOf(context, request);
  if (caller === null) return reply.code(401).send({ error: UNAUTHENTICATED_MESSAGE });
  const body = userFields(request.body, FORM_TYPE.test(request.headers['content-type'] ?? ''));

  const options = (apiKey: string | null, emailedOnly = false) => signupOptions(context.config, baseUrl(context.config, request), request.body, { apiKey, emailedOnly });
  const verifyEmail = requestedOption(request.body, 'verify_email');
  const notify = requestedOption(request.body, 'send_notify_email') === true;
  const welcome = welcomeCustomization(request.body, caller.kind, knownDomains(context.config, context.publisher.current));

  if (caller.kind === 'admin') {
    const parsed = parseApiUser(body);
    if (!parsed.ok) return reply.code(422).send(signupStyleErrors(parsed.errors));
    const refusal = userRefusal(context, request, null, parsed.value.roles);
    if (refusal !== null) return sendForbiddenBecause(reply, refusal);
    // As in API Umbrella: the source sent, else "api"; an admin gets the key back either way, and options.verify_email only says whether the user counts as verified.
    const sourced = { ...parsed.value, registration_source: parsed.value.registration_source ?? 'api' };
    const input = verifyEmail === undefined ? sourced : { ...sourced, email_verified: verifyEmail };
    const asked = { sendWelcome: requestedOption(request.body, 'send_welcome_email') === true || asksForWelcome(body), notify, welcome };
    const created = signups.createByAdmin(input, caller.id, registrationDetailsOf(request), asked);
    return sendWithKey(reply, 201, created.user, created.apiKey, { options: options(created.apiKey) });
  }

  // API Umbrella's options.verify_email for a key-creator: the key goes by email only, never in the answer.
  const byEmailOnly = verifyEmail === true;
  if (byEmailOnly && !signups.sendsMail) return reply.code(422).send(signupStyleErrors({ 'options.verify_email': [NO_MAIL] }));

  const parsed = parseSignup(body, 'api');
  if (!parsed.ok) return reply.code(422).send(signupStyleErrors(parsed.errors));
  const limit = await checkSignupLimit(context, request.clientIp);
  if (!limit.allowed) {
    return reply.code(429).header('retry-after', String(limit.retryAfterSeconds)).send({ error: { code: 'OVER_RATE_LIMIT', message: limit.message } });
  }
  // An explicit send_welcome_email: false keeps the welcome back, as in API Umbrella (unless the key goes by email only).
  const sendWelcome = requestedOption(request.body, 'send_welcome_email') !== false;
  const result = signups.signUp(parsed.value, caller.id, registrationDetailsOf(request), { byEmailOnly, notify, welcome, sendWelcome });
  if (result.kind === 'emailed') {
    return reply.code(201).send({ user: { email: result.email }, message: `Your API key has been sent to ${result.email}.`, options: options(null, true) });
  }
  return sendWithKey(reply, 201, withoutRegistrationDetails(result.user), result.apiKey, { options: options(result.apiKey) });
}

/**
 * An admin by X-Admin-Auth-Token (read by the onRequest hook), or an enabled, unexpired user with the key-creator role
 * by an API key passed as the gateway takes it (API Umbrella's gateway fronts
 * this endpoint, so embeds and scripts call it with ?api_key=); else null.
 */
function callerOf(context: AppContext, request: FastifyRequest): Caller | null {
  const admin = request.admin;
  if (admin !== null) return { kind: 'admin', id: admin.id };
  const presented = extractApiKey(request.headers, parseRequestTarget(request.url)?.query ?? '');
  if (presented === null) return null;
  const user = context.keyIndex.find(presented.key)?.user;
  const usable = user !== undefined && user.enabled && context.clock.now() < user.expires_at_ms;
  return usable && user.roles.includes(KEY_CREATOR_ROLE) ? { kind: 'key_creator', id: user.id } : null;
}

/** A form body's content type, in any case and with any parameters. */
const FORM_TYPE = /^application\/x-www-form-urlencoded\b/i;

/**
 * The user's fields: under "user" (JSON or user[…] form fields), or, as the
 * Rails app of API Umbrella wraps a JSON body, the body itself when it has no
 * "user", or a null or false one. A "user" of another type ("", 0, a list),
 * or a form without user[…] fields, holds no user (422 for the missing
 * fields), as there.
 */
function userFields(body: unknown, asForm: boolean): Record<string, unknown> {
  if (!isPlainObject(body)) return {};
  if (isPlainObject(body.user)) return body.user;
  const wrapperless = body.user === undefined || body.user === null || body.user === false;
  return wrapperless && !asForm ? body : {};
}

/**
 * API Umbrella's other way for an admin to ask for the welcome email (its
 * admin app's): a send_welcome_email on the user, whatever its value ("0"
 * too), as long as it is there; JSON false and null are not.
 */
function asksForWelcome(user: Record<string, unknown>): boolean {
  const value = user.send_welcome_email;
  return value !== undefined && value !== null && value !== false;
}
