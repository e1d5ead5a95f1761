// /api-umbrella/v1/apis: draft API backends.
import type { FastifyInstance } from 'fastify';
import { saveApiBackend } from '../api-backends/service.js';
import type { AppContext } from '../context.js';
import { drawOf, unwrap, withJsonSuffix } from './routes.js';

type IdParams = { Params: { id: string } };

export function apiBackendRoutes(app: FastifyInstance, context: AppContext): void {
  const { backends } = context;

  withJsonSuffix(app, 'GET', '/apis', async (request) => {
    const data = backends.list();
    return { draw: drawOf(request.query as Record<string, unknown>), recordsTotal: data.length, recordsFiltered: data.length, data };
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
    const saved = saveApiBackend(backends, unwrap(request.body, 'api'), { id: stripJson(request.params.id), by: request.admin!.email });
    if (saved === null) return notFound(reply);
    if (!saved.ok) return reply.code(422).send({ errors: saved.errors });
    return reply.code(204).send();
  });

  app.delete<IdParams>('/apis/:id', async (request, reply) => {
    return backends.delete(stripJson(request.params.id)) ? reply.code(204).send() : notFound(reply);
  });
}

export function stripJson(id: string): string {
  return id.endsWith('.json') ? id.slice(0, -5) : id;
}

export function notFound(reply: import('fastify').FastifyReply) {
  return reply.code(404).send({ error: 'Not Found' });
}
