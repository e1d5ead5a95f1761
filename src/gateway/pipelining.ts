// Requests pipelined on one connection: Node parses them and hands them over
// as they arrive, and the gateway would send them all upstream at once. RFC
// 9112 (section 9.3.2) lets a server work on pipelined requests in parallel
// only when all are safe, and nginx in front of API Umbrella takes one request
// of a connection at a time, so a PUT then a GET of the same resource never
// overtake each other. A request that is unsafe, or follows an unsafe one,
// waits for the answer going out before it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The answer still going out on the request's connection that the request must wait for, or null. */
export function answerToWaitFor(request: IncomingMessage, response: ServerResponse): ServerResponse | null {
  const current = answerGoingOut(request.socket);
  if (current === null || current === response || current.writableFinished) return null;
  return SAFE_METHODS.has(request.method!) && SAFE_METHODS.has(current.req.method!) ? null : current;
}

/** The response the connection is sending now (later ones queue until it has gone), from Node's own field; null for none. */
export function answerGoingOut(socket: Socket): ServerResponse | null {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? null;
}

/** Runs `then` once `answer` has gone out; not if it never does (the connection was lost: what waited behind it is dropped, never run). */
export function afterAnswer(answer: ServerResponse, then: () => void): void {
  answer.once('finish', then);
}
