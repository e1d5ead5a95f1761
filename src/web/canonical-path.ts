// The gateway's own pages and admin API answer only at their canonical
// path (normalizePath: the one the proxy matches on). Fastify's router
// decodes a path before it matches, so "/%61dmin/login" served the sign-in
// page, and a load balancer rule keeping /admin off the internet by its raw
// prefix let it through. Another spelling of a path is sent to the canonical
// one (GET and HEAD: 301), where such a rule sees it; other methods get the
// gateway's 404, as for a path nothing serves.
import type { onRequestAsyncHookHandler } from 'fastify';
import type { Config } from '../config/schema.js';
import { normalizePath } from '../gateway/request-url.js';
import { refuseRequest } from '../gateway/respond.js';

export function answerAtCanonicalPath(config: Config): onRequestAsyncHookHandler {
  return async (request, reply) => {
    const url = request.raw.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const canonical = normalizePath(path);
    if (canonical === path) return;
    const query = queryAt < 0 ? '' : url.slice(queryAt);
    if (canonical !== null && (request.method === 'GET' || request.method === 'HEAD')) return reply.code(301).header('location', `${canonical}${query}`).send();
    refuseRequest(config, request, reply, 'NOT_FOUND', { path: canonical ?? '/', query: query.slice(1) });
  };
}
