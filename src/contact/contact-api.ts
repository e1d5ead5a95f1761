// POST /api-umbrella/v1/contact(.json): API Umbrella's contact API, which its
// static site's contact form posts to with a key holding the role
// api-umbrella-contact-form. The message is mailed to contact_email, replies
// going to the sender. The message itself is never logged.
//
// CORS is open, as for the signup API: API Umbrella serves its contact form
// from the gateway's own host, but a Parasol's developer site (no website
// backends here) often lives on another origin, and the form posts JSON.
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseFormBody } from '../admin-api/form-body.js';
import { UNAUTHENTICATED_MESSAGE } from '../admin-api/auth.js';
import { jsonErrorHandler } from '../admin-api/plugin.js';
import type { AppContext } from '../context.js';
import { extractApiKey } from '../gateway/api-key.js';
import { parseRequestTarget } from '../gateway/request-url.js';
import { contactEmail } from '../mailer/contact-email.js';
import type { Mailer } from '../mailer/mailer.js';
import { checkClientLimit } from '../signup/abuse.js';
import { refuseApisOverHttp } from '../web/https-only.js';
import { openToAnyOrigin } from '../web/open-cors.js';
import { contactFields, parseContact } from './contact-message.js';

export const CONTACT_FORM_ROLE = 'api-umbrella-contact-form';

/** A form body's content type, in any case and with any parameters. */
const FORM_TYPE = /^application\/x-www-form-urlencoded\b/i;

/** Registered under /api-umbrella/v1 beside (not inside) the admin API, whose hooks want an admin token. Sends with signup's mailer (null: none configured), which signup closes. */
export function contactApiPlugin(context: AppContext, mailer: Mailer | null) {
  return async (app: FastifyInstance): Promise<void> => {
    // The contact form posts jQuery-style form fields (contact[name]=…) or their JSON.
    await app.register(formbody, { parser: parseFormBody });
    app.setErrorHandler(jsonErrorHandler);
    const urls = ['/contact', '/contact.json'];
    openToAnyOrigin(app, urls);
    // After the CORS header is set: an embedding page can read why its call over plain HTTP was refused.
    const overHttp = refuseApisOverHttp(context.config);
    if (overHttp !== null) app.addHook('onRequest', overHttp);
    // The key is checked before the body is read: nothing from a caller without one is parsed.
    const requireContactKey = async (request: FastifyRequest, reply: FastifyReply) => {
      if (!holdsContactRole(context, request)) return reply.code(401).send({ error: UNAUTHENTICATED_MESSAGE });
    };
    for (const url of urls) app.post(url, { onRequest: requireContactKey }, (request, reply) => sendContact(context, mailer, request, reply));
  };
}

async function sendContact(context: AppContext, mailer: Mailer | null, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const to = context.config.contact_email;
  if (mailer === null || to === null) {
    const missing = [mailer === null ? 'mailer.smtp.host' : null, to === null ? 'contact_email' : null].filter((key) => key !== null);
    const message = `This gateway takes no contact messages: ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not set.`;
    return reply.code(503).send({ error: { code: 'CONTACT_UNAVAILABLE', message } });
  }
  const parsed = parseContact(contactFields(request.body, FORM_TYPE.test(request.headers['content-type'] ?? '')));
  if (!parsed.ok) return reply.code(422).send({ errors: parsed.errors });
  const limit = await checkClientLimit(context, 'contact-api', request.clientIp, 'messages');
  if (!limit.allowed) return reply.code(429).header('retry-after', String(limit.retryAfterSeconds)).send({ error: { code: 'OVER_RATE_LIMIT', message: limit.message } });
  // Only that a contact message went: its text and sender stay out of the log. A server slow to answer does not keep
  // the sender waiting, nor a proxy in front from answering 504 and the message from being sent twice.
  const outcome = await mailer.firstAttempt(contactEmail(to, context.config.site_name, parsed.value), { mail: 'contact_message' }, FIRST_ATTEMPT_WAIT_MS);
  if (outcome === 'failed') {
    return reply.code(502).send({ error: { code: 'CONTACT_NOT_SENT', message: `Your message could not be sent. Please write to ${to} instead.` } });
  }
  // Delivered, or to be tried again in the background as every mail is.
  return reply.code(200).send({ submitted: new Date(context.clock.now()).toISOString() });
}

/** How long the sender waits for the first try's answer; a slower one goes on in the background, retried as every mail. */
const FIRST_ATTEMPT_WAIT_MS = 5000;

/**
 * An enabled, unexpired user's key with the contact role, passed as the
 * gateway takes keys (API Umbrella's gateway fronts this endpoint, so its form
 * sends ?api_key=). As in API Umbrella, an admin token is not enough.
 */
function holdsContactRole(context: AppContext, request: FastifyRequest): boolean {
  const presented = extractApiKey(request.headers, parseRequestTarget(request.url)?.query ?? '');
  if (presented === null) return false;
  const user = context.keyIndex.find(presented.key)?.user;
  return user !== undefined && user.enabled && context.clock.now() < user.expires_at_ms && user.roles.includes(CONTACT_FORM_ROLE);
}

