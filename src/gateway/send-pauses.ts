// A client that stops reading its response would hold its connection, and
// the upstream connection feeding it (paused by backpressure), for as long as
// it liked. API Umbrella's nginx closes a client's connection when it has
// taken nothing of a response for 60 s while there was something to send
// (send_timeout); so does Parasol after proxy.client_send_timeout_ms, which
// also ends the upstream request.
//
// One sweep timer watches the responses whose writes have had to wait for
// their client, rather than a timer per response: a response is noted the
// first time a write to it would block, and the sweep runs only while any
// are noted. Time counts only while the connection has bytes waiting to go:
// a response waiting for its upstream is not the client's pause.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { SweepTimer } from '../lib/sweep-timer.js';

interface Watched {
  /** The response's connection, kept here: Node lets go of it once the response is over. */
  readonly socket: Socket;
  /** Bytes the connection had taken off the gateway's hands when last seen moving. */
  sent: number;
  /** performance.now() since when nothing of it has moved while bytes waited. */
  idleSince: number;
}

export class SendPauseWatch {
  private readonly watched = new Map<ServerResponse, Watched>();
  private readonly sweeper: SweepTimer;
  /** One 'close' listener for every response (the response is `this`): it is let go when over, not at the next sweep. */
  private readonly onClose: (this: ServerResponse) => void;

  constructor(private readonly timeoutMs: number) {
    this.sweeper = new SweepTimer(timeoutMs, () => this.sweep());
    const { watched } = this;
    this.onClose = function (this: ServerResponse) {
      watched.delete(this);
    };
  }

  /** Call when a write to `response` had to wait for its client; once is enough, more are harmless. */
  watch(response: ServerResponse, socket: Socket): void {
    if (this.watched.has(response) || response.destroyed) return;
    this.watched.set(response, { socket, sent: sentBy(socket), idleSince: performance.now() });
    response.on('close', this.onClose);
    this.sweeper.start();
  }

  stop(): void {
    this.sweeper.stop();
    for (const response of this.watched.keys()) response.off('close', this.onClose);
    this.watched.clear();
  }

  private sweep(): void {
    const now = performance.now();
    for (const [response, entry] of this.watched) {
      const { socket } = entry;
      if (socket.destroyed) {
        this.forget(response);
        continue;
      }
      const sent = sentBy(socket);
      // Nothing waiting to go (the response waits for its upstream, or the client keeps up), or the client took some: not a pause.
      if (socket.writableLength === 0 || sent !== entry.sent) {
        entry.sent = sent;
        entry.idleSince = now;
      } else if (now - entry.idleSince >= this.timeoutMs) {
        this.forget(response);
        // Its response closes with it, which ends the upstream request (exchange.ts).
        socket.destroy();
      }
    }
    if (this.watched.size === 0) this.stop();
  }

  private forget(response: ServerResponse): void {
    this.watched.delete(response);
    response.off('close', this.onClose);
  }
}

/** Bytes written out of the socket's buffers: those it was given, less those still waiting to be written. */
function sentBy(socket: Socket): number {
  return socket.bytesWritten - socket.writableLength;
}
