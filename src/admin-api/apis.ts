// /api-umbrella/v1/apis: draft API backends.
import type { FastifyInstance } from 'fastify';
import type { ApiBackend } from '../api-backends/model.js';
import { saveApiBackend } from '../api-backends/service.js';
import type { AppContext } from '../context.js';
import { isPlainObject } from '../lib/validation-errors.js';
import { drawOf, paging, searchText, unwrap, withJsonSuffix } from './routes.js';

type IdParams = { Params: { id: string } };

export function apiBackendRoutes(app: FastifyInstance, context: AppContext): void {
  const { backends } = context;

  withJsonSuffix(app, 'GET', '/apis', async (request) => {
    const query = request.query as Record<string, unknown>;
    const search = searchText(query)?.trim().toLowerCase() ?? '';
    const found = backends.list().filter((api) => search === '' || searchedTexts(api).some((text) => text.toLowerCase().includes(search)));
    const { offset, limit } = paging(query, { defaultLength: Infinity, maxLength: Infinity });
    return { draw: drawOf(query), recordsTotal: found.length, recordsFiltered: found.length, data: found.slice(offset, offset + limit) };
  });

  withJsonSuffix(app, 'POST', '/apis', async (request, reply) => {
    const saved = saveApiBackend(backends, unwrap(request.body, 'api'), { by: request.admin!.email })!;
    if (!saved.ok) return reply.code(422).send({ errors: saved.errors });
    return reply.code(201).send({ api: saved.value });
  });

  app.get<IdParams>('/apis/:id', async (request, reply) => {
    const api = backends.get(stripJson(request.params.id));
    return api === null ? notFound(reply) : { api };
  });

  app.put<IdParams>('/apis/:id', async (request, reply) => {
    const existing = backends.get(stripJson(request.params.id));
    if (existing === null) return notFound(reply);
    const saved = saveApiBackend(backends, overExisting(existing, unwrap(request.body, 'api')), { id: existing.id, by: request.admin!.email });
    if (saved === null) return notFound(reply);
    if (!saved.ok) return reply.code(422).send({ errors: saved.errors });
    return reply.code(204).send();
  });

  app.delete<IdParams>('/apis/:id', async (request, reply) => {
    return backends.delete(stripJson(request.params.id)) ? reply.code(204).send() : notFound(reply);
  });
}

/** As API Umbrella: a PUT changes the fields it names (each as a whole: settings, servers, …) and keeps the others. */
function overExisting(existing: ApiBackend, changes: unknown): unknown {
  return isPlainObject(changes) ? { ...existing, ...changes } : changes;
}

/** What a search looks in, as API Umbrella's list of API backends does: the id, name, hosts, servers and prefixes. */
function searchedTexts(api: ApiBackend): string[] {
  return [
    api.id,
    api.name,
    api.frontend_host,
    api.backend_host,
    ...api.servers.map((server) => server.host),
    ...api.url_matches.flatMap((match) => [match.frontend_prefix, match.backend_prefix]),
  ];
}

export function stripJson(id: string): string {
  return id.endsWith('.json') ? id.slice(0, -5) : id;
}

export function notFound(reply: import('fastify').FastifyReply) {
  return reply.code(404).send({ error: 'Not Found' });
}
