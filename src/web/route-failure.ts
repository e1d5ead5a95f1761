import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { STORE_RETRY_AFTER_S, storeFailure } from '../store/db.js';

/**
 * What an error thrown by a route is to its client, the same for the admin
 * API, the admin pages and the signup page, each answering in its own form:
 * the store's (503 with Retry-After: the client can try again), the client's
 * own (its 4xx, with Fastify's message), or ours (500, never a stack).
 */
export type RouteFailure =
  | { readonly kind: 'store'; readonly status: 503; readonly message: string }
  | { readonly kind: 'client'; readonly status: number; readonly message: string }
  | { readonly kind: 'ours'; readonly status: 500 };

/** Sorts `error` out, logging the store's and ours as "`what` failed" and setting Retry-After for the store's. */
export function routeFailure(error: FastifyError, request: FastifyRequest, reply: FastifyReply, what: string): RouteFailure {
  const store = storeFailure(error);
  if (store !== null) {
    request.log.error({ err: error, route: request.routeOptions.url }, `${what} failed: the store could not be written`);
    reply.header('retry-after', STORE_RETRY_AFTER_S);
    return { kind: 'store', ...store };
  }
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500) return { kind: 'client', status, message: error.message };
  request.log.error({ err: error, route: request.routeOptions.url }, `${what} failed`);
  return { kind: 'ours', status: 500 };
}
