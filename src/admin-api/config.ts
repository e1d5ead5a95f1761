// /api-umbrella/v1/config: pending changes and publishing (backend_publish,
// within the admin's reach), versions and rollback (superusers).
import type { FastifyInstance } from 'fastify';
import type { AdminAccess } from '../admin-groups/admin-access.js';
import { accessOf, guard, requirePermission, requireSuperuser, sendForbidden } from '../admin-groups/request-access.js';
import type { AppContext } from '../context.js';
import { isPlainObject, toInteger } from '../lib/validation-errors.js';
import { mayPublishAll, pendingChangesFor } from '../publish/admin-changes.js';
import { configYaml } from '../publish/config-yaml.js';
import type { PendingChange, PendingChanges } from '../publish/pending-changes.js';
import type { Publisher } from '../publish/publisher.js';
import { apiBackendJson } from './api-backend-json.js';
import { notFound, withJsonSuffix } from './routes.js';

export function configRoutes(app: FastifyInstance, context: AppContext): void {
  const { publisher } = context;

  app.register(async (publishers) => {
    guard(publishers, requirePermission(context, 'backend_publish'));

    withJsonSuffix(publishers, 'GET', '/config/pending_changes', async (request) => ({ config: { apis: pendingChangesJson(pendingChangesFor(publisher, accessOf(context, request))) } }));

    // All or nothing: a selection naming a backend out of the admin's reach publishes none.
    withJsonSuffix(publishers, 'POST', '/config/publish', async (request, reply) => {
      const access = accessOf(context, request);
      const ids = selectedApiIds(request.body);
      // An admin of some scopes learns nothing of ids out of reach, whether or not they name a backend: 403 first.
      if (!mayPublishAll(publisher, access, ids)) return sendForbidden(reply, access);
      const problem = selectionProblem(request.body, ids, (id) => context.backends.get(id) !== null || publisher.current.apis.some((api) => api.id === id));
      if (problem !== null) return reply.code(422).send({ errors: { 'config.apis': [problem] } });
      const version = publisher.publish(ids, request.admin!.email);
      return reply.code(201).send({ config: liveConfigJson(publisher, access), config_version: version });
    });
  });

  // A version holds every backend, and rolling back replaces them all: superusers only.
  app.register(async (superusers) => {
    guard(superusers, requireSuperuser(context));

    withJsonSuffix(superusers, 'GET', '/config/versions', async () => ({ versions: publisher.versions() }));

    withJsonSuffix(superusers, 'POST', '/config/rollback', async (request, reply) => {
      const versionId = isPlainObject(request.body) ? toInteger(request.body.version_id) : undefined;
      if (versionId === undefined) return reply.code(422).send({ errors: { version_id: ["can't be blank"] } });
      const version = publisher.rollback(versionId, request.admin!.email);
      if (version === 'not_found') return notFound(reply);
      return reply.code(201).send({ config_version: version });
    });
  });
}

/**
 * API Umbrella answers a publish with the config live after it (the one already
 * live when nothing changed), so a deploy script can check its backend went live;
 * here only the backends the admin could publish, as pending changes lists them.
 */
function liveConfigJson(publisher: Publisher, access: AdminAccess) {
  return { apis: publisher.current.apis.filter((api) => access.allowsBackend(api, 'backend_publish')).map(apiBackendJson) };
}

/** Each change's backends as the admin API answers them, with their config as YAML beside them (pending_yaml, active_yaml), as in API Umbrella. */
function pendingChangesJson(changes: PendingChanges) {
  const changeJson = ({ active, pending, ...change }: PendingChange) => ({
    ...change,
    active: active === null ? null : apiBackendJson(active),
    pending: pending === null ? null : apiBackendJson(pending),
    ...(active === null ? {} : { active_yaml: configYaml(active) }),
    ...(pending === null ? {} : { pending_yaml: configYaml(pending) }),
  });
  return Object.fromEntries(Object.entries(changes).map(([mode, items]) => [mode, items.map(changeJson)]));
}

/**
 * What makes a publish's selection bad input rather than a choice: apis that
 * are no {id: choice} object, or an id naming no API backend, draft or live
 * (a script's typo answered 201 and left its change unpublished). No config
 * at all, or nothing checked, stays the no-op API Umbrella answers 201.
 */
function selectionProblem(body: unknown, ids: readonly string[], exists: (id: string) => boolean): string | null {
  const config = isPlainObject(body) ? body.config : undefined;
  const apis = isPlainObject(config) ? config.apis : undefined;
  if (apis === undefined || apis === null) return null;
  if (!isPlainObject(apis)) return 'must be an object of {"<id>":{"publish":"1"}}';
  const unknown = ids.filter((id) => !exists(id));
  return unknown.length === 0 ? null : `names no API backend: ${unknown.join(', ')}`;
}

/** {"config":{"apis":{"<id>":{"publish":"1"}}}} → the ids whose publish flag is set. */
export function selectedApiIds(body: unknown): string[] {
  const config = isPlainObject(body) && isPlainObject(body.config) ? body.config : {};
  const apis = isPlainObject(config.apis) ? config.apis : {};
  return Object.entries(apis)
    .filter(([, choice]) => isPlainObject(choice) && [1, '1', true, 'true'].includes(choice.publish as string))
    .map(([id]) => id);
}
