// When a response is over. Node never closes a response queued behind
// another on its connection (HTTP pipelining) when the connection goes
// first, so a count kept until 'close' would never come down for it.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Calls `done` once, when the response closes or, for one still queued on its connection, when the connection does. */
export function whenResponseEnds(response: ServerResponse, connection: Socket, done: () => void): void {
  if (response.socket !== null) {
    response.once('close', done);
    return;
  }
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    connection.off('close', end);
    done();
  };
  response.once('close', end);
  connection.once('close', end);
}
