// API Umbrella's addresses for the pages before sign-in (its Devise routes
// under /admins/), sent to Parasol's: an operator's bookmark or runbook, or a
// link in a mail sent before the move, reaches the page it meant rather than
// the gateway's JSON 404. (A reset or invite link's token is API Umbrella's
// and works no more: the page says the link cannot be used and how to get a
// new one.)
import type { FastifyInstance } from 'fastify';

const PAGES: ReadonlyMap<string, string> = new Map([
  ['/admins/signup', '/admin/setup'],
  ['/admins/password/new', '/admin/password/new'],
  ['/admins/password/edit', '/admin/password/edit'],
]);

export function umbrellaPagePaths(app: FastifyInstance): void {
  for (const [from, to] of PAGES) {
    app.get(from, async (request, reply) => {
      const queryAt = request.url.indexOf('?');
      // Moved for good; the query (an invite's, a reset's) goes along.
      return reply.redirect(queryAt < 0 ? to : `${to}${request.url.slice(queryAt)}`, 301);
    });
  }
}
