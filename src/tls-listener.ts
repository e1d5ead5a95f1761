// The HTTPS listener (listen.https_port): a second Node server beside
// Fastify's own. It terminates TLS and hands every request, upgrade and
// client error to the listeners of Fastify's server, so one app serves
// both: the gateway's direct path, Fastify's routes, WebSocket upgrades,
// 503 while closing. Requests on it see an encrypted socket, which is what
// makes request.protocol "https" for require_https, Secure cookies and
// X-Forwarded-Proto. The plain-HTTP listener is not touched. With several
// certificates, each connection gets the one for the host it names (SNI,
// tls-server-names.ts).
import { once } from 'node:events';
import type { Server as HttpServer } from 'node:http';
import { createServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SecureContext } from 'node:tls';
import type { TlsFiles } from './config/tls-files.js';
import { ServerNameChooser } from './tls-server-names.js';

/** Events a client's connection raises on an HTTP server that the app's listeners answer. */
const RELAYED_EVENTS = ['request', 'upgrade', 'clientError'] as const;

export interface TlsListener {
  readonly server: HttpsServer;
  /** e.g. https://127.0.0.1:8443 */
  readonly url: string;
  /** Connections from now on get this certificate in place of the index-th (0: tls.cert_file); open ones keep theirs. */
  useCertificate(index: number, files: TlsFiles): void;
  /** Stops accepting connections; resolves when every open one has ended. */
  close(): Promise<void>;
}

export interface TlsListenOptions {
  readonly host: string;
  readonly port: number;
  readonly maxHeaderSize: number;
}

/**
 * Listens on options.host:options.port with the app's server `main` behind it.
 * Call it once the app is ready: the gateway puts its request listener on
 * `main` while its plugin registers. `pairs[0]` is the certificate for every
 * host no other one names.
 */
export async function openTlsListener(main: HttpServer, pairs: readonly TlsFiles[], options: TlsListenOptions): Promise<TlsListener> {
  const chooser = pairs.length > 1 ? new ServerNameChooser(pairs) : null;
  const server = createServer({
    cert: pairs[0]!.cert,
    key: pairs[0]!.key,
    ...(chooser === null ? {} : { SNICallback: (name: string, answer: (error: Error | null, context: SecureContext) => void) => answer(null, chooser.contextFor(name)) }),
    // HTTP/1.1 only: the gateway, its upgrades and Fastify's routes are built on Node's HTTP/1 server.
    ALPNProtocols: ['http/1.1'],
    maxHeaderSize: options.maxHeaderSize,
    // As on the main server: the gateway answers a missing Host itself.
    requireHostHeader: false,
  });
  copyTimeouts(main, server);
  for (const event of RELAYED_EVENTS) server.on(event, (...args: unknown[]) => main.emit(event, ...args));
  server.listen({ host: options.host, port: options.port });
  await once(server, 'listening');
  return {
    server,
    url: urlOf(server),
    useCertificate: (index, files) => {
      chooser?.replace(index, files);
      // Also what a client that names no host gets.
      if (index === 0) server.setSecureContext({ cert: files.cert, key: files.key });
    },
    close: () => closeServer(server),
  };
}

/** Fastify sets its server's keep-alive, header and request timeouts from its options: the same hold here. */
function copyTimeouts(from: HttpServer, to: HttpsServer): void {
  to.keepAliveTimeout = from.keepAliveTimeout;
  to.headersTimeout = from.headersTimeout;
  to.requestTimeout = from.requestTimeout;
  to.timeout = from.timeout;
  to.maxRequestsPerSocket = from.maxRequestsPerSocket;
}

function urlOf(server: HttpsServer): string {
  const { address, family, port } = server.address() as AddressInfo;
  const host = address === '0.0.0.0' ? '127.0.0.1' : family === 'IPv6' ? `[${address}]` : address;
  return `https://${host}:${port}`;
}

function closeServer(server: HttpsServer): Promise<void> {
  return new Promise((resolve) => {
    // An error here only says the server was not listening any more: closed is closed.
    server.close(() => resolve());
  });
}
