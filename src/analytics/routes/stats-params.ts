// The parameters of an /admin/stats request. A GET carries them in its URL;
// a POST (API Umbrella's logs table posts DataTables' parameters, as its
// URLs get too long) in its body, as form fields or a JSON object, over any
// in its URL.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isPlainObject } from '../../lib/validation-errors.js';

export function statsParams(request: FastifyRequest): Record<string, unknown> {
  const params = request.query as Record<string, unknown>;
  if (!isPlainObject(request.body)) return params;
  const posted = Object.entries(request.body).map(([name, value]) => [name, asUrlValue(name, value)]);
  return { ...params, ...Object.fromEntries(posted) };
}

/** preHandler: a body that is no fields (a JSON array or string) is a 400, not a request for the defaults. */
export async function refuseBodyThatIsNoFields(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.body !== undefined && !isPlainObject(request.body)) {
    await reply.code(400).send({ error: 'The request body must be form fields or a JSON object.' });
  }
}

/**
 * A JSON value as the URL would carry it: a number or true/false as its text,
 * a `query` given as rules rather than as their JSON text as that text. The
 * parsers refuse anything else where they read it.
 */
function asUrlValue(name: string, value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (name === 'query' && typeof value === 'object' && value !== null) return JSON.stringify(value);
  return value;
}
