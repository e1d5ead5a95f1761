// A client that stops sending a request body part-way would hold its
// connection, and for a proxied request an upstream connection too, for as
// long as it liked: Fastify turns Node's whole-request timeout off, and
// undici's timeouts start only once the body has gone out. API Umbrella's
// nginx answers 408 after 60 s without a byte of the body (client_body_timeout);
// so does Parasol after proxy.client_body_timeout_ms.
//
// One sweep timer watches every request whose body is still arriving, rather
// than a timer per request: a request only needs its socket's byte count
// noted. The sweep runs only while such requests are in flight.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { SweepTimer } from '../lib/sweep-timer.js';

interface Watched {
  readonly response: ServerResponse;
  /**
   * The request's connection, kept here: Node lets go of it once the response
   * is sent, while a request whose body was cut off (its upstream call gone)
   * goes on arriving on it.
   */
  readonly socket: Socket;
  /** The socket's bytesRead when last seen moving. */
  bytesRead: number;
  /** performance.now() when bytesRead last moved. */
  idleSince: number;
}

export type StalledBodyHandler = (request: IncomingMessage, response: ServerResponse, socket: Socket) => void;

export class BodyPauseWatch {
  private readonly watched = new Map<IncomingMessage, Watched>();
  private readonly sweeper: SweepTimer;
  /**
   * One 'close' listener for every request (the request is `this`): a request
   * is let go as soon as it is over rather than at the next sweep, which under
   * a steady stream of bodies would keep each alive into the old generation.
   */
  private readonly onClose: (this: IncomingMessage) => void;

  constructor(
    private readonly timeoutMs: number,
    private readonly onStall: StalledBodyHandler,
  ) {
    this.sweeper = new SweepTimer(timeoutMs, () => this.sweep());
    const { watched } = this;
    this.onClose = function (this: IncomingMessage) {
      // A request destroyed before its body was all in (its upstream call cut off) still holds its connection.
      if (this.complete || watched.get(this)?.socket.destroyed !== false) watched.delete(this);
    };
  }

  /** Call for a request that has a body, when its head has arrived. */
  watch(request: IncomingMessage, response: ServerResponse): void {
    if (request.complete) return;
    const { socket } = request;
    this.watched.set(request, { response, socket, bytesRead: socket.bytesRead, idleSince: performance.now() });
    request.on('close', this.onClose);
    this.sweeper.start();
  }

  /** Requests whose bodies are being watched now. */
  get watching(): number {
    return this.watched.size;
  }

  stop(): void {
    this.sweeper.stop();
    this.watched.clear();
  }

  private sweep(): void {
    const now = performance.now();
    for (const [request, entry] of this.watched) {
      // A request answered before its body was read still has the rest of its body read (and thrown away) before the connection takes another request.
      if (request.complete || entry.socket.destroyed) {
        this.watched.delete(request);
        continue;
      }
      const { bytesRead } = entry.socket;
      // Bytes the gateway has not yet read mean the reader is slow (an upstream taking the body slowly), not the client.
      if (bytesRead !== entry.bytesRead || request.readableLength > 0) {
        entry.bytesRead = bytesRead;
        entry.idleSince = now;
      } else if (now - entry.idleSince >= this.timeoutMs) {
        this.watched.delete(request);
        this.onStall(request, entry.response, entry.socket);
      }
    }
    if (this.watched.size === 0) this.stop();
  }
}
