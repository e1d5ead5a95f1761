// The listening servers (plain HTTP, and HTTPS when set) serve one app at a
// time. An app is built on a server of its own that never listens; the
// request, upgrade and client-error listeners it puts there are put on the
// listening servers instead, called directly, with nothing between. A
// reload puts the next app's listeners in their place in one step: requests
// parsed from then on, on new and open connections alike, reach the next
// app, and no connection is refused or closed for it.
import type { Server as HttpServer } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { ListeningServer } from './http-listener.js';

/** Events a client's connection raises on an HTTP server that the app's listeners answer (checkContinue and checkExpectation are requests with an Expect header). */
const SERVED_EVENTS = ['request', 'checkContinue', 'checkExpectation', 'upgrade', 'clientError'] as const;

type Listener = (...args: unknown[]) => void;
type Listeners = Record<(typeof SERVED_EVENTS)[number], Listener[]>;

export class AppSwitch {
  private readonly listening: ListeningServer[] = [];
  private listeners: Listeners;

  constructor(private app: FastifyInstance) {
    this.listeners = listenersOf(app);
  }

  /** Call once the app is ready: its plugins put their listeners on its server while they register. */
  serveOn(server: ListeningServer): void {
    this.listening.push(server);
    copyTimeouts(this.app.server, server);
    attach(server, this.listeners);
  }

  /** From now on `next` answers every request; returns the app it replaced, which finishes what it was serving. */
  switchTo(next: FastifyInstance): FastifyInstance {
    const previous = this.app;
    const listeners = listenersOf(next);
    for (const server of this.listening) {
      detach(server, this.listeners);
      copyTimeouts(next.server, server);
      attach(server, listeners);
    }
    this.app = next;
    this.listeners = listeners;
    return previous;
  }
}

function listenersOf(app: FastifyInstance): Listeners {
  const of = (event: (typeof SERVED_EVENTS)[number]) => app.server.listeners(event) as Listener[];
  return Object.fromEntries(SERVED_EVENTS.map((event) => [event, of(event)])) as Listeners;
}

function attach(server: ListeningServer, listeners: Listeners): void {
  for (const event of SERVED_EVENTS) for (const listener of listeners[event]) server.on(event, listener);
}

function detach(server: ListeningServer, listeners: Listeners): void {
  for (const event of SERVED_EVENTS) for (const listener of listeners[event]) server.off(event, listener);
}

/** Fastify sets its server's keep-alive, header and request timeouts from its options (proxy.client_keep_alive_timeout_ms among them). */
function copyTimeouts(from: HttpServer, to: ListeningServer): void {
  to.keepAliveTimeout = from.keepAliveTimeout;
  to.headersTimeout = from.headersTimeout;
  to.requestTimeout = from.requestTimeout;
  to.timeout = from.timeout;
  to.maxRequestsPerSocket = from.maxRequestsPerSocket;
}
