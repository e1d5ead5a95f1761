// The signup form at /signup/: server-rendered, works without JavaScript,
// CSRF-protected. A successful signup shows the key once, with examples.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { generateToken } from '../lib/secret-token.js';
import type { FieldErrors } from '../lib/validation-errors.js';
import type { PageRoutes } from '../web/plugin.js';
import { checkSignupLimit, filledHoneypot, HONEYPOT_FIELD } from './abuse.js';
import { baseUrl } from '../lib/base-url.js';
import { routeFailure } from '../web/route-failure.js';
import { keyExamples } from './key-examples.js';
import { parseSignup } from './signup-input.js';
import { keysGoByEmailOnly, type Signups } from './signups.js';
import { registrationDetailsOf } from './registration-details.js';

export const BUILT_IN_TERMS_PATH = '/signup/terms/';
const EXPIRED_FORM = 'This form had expired. Please check your details and submit it again.';
const TOO_LARGE_FORM = 'The form was too large to read. Please shorten what you entered and submit it again.';

type FormBody = Record<string, unknown>;

/** Names for messages that are not sentences of their own ("is invalid" → "First name is invalid"). */
const FIELD_NAMES: Readonly<Record<string, string>> = {
  first_name: 'First name',
  last_name: 'Last name',
  email: 'Email',
  website: 'Website',
  use_description: 'The description',
  registration_source: 'The registration source',
};

const NOT_SAVED = 'We could not save your signup just now. Please try again in a few minutes.';

const FORM_FIELDS = ['first_name', 'last_name', 'email', 'website', 'use_description', 'terms_and_conditions', 'registration_source'] as const;

export function signupPages(signups: Signups): PageRoutes {
  return async (web, context) => {
    await web.register(async (app: FastifyInstance) => {
      app.setErrorHandler((error: FastifyError, request, reply) => {
        // A body past the limit is never read: the form comes back empty, as a page rather than Fastify's JSON.
        if (error.statusCode === 413) return renderForm(context, reply.code(413), {}, {}, TOO_LARGE_FORM);
        // A missing or stale CSRF token (an old tab, cleared cookies) gets the form back, values kept.
        if (error.code?.startsWith('FST_CSRF') === true) return renderForm(context, reply.code(403), formBody(request), {}, EXPIRED_FORM);
        // Anything else too, as a page (never Fastify's JSON with SQLite's words).
        const failure = routeFailure(error, request, reply, 'signup page');
        if (failure.kind === 'client') return renderForm(context, reply.code(failure.status), formBody(request), {}, failure.message);
        return renderForm(context, reply.code(failure.status), formBody(request), {}, NOT_SAVED);
      });
      app.get('/signup', async (_request, reply) => reply.redirect('/signup/', 301));
      app.get('/signup/', async (_request, reply) => renderForm(context, reply, {}, {}));
      app.post('/signup/', { preHandler: app.csrfProtection }, (request, reply) => submit(context, signups, request, reply));
      app.get(BUILT_IN_TERMS_PATH, async (_request, reply) => reply.view('signup/terms'));
    });
  };
}

async function submit(context: AppContext, signups: Signups, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const body = formBody(request);
  const parsed = parseSignup(body, 'web');
  if (!parsed.ok) return renderForm(context, reply.code(422), body, parsed.errors);
  const limit = await checkSignupLimit(context, request.clientIp);
  if (!limit.allowed) return renderForm(context, reply.code(429).header('retry-after', String(limit.retryAfterSeconds)), body, {}, limit.message);
  // A bot gets the page a person would, with a key that was never stored.
  if (filledHoneypot(body)) {
    return signups.keysByEmailOnly ? renderEmailed(reply, parsed.value.email) : renderCreated(context, request, reply, parsed.value.email, generateToken());
  }
  const result = signups.signUp(parsed.value, null, registrationDetailsOf(request));
  if (result.kind === 'emailed') return renderEmailed(reply, result.email);
  return renderCreated(context, request, reply, result.user.email, result.apiKey);
}

function renderForm(context: AppContext, reply: FastifyReply, values: FormBody, errors: FieldErrors, notice?: string): FastifyReply {
  return reply.view('signup/form', {
    values: Object.fromEntries(FORM_FIELDS.map((name) => [name, typeof values[name] === 'string' ? values[name] : ''])),
    errors: sentences(errors),
    flash: notice === undefined ? undefined : { kind: 'error', message: notice },
    csrfToken: reply.generateCsrf(),
    termsUrl: context.config.signup.terms_url ?? BUILT_IN_TERMS_PATH,
    keyByEmail: keysGoByEmailOnly(context.config),
    honeypotField: HONEYPOT_FIELD,
  });
}

function renderEmailed(reply: FastifyReply, email: string): FastifyReply {
  return reply.view('signup/emailed', { email });
}

function renderCreated(context: AppContext, request: FastifyRequest, reply: FastifyReply, email: string, apiKey: string): FastifyReply {
  const examples = keyExamples(baseUrl(context.config, request), apiKey, context.publisher.current);
  // The key is on this page and nowhere else: keep it out of every cache.
  return reply.header('cache-control', 'no-store').view('signup/created', { email, apiKey, examples });
}

function sentences(errors: FieldErrors): FieldErrors {
  return Object.fromEntries(
    Object.entries(errors).map(([field, messages]) => [field, messages.map((message) => (/^[A-Z]/.test(message) ? message : `${FIELD_NAMES[field] ?? field} ${message}.`))]),
  );
}

function formBody(request: FastifyRequest): FormBody {
  const body = request.body;
  return typeof body === 'object' && body !== null ? (body as FormBody) : {};
}
