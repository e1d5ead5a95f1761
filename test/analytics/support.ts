// A real gateway with an echo backend and one API user, plus clients for the
// analytics endpoints (admin token) and pages (admin session cookie).
import { get } from 'node:http';
import { request } from 'undici';
import { expect, vi } from 'vitest';
import { sessionStore, SESSION_COOKIE } from '../../src/admin-ui/session-auth.js';
import { DEFAULT_RULES } from '../../src/analytics/query/filter-rules.js';
import type { ContextOptions } from '../../src/context.js';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

export interface AnalyticsFixture {
  readonly gw: TestGateway;
  readonly echo: EchoUpstream;
  readonly apiKey: string;
  readonly userId: string;
  readonly backendId: string;
  /** GET through the gateway, optionally from another loopback address. */
  call(path: string, headers?: Record<string, string>, fromAddress?: string): Promise<{ status: number; body: string }>;
  /** GET an /admin/stats endpoint with the admin token. */
  stats(path: string, params?: Record<string, string>): Promise<{ status: number; body: any; text: string; headers: Record<string, unknown> }>;
  /** GET an admin page with a signed-in session. */
  page(path: string): Promise<{ status: number; text: string; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function startAnalyticsFixture(config: Record<string, unknown> = {}, options: ContextOptions = {}): Promise<AnalyticsFixture> {
  const echo = await startEchoUpstream();
  const gw = await startTestGateway({ default_api_backend_settings: { rate_limits: [] }, ...config }, options);
  const { id: userId, apiKey } = await gw.createUser({ email: 'caller@example.com' });
  const backendId = await gw.publishBackend({
    name: 'Echo',
    frontend_host: '*',
    backend_host: 'backend.example',
    servers: [{ host: '127.0.0.1', port: echo.port }],
    url_matches: [{ frontend_prefix: '/echo/', backend_prefix: '/' }],
  });
  // The writer thread hands on whatever is buffered once it is up: tests that hold entries back (a long flush interval) must record them after that.
  if (gw.context.analytics.enabled) await vi.waitFor(() => expect(gw.context.analytics.writerReady).toBe(true), { timeout: 10_000, interval: 10 });
  const adminId = gw.context.admins.findByToken(gw.adminToken)!.id;
  const sessionCookie = `${SESSION_COOKIE}=${sessionStore(gw.context).create(adminId)}`;
  return {
    gw,
    echo,
    apiKey,
    userId,
    backendId,
    async call(path, headers = {}, fromAddress) {
      if (fromAddress !== undefined) return getFrom(fromAddress, `${gw.url}${path}`, headers);
      const response = await request(`${gw.url}${path}`, { headers });
      return { status: response.statusCode, body: await response.body.text() };
    },
    async stats(path, params = {}) {
      const response = await request(`${gw.url}${path}?${new URLSearchParams(params)}`, { headers: { 'X-Admin-Auth-Token': gw.adminToken } });
      const text = await response.body.text();
      const json = String(response.headers['content-type']).startsWith('application/json');
      return { status: response.statusCode, body: json ? JSON.parse(text) : null, text, headers: response.headers };
    },
    async page(path) {
      const response = await request(`${gw.url}${path}`, { headers: { cookie: sessionCookie } });
      return { status: response.statusCode, text: await response.body.text(), headers: response.headers };
    },
    async close() {
      await gw.stop();
      await echo.close();
    },
  };
}

/** node:http, because undici's client cannot choose the local address. */
function getFrom(localAddress: string, url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { localAddress, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    }).on('error', reject);
  });
}

/** All entries of the last 14 days, denied ones included, newest first. */
export const EVERYTHING = { query: '[]' };

/**
 * The dates of a preset of the last `days` days (UTC) as the pages' download
 * links spell them out, HTML-escaped: `range=custom&amp;start_at=…&amp;end_at=…`.
 */
export function shownDays(days: number, now = Date.now()): string {
  const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return `range=custom&amp;start_at=${date(now - (days - 1) * 86_400_000)}&amp;end_at=${date(now)}`;
}

/** The pages' default filter (denied requests hidden) as their links to the JSON and CSV endpoints spell it out: `query=…`. */
export const PAGE_DEFAULT_QUERY = new URLSearchParams({ query: JSON.stringify(DEFAULT_RULES) }).toString();
