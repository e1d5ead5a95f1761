// /api-umbrella/v1/apis: draft API backends, for admins with backend_manage,
// each within their reach (admin groups).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AdminAccess } from '../admin-groups/admin-access.js';
import { mayManage, type BackendRefusal } from '../admin-groups/backend-policy.js';
import { accessOf, guard, requirePermission, sendForbidden, sendForbiddenBecause } from '../admin-groups/request-access.js';
import { refusedRolesMessage } from '../admin-groups/role-policy.js';
import { backendMatches } from '../api-backends/backend-search.js';
import { saveApiBackend } from '../api-backends/service.js';
import type { AppContext } from '../context.js';
import { dataTablesPage, notFound, overExisting, searchText, stripJson, unwrap, withJsonSuffix } from './routes.js';

type IdParams = { Params: { id: string } };

export function apiBackendRoutes(app: FastifyInstance, context: AppContext): void {
  const { backends } = context;

  app.register(async (managers) => {
    guard(managers, requirePermission(context, 'backend_manage'));

    // Only the backends within the admin's reach: the others are not theirs to see.
    withJsonSuffix(managers, 'GET', '/apis', async (request) => {
      const query = request.query as Record<string, unknown>;
      const search = searchText(query)?.trim() ?? '';
      const access = accessOf(context, request);
      const theirs = backends.list().filter((api) => mayManage(access, api));
      return dataTablesPage(query, search === '' ? theirs : theirs.filter((api) => backendMatches(api, search)));
    });

    withJsonSuffix(managers, 'POST', '/apis', async (request, reply) => {
      const access = accessOf(context, request);
      const saved = saveApiBackend(backends, unwrap(request.body, 'api'), { by: request.admin!.email, access, live: context.publisher.current.apis })!;
      if ('refused' in saved) return sendRefused(reply, access, saved.refused);
      if (!saved.ok) return reply.code(422).send({ errors: saved.errors });
      return reply.code(201).send({ api: saved.value });
    });

    managers.get<IdParams>('/apis/:id', async (request, reply) => {
      const api = backends.get(stripJson(request.params.id));
      if (api === null) return notFound(reply);
      const access = accessOf(context, request);
      return mayManage(access, api) ? { api } : sendForbidden(reply, access);
    });

    managers.put<IdParams>('/apis/:id', async (request, reply) => {
      const existing = backends.get(stripJson(request.params.id));
      if (existing === null) return notFound(reply);
      const access = accessOf(context, request);
      // Refused before the body is judged: its 422s would say nothing of use about another team's backend.
      if (!mayManage(access, existing)) return sendForbidden(reply, access);
      const saved = saveApiBackend(backends, overExisting(existing, unwrap(request.body, 'api')), { id: existing.id, by: request.admin!.email, access, live: context.publisher.current.apis });
      if (saved === null) return notFound(reply);
      if ('refused' in saved) return sendRefused(reply, access, saved.refused);
      if (!saved.ok) return reply.code(422).send({ errors: saved.errors });
      return reply.code(204).send();
    });

    managers.delete<IdParams>('/apis/:id', async (request, reply) => {
      const api = backends.get(stripJson(request.params.id));
      if (api === null) return notFound(reply);
      const access = accessOf(context, request);
      if (!mayManage(access, api)) return sendForbidden(reply, access);
      return backends.delete(api.id) ? reply.code(204).send() : notFound(reply);
    });
  });
}

/** A refused role is named, so the admin knows which to leave as it was. */
function sendRefused(reply: FastifyReply, access: AdminAccess, refused: BackendRefusal): FastifyReply {
  return refused.reason === 'roles' ? sendForbiddenBecause(reply, refusedRolesMessage(refused.roles)) : sendForbidden(reply, access);
}
