// Resources of the admin API that admins holding admin_manage manage within
// their scopes, and superusers everywhere (API scopes, admin groups: who may
// do what), each with API Umbrella's five routes and answers. Admins holding
// admin_view (or admin_manage) read them within their scopes too: the list
// holds what the admin reads, so any other admin finds it empty (200, as API
// Umbrella answers), and reading one out of reach answers 403 FORBIDDEN, as
// does every route to an admin holding neither. Changes stay with
// admin_manage.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { isRefusal, type Judged, type ManagePolicy } from '../admin-groups/manage-policy.js';
import { ADMIN_READERS } from '../admin-groups/admin-visibility.js';
import { guard, managePolicyOf, requirePermission, sendForbiddenBecause } from '../admin-groups/request-access.js';
import type { AppContext } from '../context.js';
import { notFound, overExisting, stripJson, unwrap, updateRoute, withJsonSuffix } from './routes.js';
import { sendDataTablesPage, type DataTablesList } from './data-tables.js';

export interface JsonResource<T> {
  /** Where it is served, e.g. "/api_scopes". */
  readonly path: string;
  /** The key answers wrap a record in (and bodies may), e.g. "api_scope". */
  readonly key: string;
  get(id: string): T | null;
  /** Whether the admin may change it. */
  manages(policy: ManagePolicy, record: T): boolean;
  /** Whether the admin may read it (all they manage, and more with admin_view). */
  reads(policy: ManagePolicy, record: T): boolean;
  /** Creates without `id`; null when there is nothing with that id. */
  save(policy: ManagePolicy, raw: unknown, id?: string): Judged<T> | null;
  /** value: whether there was such a record; errors when it may not go. */
  delete(policy: ManagePolicy, id: string): Judged<boolean>;
  /** Everything, for the list (which shows what the admin reads). */
  list(): readonly T[];
  /** How the list searches and orders (API Umbrella's search_fields and order_fields). */
  readonly listed: DataTablesList<T>;
  /** Records as answers hold them, given a page (or one) at a time; without it, as they are. */
  present?(records: T[]): object[];
}

type IdParams = { Params: { id: string } };

export function managedResourceRoutes<T extends object>(app: FastifyInstance, context: AppContext, resource: JsonResource<T>): void {
  const { path, key } = resource;
  const present = (records: T[]): object[] => resource.present?.(records) ?? records;

  withJsonSuffix(app, 'GET', path, async (request, reply) => {
    const policy = managePolicyOf(context, request);
    return sendDataTablesPage(reply, request.query, resource.listed, () => resource.list().filter((record) => resource.reads(policy, record)), present);
  });

  app.register(async (readers) => {
    guard(readers, requirePermission(context, ...ADMIN_READERS));

    readers.get<IdParams>(`${path}/:id`, async (request, reply) => {
      const policy = managePolicyOf(context, request);
      const found = resource.get(stripJson(request.params.id));
      if (found === null) return notFound(reply);
      return resource.reads(policy, found) ? { [key]: present([found])[0] } : failed(reply, policy.readRefusal());
    });
  });

  app.register(async (managers) => {
    // Before the body is read (a refused admin gets the same answer whatever they send), and again after.
    guard(managers, requirePermission(context, 'admin_manage'));

    withJsonSuffix(managers, 'POST', path, async (request, reply) => {
      const saved = resource.save(managePolicyOf(context, request), unwrap(request.body, key))!;
      if (!saved.ok) return failed(reply, saved);
      return reply.code(201).send({ [key]: present([saved.value])[0] });
    });

    updateRoute<IdParams>(managers, `${path}/:id`, async (request, reply) => {
      const policy = managePolicyOf(context, request);
      const id = stripJson(request.params.id);
      const existing = resource.get(id);
      if (existing === null) return notFound(reply);
      const saved = resource.save(policy, overExisting(existing, unwrap(request.body, key)), id);
      if (saved === null) return notFound(reply);
      if (!saved.ok) return failed(reply, saved);
      return reply.code(204).send();
    });

    managers.delete<IdParams>(`${path}/:id`, async (request, reply) => {
      const deleted = resource.delete(managePolicyOf(context, request), stripJson(request.params.id));
      if (!deleted.ok) return failed(reply, deleted);
      return deleted.value ? reply.code(204).send() : notFound(reply);
    });
  });
}

/** 403 for a refusal, 422 with the field errors otherwise. */
function failed(reply: FastifyReply, result: Exclude<Judged<unknown>, { ok: true }>): FastifyReply {
  return isRefusal(result) ? sendForbiddenBecause(reply, result.refused) : reply.code(422).send({ errors: result.errors });
}
