// GET /api-umbrella/api-users/:api_key/validate(.json): API Umbrella's
// deprecated key check, still called by partners' integrations to ask whether
// a key their user typed works. Like every API behind API Umbrella's gateway,
// the caller presents a key of its own, refused as the gateway refuses one.
//
// "valid" means the gateway takes the key today (known, enabled, not
// expired): a key that is refused at every backend is not one to tell a user
// is fine. The key sits in the path, so log lines censor it there too
// (lib/log-redaction.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { extractApiKey } from '../gateway/api-key.js';
import type { ErrorCode } from '../gateway/errors.js';
import { errorRequestOf, writeError } from '../gateway/respond.js';
import type { RequestTarget } from '../gateway/request-url.js';
import { refuseApisOverHttp } from '../web/https-only.js';

interface ValidateRoute {
  Params: { api_key: string };
}

/** Registered under /api-umbrella. */
export function keyValidationPlugin(context: AppContext) {
  return async (app: FastifyInstance): Promise<void> => {
    const overHttp = refuseApisOverHttp(context.config);
    if (overHttp !== null) app.addHook('onRequest', overHttp);
    for (const url of ['/api-users/:api_key/validate', '/api-users/:api_key/validate.json']) {
      app.get<ValidateRoute>(url, (request, reply) => validate(context, request, reply));
    }
  };
}

function validate(context: AppContext, request: FastifyRequest<ValidateRoute>, reply: FastifyReply): unknown {
  const target = targetOf(request.url);
  const refusal = callerRefusal(context, request, target);
  if (refusal !== null) {
    reply.hijack();
    writeError(reply.raw, context.config, errorRequestOf(request.raw, target, request.protocol, request.host), refusal);
    return reply;
  }
  // An empty key segment (/api-users//validate) names no key: 404, as in API Umbrella.
  if (request.params.api_key === '') return reply.code(404).send({ error: { code: 'NOT_FOUND', message: 'The requested URL was not found on this server.' } });
  return reply.send({ status: takesKey(context, request.params.api_key) ? 'valid' : 'invalid' });
}

/** The path as routed (the router matched it as sent) and the query, where the caller's key may be. */
function targetOf(url: string): RequestTarget {
  const queryAt = url.indexOf('?');
  return queryAt < 0 ? { path: url, query: '' } : { path: url.slice(0, queryAt), query: url.slice(queryAt + 1) };
}

/** What the gateway would answer the caller's own key, or null when it takes it. */
function callerRefusal(context: AppContext, request: FastifyRequest, target: RequestTarget): ErrorCode | null {
  const presented = extractApiKey(request.headers, target.query);
  return presented === null ? 'API_KEY_MISSING' : keyRefusal(context, presented.key);
}

function takesKey(context: AppContext, key: string): boolean {
  return keyRefusal(context, key) === null;
}

/** Why the gateway refuses a key on every backend, or null when it takes it. */
function keyRefusal(context: AppContext, key: string): ErrorCode | null {
  const user = context.keyIndex.find(key)?.user;
  if (user === undefined) return 'API_KEY_INVALID';
  if (!user.enabled) return 'API_KEY_DISABLED';
  if (context.clock.now() >= user.expires_at_ms) return 'API_KEY_EXPIRED';
  return null;
}
