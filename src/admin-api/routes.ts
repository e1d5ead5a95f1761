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

/** API Umbrella accepts both {"api": {...}} and the bare object. */
export function unwrap(body: unknown, key: string): unknown {
  if (typeof body === 'object' && body !== null && key in body) return (body as Record<string, unknown>)[key];
  return body;
}

/**
 * DataTables-style paging parameters (start, length) with sane bounds. A list
 * that is always small and in memory (API backends) passes Infinity for both:
 * without a length it answers every row, as API Umbrella does.
 */
export function paging(
  query: Record<string, unknown>,
  { defaultLength = 100, maxLength = 1000 }: { defaultLength?: number; maxLength?: number } = {},
): { offset: number; limit: number } {
  const start = Number(query.start ?? 0);
  const length = Number(query.length ?? defaultLength);
  return {
    offset: Number.isInteger(start) && start >= 0 ? start : 0,
    limit: Number.isInteger(length) && length > 0 ? Math.min(length, maxLength) : defaultLength,
  };
}

/** The search text: `search`, or `search[value]` as DataTables (and API Umbrella's admin) sends it. */
export function searchText(query: Record<string, unknown>): string | undefined {
  const value = query.search ?? query['search[value]'];
  return typeof value === 'string' ? value : undefined;
}

/** DataTables' request counter, answered back so a table can drop stale answers. */
export function drawOf(query: Record<string, unknown>): number {
  const draw = Number(query.draw ?? 0);
  return Number.isInteger(draw) && draw >= 0 ? draw : 0;
}

/** A list small enough to hold in memory, as a DataTables answer: every row unless `length` asks for fewer. */
export function dataTablesPage<T>(query: Record<string, unknown>, rows: readonly T[]): { draw: number; recordsTotal: number; recordsFiltered: number; data: T[] } {
  const { offset, limit } = paging(query, { defaultLength: Infinity, maxLength: Infinity });
  return { draw: drawOf(query), recordsTotal: rows.length, recordsFiltered: rows.length, data: rows.slice(offset, offset + limit) };
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
