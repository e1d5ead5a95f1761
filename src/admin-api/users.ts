// /api-umbrella/v1/users: API users and their keys. Reading them takes the
// user_view or user_manage permission (an admin without finds the list
// empty, as in API Umbrella), changing them user_manage (superusers hold both).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Permission } from '../admin-groups/model.js';
import { accessOf, guard, requirePermission, sendForbiddenBecause, userRefusal } from '../admin-groups/request-access.js';
import type { ApiUser, RegistrationDetails } from '../api-users/model.js';
import { KEY_STATUSES, USER_ORDER_COLUMNS } from '../api-users/repository.js';
import { parseApiUser, parsePreviousKeyEnd } from '../api-users/validate.js';
import type { AppContext } from '../context.js';
import type { FieldErrors } from '../lib/validation-errors.js';
import { notFound, stripJson, unwrap, updateRoute, withJsonSuffix } from './routes.js';
import { parseDataTablesQuery, sendDataTablesErrors } from './data-tables.js';
import { apiUserJson } from './api-user-json.js';
import { userChanges } from './settings-merge.js';

type IdParams = { Params: { id: string } };

/** The permissions that read API users. */
const USER_READERS: readonly Permission[] = ['user_view', 'user_manage'];

export function apiUserRoutes(app: FastifyInstance, context: AppContext): void {
  const { users } = context;

  withJsonSuffix(app, 'GET', '/users', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    // Anything but one known word (a repeated parameter arrives as a list) is refused, not read as "every user".
    const asked = query.status ?? '';
    const status = KEY_STATUSES.find((known) => known === asked);
    if (asked !== '' && status === undefined) return reply.code(400).send({ error: `status must be one of ${KEY_STATUSES.join(', ')}` });
    const parsed = parseDataTablesQuery(query, { orderable: USER_ORDER_COLUMNS, defaultLength: 100, maxLength: 1000 });
    if (!parsed.ok) return sendDataTablesErrors(reply, parsed.errors);
    const { draw, offset, limit, search, order } = parsed.value;
    // As API Umbrella: an admin who may not read users finds none (200), rather than a 403.
    if (!accessOf(context, request).has(...USER_READERS)) return { draw, recordsTotal: 0, recordsFiltered: 0, data: [] };
    const { users: data, total } = users.list({ offset, limit, search, status, order, now: context.clock.now() });
    return { draw, recordsTotal: total, recordsFiltered: total, data: data.map(apiUserJson) };
  });

  app.register(async (viewers) => {
    guard(viewers, requirePermission(context, ...USER_READERS));

    viewers.get<IdParams>('/users/:id', async (request, reply) => {
      const user = users.get(stripJson(request.params.id));
      return user === null ? notFound(reply) : { user: apiUserJson(user) };
    });
  });

  app.register(async (managers) => {
    guard(managers, requirePermission(context, 'user_manage'));

    updateRoute<IdParams>(managers, '/users/:id', async (request, reply) => {
      const existing = users.get(stripJson(request.params.id));
      if (existing === null) return notFound(reply);
      // Another team's user is refused whatever the body says; then the roles the change gives or takes.
      const held = userRefusal(context, request, existing, null);
      if (held !== null) return sendForbiddenBecause(reply, held);
      const parsed = parseApiUser(userChanges(existing, unwrap(request.body, 'user')), existing);
      if (!parsed.ok) return reply.code(422).send(signupStyleErrors(parsed.errors));
      const refusal = userRefusal(context, request, existing, parsed.value.roles);
      if (refusal !== null) return sendForbiddenBecause(reply, refusal);
      const updated = users.update(existing.id, parsed.value, request.admin!.id);
      return updated === null ? notFound(reply) : { user: apiUserJson(updated) };
    });

    // Not in API Umbrella, whose users keep asking for it: the user, key and details go; past analytics stay.
    // It cannot be undone (disabling can): superusers only, as the web admin.
    managers.delete<IdParams>('/users/:id', async (request, reply) => {
      if (!request.admin!.superuser) return sendForbiddenBecause(reply, 'Only superusers can delete API users; disable one instead (enabled: false).');
      return users.delete(stripJson(request.params.id), request.admin!.email) ? reply.code(204).send() : notFound(reply);
    });

    withJsonSuffix<IdParams>(managers, 'DELETE', '/users/:id/previous_api_key', async (request, reply) => {
      const user = users.get(request.params.id);
      if (user === null) return notFound(reply);
      const refusal = userRefusal(context, request, user, null);
      if (refusal !== null) return sendForbiddenBecause(reply, refusal);
      return users.endPreviousKey(user.id, request.admin!.id) === null ? notFound(reply) : reply.code(204).send();
    });

    withJsonSuffix<IdParams>(managers, 'POST', '/users/:id/regenerate_key', async (request, reply) => {
      const user = users.get(request.params.id);
      if (user === null) return notFound(reply);
      // A new key goes to whoever asks: not for a user whose roles open another team's APIs.
      const refusal = userRefusal(context, request, user, null);
      if (refusal !== null) return sendForbiddenBecause(reply, refusal);
      const previousKeyEnd = parsePreviousKeyEnd(request.body, context.clock.now());
      if (!previousKeyEnd.ok) return reply.code(422).send(signupStyleErrors(previousKeyEnd.errors));
      const result = users.regenerateKey(user.id, previousKeyEnd.value, request.admin!.id);
      return result === null ? notFound(reply) : sendWithKey(reply, 200, result.user, result.apiKey);
    });
  });
}

/** `{"user":{…,"api_key":…}, …beside}`: an answer holding a clear key, which no cache may keep. */
export function sendWithKey(reply: FastifyReply, status: number, user: Omit<ApiUser, keyof RegistrationDetails>, apiKey: string, beside: Record<string, unknown> = {}): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').send({ user: { ...apiUserJson(user), api_key: apiKey }, ...beside });
}

/** The users endpoints answer 422 in API Umbrella's signup shape: a list of {code, field, message, full_message}. */
export function signupStyleErrors(errors: FieldErrors): { errors: { code: string; field: string; message: string; full_message: string }[] } {
  return {
    errors: Object.entries(errors).flatMap(([field, messages]) =>
      messages.map((message) => ({ code: 'INVALID_INPUT', field, message, full_message: fullMessage(field, message) })),
    ),
  };
}

function fullMessage(field: string, message: string): string {
  // "Provide your email address." is already a sentence; "is too long" needs the field's name before it.
  if (/^[A-Z]/.test(message)) return message;
  const label = field.replace(/_/g, ' ');
  return `${label.charAt(0).toUpperCase()}${label.slice(1)}: ${message}`;
}
