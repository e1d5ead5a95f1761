// The admin REST API under /api-umbrella/v1, in API Umbrella's shapes.
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isHealthStatus } from '../lib/health-status.js';
import { isPlainObject } from '../lib/validation-errors.js';
import type { PasswordLinks } from '../admins/password-links.js';
import type { AppContext } from '../context.js';
import { adminGroupRoutes } from './admin-groups.js';
import { adminPermissionRoutes } from './admin-permissions.js';
import { adminRoutes } from './admins.js';
import { apiScopeRoutes } from './api-scopes.js';
import { apiBackendRoutes } from './apis.js';
import { requireAdminToken } from './auth.js';
import { configRoutes } from './config.js';
import { keepOutOfCaches } from '../lib/no-store.js';
import { parseFormBody } from './form-body.js';
import { notFound, withJsonSuffix } from './routes.js';
import { AdminHosts } from '../web/admin-hosts.js';
import { answerAtCanonicalPath } from '../web/canonical-path.js';
import { refuseApisOverHttp } from '../web/https-only.js';
import { routeFailure } from '../web/route-failure.js';
import { userRoleRoutes } from './user-roles.js';
import { apiUserRoutes } from './users.js';

/**
 * API Umbrella's /state, which deploy scripts poll to see a change live: the
 * published config's version, and when the running config file was applied
 * (start, or the last reload that changed something). No token, as there.
 */
function stateRoute(app: FastifyInstance, context: AppContext): void {
  const fileConfigVersion = context.clock.now();
  withJsonSuffix(app, 'GET', '/state', async () => ({ file_config_version: fileConfigVersion, db_config_version: context.publisher.current.version }));
}

/**
 * API Umbrella's health check, for load balancers and deploy scripts: green
 * whenever Parasol answers (it answers only once its store is open and its
 * config applied, so wait_for_status never has anything to wait for). Its
 * arguments are checked as API Umbrella checks them, and the answer is typed
 * exactly application/json, which API Umbrella's own `health` command
 * requires.
 */
function healthRoute(app: FastifyInstance): void {
  withJsonSuffix<{ Querystring: Record<string, unknown> }>(app, 'GET', '/health', async (request, reply) => {
    const invalid = healthArgumentProblem(request.query);
    const body = invalid === null ? { status: 'green' } : { error: invalid };
    // A Buffer keeps the type as set; Fastify adds a charset to a string's.
    return reply.code(invalid === null ? 200 : 422).type('application/json').send(Buffer.from(JSON.stringify(body)));
  });
}

/** API Umbrella's words for a health argument it does not take, or null. */
function healthArgumentProblem({ wait_for_status: status, wait_timeout: timeout }: Record<string, unknown>): string | null {
  if (status !== undefined && !isHealthStatus(status)) return `Invalid wait_for_status argument (${String(status)})`;
  if (timeout !== undefined && !(typeof timeout === 'string' && /^\d+$/.test(timeout))) return `Invalid wait_timeout argument (${String(timeout)})`;
  return null;
}

/** `passwordLinks` mails the invites send_invite_email asks for. */
export function adminApiPlugin(context: AppContext, passwordLinks: PasswordLinks) {
  return async (app: FastifyInstance): Promise<void> => {
  app.decorateRequest('admin', null);
  app.addHook('onRequest', answerAtCanonicalPath(context.config));
  // API Umbrella's admin API is a Rails app, which scripts may send form fields
  // (api[servers][0][host]=…, config[apis][<id>][publish]=1) instead of JSON.
  await app.register(formbody, { parser: parseFormBody });
  acceptEmptyJson(app);
  refuseBodiesThatAreNoObject(app);
  app.setErrorHandler(jsonErrorHandler);
  app.setNotFoundHandler((_request, reply) => notFound(reply));
  keepOutOfCaches(app, () => true);

  healthRoute(app);
  stateRoute(app, context);

  await app.register(async (authenticated) => {
    // Off the admin's hosts (admin.hosts) there is no admin API: answered before anything else is looked at.
    const adminHosts = AdminHosts.of(context);
    if (adminHosts !== null) authenticated.addHook('onRequest', async (request, reply) => void adminHosts.refuseOffHost(request, reply));
    // Before the token is looked at: over plain HTTP it has crossed the network in clear, and nothing is done with it.
    const overHttp = refuseApisOverHttp(context.config);
    if (overHttp !== null) authenticated.addHook('onRequest', overHttp);
    authenticated.addHook('onRequest', requireAdminToken(context.admins));
    authenticated.addHook('preHandler', requireAdminToken(context.admins));
    apiBackendRoutes(authenticated, context);
    apiUserRoutes(authenticated, context);
    configRoutes(authenticated, context);
    apiScopeRoutes(authenticated, context);
    adminGroupRoutes(authenticated, context);
    adminPermissionRoutes(authenticated);
    adminRoutes(authenticated, context, passwordLinks);
    userRoleRoutes(authenticated, context);
  });
  };
}

/**
 * Many client libraries send Content-Type: application/json on every call,
 * a DELETE or a publish without a body too: an empty body is no body rather
 * than Fastify's 400. Anything else goes to its default (poisoning-safe) parser.
 */
function acceptEmptyJson(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    parse(request, text, done);
  });
}

/**
 * Every body the admin API reads is an object (JSON or form fields). Anything
 * else (a JSON array or string, plain text) is a 400 rather than a 422 that
 * lists every field as blank, which on a PUT reads as if the stored record
 * had lost them.
 */
function refuseBodiesThatAreNoObject(app: FastifyInstance): void {
  app.addHook('preValidation', async (request, reply) => {
    if (request.body !== undefined && !isPlainObject(request.body)) {
      await reply.code(400).send({ error: 'The request body must be a JSON object or form fields.' });
    }
  });
}

/** Malformed JSON and other client errors answer {"error": "..."} with their status, never a stack. */
export function jsonErrorHandler(this: FastifyInstance, error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const failure = routeFailure(error, request, reply, 'API request');
  void reply.code(failure.status).send({ error: failure.kind === 'ours' ? 'Internal Server Error' : failure.message });
}
