// The plain-HTTP listener (listen.port). It belongs to the process, not to
// an app: a reload gives it the next app's listeners (app-switch.ts), so its
// socket stays open and no connection is refused while the config changes.
import { once } from 'node:events';
import { createServer, type Server as HttpServer } from 'node:http';
import { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { MAX_REQUEST_HEADERS, refuseConnect } from './gateway/client-errors.js';

export type ListeningServer = HttpServer | HttpsServer;

export interface Listener<S extends ListeningServer> {
  readonly server: S;
  /** e.g. http://127.0.0.1:8080 */
  readonly url: string;
  /** Stops accepting connections; resolves when every open one has ended. */
  close(): Promise<void>;
}

export type HttpListener = Listener<HttpServer>;

export interface ListenOptions<S extends ListeningServer> {
  /** null: every interface, as Node listens without a host (IPv6 and IPv4, or IPv4 where the machine has no IPv6). */
  readonly host: string | null;
  readonly port: number;
  readonly maxHeaderSize: number;
  /** Puts the app's listeners on the server before it listens, so that no early request goes unanswered. */
  readonly serve: (server: S) => void;
}

export function openHttpListener(options: ListenOptions<HttpServer>): Promise<HttpListener> {
  // The gateway answers a request without Host itself, in the client's format (request-url.ts), not Node's empty 400.
  return listen(createServer({ maxHeaderSize: options.maxHeaderSize, requireHostHeader: false }), options);
}

/** Serves and listens on a server made for `options` (its maxHeaderSize among them). */
export async function listen<S extends ListeningServer>(server: S, options: ListenOptions<S>): Promise<Listener<S>> {
  options.serve(server);
  // Node drops header lines past its count without a word (a Content-Length among them): one more is kept, to be refused (client-errors.ts).
  server.maxHeadersCount = MAX_REQUEST_HEADERS + 1;
  server.on('connect', refuseConnect);
  server.listen(options.host === null ? { port: options.port } : { host: options.host, port: options.port });
  await once(server, 'listening');
  return { server, url: urlOf(server), close: () => closeServer(server) };
}

/** Where a client on this machine reaches the server: a wildcard address is named by its loopback. */
function urlOf(server: ListeningServer): string {
  const { address, family, port } = server.address() as AddressInfo;
  const host = address === '0.0.0.0' ? '127.0.0.1' : address === '::' ? '[::1]' : family === 'IPv6' ? `[${address}]` : address;
  return `${server instanceof HttpsServer ? 'https' : 'http'}://${host}:${port}`;
}

function closeServer(server: ListeningServer): Promise<void> {
  return new Promise((resolve) => {
    // An error here only says the server was not listening any more: closed is closed.
    server.close(() => resolve());
  });
}
