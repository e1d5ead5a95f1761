// Answers that show what only an admin may see (users' emails and IPs, the
// logs, tokens) are never kept by a browser or a proxy: after signing out,
// Back must not bring them up again from the cache.
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Adds `Cache-Control: no-store` to the scope's answers for which `isPrivate` holds, unless a route set its own. */
export function keepOutOfCaches(app: FastifyInstance, isPrivate: (request: FastifyRequest) => boolean): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (isPrivate(request) && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}
