import type { FastifyInstance, FastifyReply, HTTPMethods, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault, RouteGenericInterface, RouteHandlerMethod } from 'fastify';
import { isPlainObject } from '../lib/validation-errors.js';

/** Registers a route at its path and at path + ".json", as API Umbrella accepts both. */
export function withJsonSuffix<Route extends RouteGenericInterface = RouteGenericInterface>(
  app: FastifyInstance,
  method: HTTPMethods,
  path: string,
  handler: RouteHandlerMethod<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, Route>,
): void {
  app.route<Route>({ method, url: path, handler });
  app.route<Route>({ method, url: `${path}.json`, handler });
}

/** A record's update: at PUT, and at POST to the same path, as API Umbrella routes both to its update. */
export function updateRoute<Route extends RouteGenericInterface = RouteGenericInterface>(
  app: FastifyInstance,
  path: string,
  handler: RouteHandlerMethod<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, Route>,
): void {
  app.route<Route>({ method: ['PUT', 'POST'], url: path, handler });
}

/** API Umbrella accepts both {"api": {...}} and the bare object. */
export function unwrap(body: unknown, key: string): unknown {
  if (typeof body === 'object' && body !== null && key in body) return (body as Record<string, unknown>)[key];
  return body;
}

/** As API Umbrella: a PUT changes the fields it names (each as a whole) and keeps the others. */
export function overExisting(existing: object, changes: unknown): unknown {
  return isPlainObject(changes) ? { ...existing, ...changes } : changes;
}

/** An id from a path that may end in ".json", as API Umbrella's routes accept. */
export function stripJson(id: string): string {
  return id.endsWith('.json') ? id.slice(0, -5) : id;
}

/** 404 in the admin API's shape. */
export function notFound(reply: FastifyReply) {
  return reply.code(404).send({ error: 'Not Found' });
}
