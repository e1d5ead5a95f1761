// Resources of the admin API that only superusers manage (API scopes, admin
// groups: who may do what), each with API Umbrella's five routes and answers.
// Any other admin gets 403 FORBIDDEN on all of them, reading included: the
// groups tell who holds which keys to which APIs.
import type { FastifyInstance } from 'fastify';
import { requireSuperuser } from '../admin-groups/request-access.js';
import type { AppContext } from '../context.js';
import type { Parsed } from '../lib/validation-errors.js';
import { dataTablesPage, notFound, overExisting, stripJson, unwrap, withJsonSuffix } from './routes.js';

export interface JsonResource<T> {
  /** Where it is served, e.g. "/api_scopes". */
  readonly path: string;
  /** The key answers wrap a record in (and bodies may), e.g. "api_scope". */
  readonly key: string;
  list(): readonly T[];
  get(id: string): T | null;
  /** Creates without `id`; null when there is nothing with that id. */
  save(raw: unknown, id?: string): Parsed<T> | null;
  /** value: whether there was such a record; errors when it may not go. */
  delete(id: string): Parsed<boolean>;
}

type IdParams = { Params: { id: string } };

export function superuserResourceRoutes<T extends object>(app: FastifyInstance, context: AppContext, resource: JsonResource<T>): void {
  const { path, key } = resource;
  app.register(async (superusers) => {
    // Before the body is read: a refused admin gets the same answer whatever they send.
    superusers.addHook('onRequest', requireSuperuser(context));

    withJsonSuffix(superusers, 'GET', path, async (request) => dataTablesPage(request.query as Record<string, unknown>, resource.list()));

    withJsonSuffix(superusers, 'POST', path, async (request, reply) => {
      const saved = resource.save(unwrap(request.body, key))!;
      if (!saved.ok) return reply.code(422).send({ errors: saved.errors });
      return reply.code(201).send({ [key]: saved.value });
    });

    superusers.get<IdParams>(`${path}/:id`, async (request, reply) => {
      const found = resource.get(stripJson(request.params.id));
      return found === null ? notFound(reply) : { [key]: found };
    });

    superusers.put<IdParams>(`${path}/:id`, async (request, reply) => {
      const id = stripJson(request.params.id);
      const existing = resource.get(id);
      if (existing === null) return notFound(reply);
      const saved = resource.save(overExisting(existing, unwrap(request.body, key)), id);
      if (saved === null) return notFound(reply);
      if (!saved.ok) return reply.code(422).send({ errors: saved.errors });
      return reply.code(204).send();
    });

    superusers.delete<IdParams>(`${path}/:id`, async (request, reply) => {
      const deleted = resource.delete(stripJson(request.params.id));
      if (!deleted.ok) return reply.code(422).send({ errors: deleted.errors });
      return deleted.value ? reply.code(204).send() : notFound(reply);
    });
  });
}
