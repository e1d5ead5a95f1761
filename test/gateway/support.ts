// Shared by the gateway's integration tests: a real gateway and echo upstream
// on loopback, a backend builder, and clients for well-formed and raw requests.
import { connect, createServer as createNetServer, type AddressInfo } from 'node:net';
import { Pool, type Dispatcher } from 'undici';
import { startEchoUpstream, type CustomHandler, type EchoUpstream, type EchoedRequest } from '../helpers/echo-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { TEST_CA } from '../helpers/tls.js';
import type { ContextOptions } from '../../src/context.js';

export interface ProxyFixture {
  readonly gw: TestGateway;
  readonly echo: EchoUpstream;
  readonly apiKey: string;
  readonly userId: string;
  close(): Promise<void>;
}

/** A gateway without default rate limits (tests about limits set their own), an echo upstream and one user. */
export async function startProxyFixture(
  options: { config?: Record<string, unknown>; context?: ContextOptions; upstream?: CustomHandler } = {},
): Promise<ProxyFixture> {
  const echo = await startEchoUpstream(options.upstream);
  const gw = await startTestGateway({ default_api_backend_settings: { rate_limits: [] }, ...options.config }, options.context);
  const { id, apiKey } = await gw.createUser({ email: 'fixture@example.com' });
  return {
    gw,
    echo,
    apiKey,
    userId: id,
    async close() {
      // The test client's connections go first: an open one that never sent a request would hold the server's close.
      await closeClient(gw.url);
      if (gw.httpsUrl !== null) await closeClient(gw.httpsUrl);
      await gw.stop();
      await echo.close();
    },
  };
}

/** Admin API input for a backend served by the echo upstream. */
export function echoBackend(echo: EchoUpstream, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: `Echo ${Math.random().toString(36).slice(2)}`,
    frontend_host: '*',
    backend_host: 'backend.example',
    servers: [{ host: '127.0.0.1', port: echo.port }],
    url_matches: [{ frontend_prefix: '/echo/', backend_prefix: '/backend/' }],
    ...overrides,
  };
}

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The echo upstream's view of the request, when the reply came from it. */
  readonly echoed: EchoedRequest;
}

export interface SendOptions {
  readonly method?: string;
  readonly headers?: Record<string, string | string[]>;
  readonly body?: string | Buffer | AsyncIterable<Buffer>;
}

const clients = new Map<string, Pool>();

function clientFor(baseUrl: string): Pool {
  let client = clients.get(baseUrl);
  if (client === undefined) {
    // An HTTPS gateway in tests serves the committed self-signed certificate.
    client = new Pool(baseUrl, baseUrl.startsWith('https:') ? { connect: { ca: TEST_CA } } : {});
    clients.set(baseUrl, client);
  }
  return client;
}

async function closeClient(baseUrl: string): Promise<void> {
  await clients.get(baseUrl)?.destroy();
  clients.delete(baseUrl);
}

/** The raw undici response, for tests that read the body as a stream. */
export function open(baseUrl: string, path: string, options: { headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Dispatcher.ResponseData> {
  return clientFor(baseUrl).request({ path, method: 'GET', ...options });
}

/** A well-formed request through undici, which (unlike fetch) lets tests set Host and the like. */
export async function send(baseUrl: string, path: string, options: SendOptions = {}): Promise<Reply> {
  const response = await clientFor(baseUrl).request({
    path,
    method: (options.method ?? 'GET') as 'GET',
    headers: options.headers,
    body: options.body as string | undefined,
  });
  const text = await response.body.text();
  let echoed: EchoedRequest = undefined as never;
  if (String(response.headers['content-type']).startsWith('application/json') && text.includes('"rawHeaders"')) echoed = JSON.parse(text) as EchoedRequest;
  return { status: response.statusCode, headers: response.headers, text, echoed };
}

/**
 * Writes bytes as they are onto a fresh connection and returns everything the
 * gateway answers until it closes the connection (send "Connection: close").
 */
export function sendRaw(url: string, bytes: string | Buffer): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error(`no close after ${Buffer.concat(chunks).toString('latin1')}`)));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', (error) => (chunks.length > 0 ? undefined : reject(error)));
    socket.write(bytes);
  });
}

export function statusOf(rawResponse: string): number {
  return Number(/^HTTP\/1\.[01] (\d{3})/.exec(rawResponse)?.[1] ?? 0);
}

export function errorCode(reply: Reply): string {
  return (JSON.parse(reply.text) as { error: { code: string } }).error.code;
}

export function basicAuth(user: string, password = ''): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** A loopback port nothing listens on (it was free a moment ago). */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Rewrites a published backend's stored documents, its draft and the newest
 * published version, as an earlier Parasol would have written them; returns
 * the draft as it was.
 */
export function rewriteStoredDocuments(gw: TestGateway, id: string, edit: (document: string) => string): string {
  const { db } = gw.context;
  const draft = db.prepare('SELECT document FROM api_backends WHERE id = ?').pluck().get(id) as string;
  db.prepare('UPDATE api_backends SET document = ? WHERE id = ?').run(edit(draft), id);
  const published = db
    .prepare(
      `SELECT stored.id, stored.document FROM config_documents AS stored
       JOIN config_version_backends AS backend ON backend.document_id = stored.id
       WHERE backend.version_id = (SELECT max(id) FROM config_versions) AND stored.document ->> '$.id' = ?`,
    )
    .get(id) as { id: number; document: string };
  db.prepare('UPDATE config_documents SET document = ? WHERE id = ?').run(edit(published.document), published.id);
  return draft;
}
