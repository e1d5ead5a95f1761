// Forms that sites embed (signup, contact) post from other origins: their
// APIs answer any origin, and a preflight OPTIONS with what they take.
import type { FastifyInstance } from 'fastify';

const CORS_PREFLIGHT = {
  'access-control-allow-headers': 'Content-Type, X-Api-Key',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-max-age': '600',
};

/** Every answer of `app` may be read by any origin; each of `urls` answers a preflight. */
export function openToAnyOrigin(app: FastifyInstance, urls: readonly string[]): void {
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('access-control-allow-origin', '*');
  });
  for (const url of urls) app.options(url, async (_request, reply) => reply.code(204).headers(CORS_PREFLIGHT).send());
}
