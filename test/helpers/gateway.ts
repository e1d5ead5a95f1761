// Starts a real Parasol on a loopback port with a fresh data dir, and gives
// tests an admin token and small helpers for the admin API.
import type { Config } from '../../src/config/schema.js';
import { startServer, type RunningServer } from '../../src/serve.js';
import type { ContextOptions } from '../../src/context.js';
import { testConfig } from './config.js';
import { apiUserInput } from './users.js';
import type { ApiUserInput } from '../../src/api-users/model.js';

export interface AdminApiReply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: any;
}

export interface TestGateway extends RunningServer {
  readonly adminToken: string;
  /** Calls the admin REST API with the (superuser) admin token. */
  adminApi(method: string, path: string, body?: unknown): Promise<AdminApiReply>;
  /** The same as the admin holding `token`; a string body is sent as it is (malformed JSON, form fields). */
  adminApiAs(token: string, method: string, path: string, body?: unknown, contentType?: string): Promise<AdminApiReply>;
  /** Creates a backend and publishes it; returns its id. */
  publishBackend(api: Record<string, unknown>): Promise<string>;
  /** Creates an API user; returns its id and clear key. */
  createUser(user?: Record<string, unknown>): Promise<{ id: string; apiKey: string }>;
}

export async function startTestGateway(overrides: Record<string, unknown> = {}, options: ContextOptions = {}): Promise<TestGateway> {
  return startWithConfig(testConfig(overrides), options);
}

export async function startWithConfig(config: Config, options: ContextOptions = {}): Promise<TestGateway> {
  const server = await startServer(config, options);
  const created = await server.context.admins.create({ email: `admin-${Date.now()}@example.com`, password: 'correct horse battery staple', superuser: true });
  const adminToken = created!.authToken;

  const adminApiAs = async (token: string, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<AdminApiReply> => {
    const response = await fetch(`${server.url}/api-umbrella/v1${path}`, {
      method,
      headers: { 'X-Admin-Auth-Token': token, ...(body === undefined ? {} : { 'Content-Type': contentType }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: Object.fromEntries(response.headers), body: text === '' ? null : JSON.parse(text) };
  };
  const adminApi = (method: string, path: string, body?: unknown) => adminApiAs(adminToken, method, path, body);

  const helpers: Omit<TestGateway, keyof RunningServer> = {
    adminToken,
    adminApi,
    adminApiAs,
    async publishBackend(api) {
      const created = await adminApi('POST', '/apis', { api });
      if (created.status !== 201) throw new Error(`backend not created: ${JSON.stringify(created.body)}`);
      const id = created.body.api.id as string;
      const published = await adminApi('POST', '/config/publish', { config: { apis: { [id]: { publish: '1' } } } });
      if (published.status !== 201) throw new Error(`not published: ${JSON.stringify(published.body)}`);
      return id;
    },
    async createUser(user = {}) {
      const { user: created, apiKey } = server.context.users.create(apiUserInput(user as Partial<ApiUserInput>), 'test');
      return { id: created.id, apiKey };
    },
  };
  // Onto the server itself: its app and context are getters that follow a reload.
  return Object.assign(server, helpers);
}
