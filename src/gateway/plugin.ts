// The data plane: every request that is not for the gateway's own endpoints.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

export function gatewayPlugin(_context: AppContext) {
  return async (app: FastifyInstance): Promise<void> => {
    // Bodies are streamed to the upstream untouched, never parsed.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null));
    app.all('/*', async (_request, reply) => {
      return reply.code(404).type('application/json').send({ error: { code: 'NOT_FOUND', message: 'The requested URL was not found on this server.' } });
    });
  };
}
