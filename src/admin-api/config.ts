// /api-umbrella/v1/config: pending changes, publish, versions and rollback.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { isPlainObject, toInteger } from '../lib/validation-errors.js';
import { withJsonSuffix } from './routes.js';

export function configRoutes(app: FastifyInstance, context: AppContext): void {
  const { publisher } = context;

  withJsonSuffix(app, 'GET', '/config/pending_changes', async () => ({ config: { apis: publisher.pendingChanges() } }));

  withJsonSuffix(app, 'POST', '/config/publish', async (request, reply) => {
    const version = publisher.publish(selectedApiIds(request.body), request.admin!.email);
    return reply.code(201).send({ config_version: version });
  });

  withJsonSuffix(app, 'GET', '/config/versions', async () => ({ versions: publisher.versions() }));

  withJsonSuffix(app, 'POST', '/config/rollback', async (request, reply) => {
    const versionId = isPlainObject(request.body) ? toInteger(request.body.version_id) : undefined;
    if (versionId === undefined) return reply.code(422).send({ errors: { version_id: ["can't be blank"] } });
    const version = publisher.rollback(versionId, request.admin!.email);
    if (version === 'not_found') return reply.code(404).send({ error: 'Not Found' });
    return reply.code(201).send({ config_version: version });
  });
}

/** {"config":{"apis":{"<id>":{"publish":"1"}}}} → the ids whose publish flag is set. */
export function selectedApiIds(body: unknown): string[] {
  const config = isPlainObject(body) && isPlainObject(body.config) ? body.config : {};
  const apis = isPlainObject(config.apis) ? config.apis : {};
  return Object.entries(apis)
    .filter(([, choice]) => isPlainObject(choice) && [1, '1', true, 'true'].includes(choice.publish as string))
    .map(([id]) => id);
}
