// The admin REST API of an injected app (test/helpers/app.ts), called as the
// admin whose token is given: JSON in, parsed JSON out.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../src/context.js';

export interface AdminApiAnswer {
  readonly status: number;
  readonly body: any;
}

export async function callAdminApi(app: FastifyInstance, token: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<AdminApiAnswer> {
  const response = await app.inject({
    method,
    url: `/api-umbrella/v1${path}`,
    headers: { 'x-admin-auth-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.statusCode, body: response.body === '' ? null : JSON.parse(response.body) };
}

/** Form fields as API Umbrella's Rails admin takes them ("api_scope[name]=…"). */
export async function postAdminApiForm(app: FastifyInstance, token: string, path: string, fields: Record<string, string | string[]>): Promise<AdminApiAnswer> {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const item of [value].flat()) form.append(name, item);
  const response = await app.inject({
    method: 'POST',
    url: `/api-umbrella/v1${path}`,
    headers: { 'x-admin-auth-token': token, 'content-type': 'application/x-www-form-urlencoded' },
    payload: form.toString(),
  });
  return { status: response.statusCode, body: JSON.parse(response.body) };
}

/** A list as API Umbrella answers it to an admin whose groups do not let them read what it lists: 200, no rows. */
export const EMPTY_LIST = { draw: 0, recordsTotal: 0, recordsFiltered: 0, data: [] };

/** A new superuser's admin API token, for tests that call the API as one. */
export async function superuserToken(context: Pick<AppContext, 'admins'>, email = 'root@example.com'): Promise<string> {
  return (await context.admins.create({ email, password: 'correct horse battery staple', superuser: true }))!.authToken;
}
