// /api-umbrella/v1/apis: draft API backends, for admins with backend_manage,
// each within their reach (admin groups).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AdminAccess } from '../admin-groups/admin-access.js';
import { mayManage, type BackendRefusal } from '../admin-groups/backend-policy.js';
import { accessOf, guard, requirePermission, sendForbidden, sendForbiddenBecause } from '../admin-groups/request-access.js';
import { refusedRolesMessage } from '../admin-groups/role-policy.js';
import { backendMatches } from '../api-backends/backend-search.js';
import { asUpdateBase, type ApiBackend } from '../api-backends/model.js';
import { moveApiBackend, saveApiBackend } from '../api-backends/service.js';
import type { AppContext } from '../context.js';
import { isBlank } from '../lib/validation-errors.js';
import { apiBackendJson } from './api-backend-json.js';
import { backendChanges } from './settings-merge.js';
import { notFound, overExisting, stripJson, unwrap, updateRoute, withJsonSuffix } from './routes.js';
import { sendDataTablesPage, type DataTablesList } from './data-tables.js';

type IdParams = { Params: { id: string } };

/** The list: searched by backend-search.ts, ordered by API Umbrella's order_fields, else in the backends' own order (sort_order). */
const LISTED_APIS: DataTablesList<ApiBackend> = {
  matches: (api, search) => search.trim() === '' || backendMatches(api, search.trim()),
  orderable: {
    name: (api) => api.name,
    frontend_host: (api) => api.frontend_host,
    created_at: (api) => api.created_at,
    updated_at: (api) => api.updated_at,
  },
};

export function apiBackendRoutes(app: FastifyInstance, context: AppContext): void {
  const { backends } = context;

  // Only the backends within the admin's reach: the others are not theirs to see. An admin
  // without backend_manage has none, and finds the list empty (200), as in API Umbrella.
  withJsonSuffix(app, 'GET', '/apis', async (request, reply) => {
    const access = accessOf(context, request);
    return sendDataTablesPage(reply, request.query, LISTED_APIS, () => backends.list().filter((api) => mayManage(access, api)), (page) => page.map(apiBackendJson));
  });

  app.register(async (managers) => {
    guard(managers, requirePermission(context, 'backend_manage'));

    withJsonSuffix(managers, 'POST', '/apis', async (request, reply) => {
      const access = accessOf(context, request);
      const saved = saveApiBackend(backends, unwrap(request.body, 'api'), { by: request.admin!.email, access, live: context.publisher.current.apis, adminHosts: context.config.admin.hosts })!;
      if ('refused' in saved) return sendRefused(reply, access, saved.refused);
      if (!saved.ok) return reply.code(422).send({ errors: saved.errors });
      return reply.code(201).send({ api: apiBackendJson(saved.value) });
    });

    managers.get<IdParams>('/apis/:id', async (request, reply) => {
      const api = backends.get(stripJson(request.params.id));
      if (api === null) return notFound(reply);
      const access = accessOf(context, request);
      return mayManage(access, api) ? { api: apiBackendJson(api) } : sendForbidden(reply, access);
    });

    updateRoute<IdParams>(managers, '/apis/:id', async (request, reply) => {
      const existing = backends.get(stripJson(request.params.id));
      if (existing === null) return notFound(reply);
      const access = accessOf(context, request);
      // Refused before the body is judged: its 422s would say nothing of use about another team's backend.
      if (!mayManage(access, existing)) return sendForbidden(reply, access);
      const base = asUpdateBase(existing);
      const saved = saveApiBackend(backends, overExisting(base, backendChanges(base, unwrap(request.body, 'api'))), { id: existing.id, by: request.admin!.email, access, live: context.publisher.current.apis, adminHosts: context.config.admin.hosts });
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

    // API Umbrella's reordering: after the backend `move_after_id` names, or first when it is null or absent (204).
    withJsonSuffix<IdParams>(managers, 'PUT', '/apis/:id/move_after', async (request, reply) => {
      const access = accessOf(context, request);
      const afterId = moveAfterIdOf(request.body);
      // Read as absent, an object or a list sent by mistake would move the backend first. Judged before the backends: it tells nothing of them.
      if (afterId === undefined) return reply.code(422).send({ errors: { move_after_id: ['must be the id of an API backend, or null'] } });
      const moved = moveApiBackend(backends, request.params.id, afterId, { by: request.admin!.email, access });
      if (moved === 'not_found') return notFound(reply);
      if (moved === 'not_theirs') return sendForbidden(reply, access);
      if (moved === 'after_not_found') return reply.code(422).send({ errors: { move_after_id: ['does not name an API backend'] } });
      return reply.code(204).send();
    });
  });
}

/** `move_after_id` from JSON or form fields; null when absent or blank (API Umbrella then moves the backend first); undefined when it is no id (an object, a list, a boolean). */
function moveAfterIdOf(body: unknown): string | null | undefined {
  const raw = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).move_after_id : undefined;
  if (typeof raw === 'number') return String(raw);
  if (isBlank(raw)) return null;
  return typeof raw === 'string' ? raw.trim() : undefined;
}

/** A refused role is named, so the admin knows which to leave as it was. */
function sendRefused(reply: FastifyReply, access: AdminAccess, refused: BackendRefusal): FastifyReply {
  return refused.reason === 'roles' ? sendForbiddenBecause(reply, refusedRolesMessage(refused.roles)) : sendForbidden(reply, access);
}
