// The page at "/" when no backend claims it and no richer homepage was given.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/schema.js';
import { escapeMarkup } from './errors.js';

export function builtInHomepage(config: Config) {
  const siteName = escapeMarkup(config.site_name);
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${siteName}</title></head>
<body><h1>${siteName}</h1><p>This is an API gateway. <a href="/signup/">Sign up for an API key</a> to call its APIs.</p></body></html>
`;
  return (_request: FastifyRequest, reply: FastifyReply) => reply.type('text/html; charset=utf-8').send(page);
}
