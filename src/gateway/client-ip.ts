// request.clientIp: the client's IP as the gateway reads it, for the admin,
// signup and their throttles. Fastify's own request.ip keeps a forwarded
// hop's port and takes a hop that is no address at all (proxy-addr's rules),
// so it is not used.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ProxyTrust } from './proxy-trust.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Through trusted_proxies, as nginx's realip module reads X-Forwarded-For. */
    readonly clientIp: string;
  }
}

export function decorateClientIp(app: FastifyInstance, trust: ProxyTrust): void {
  app.decorateRequest('clientIp', {
    getter(this: FastifyRequest) {
      return trust.ipOf(this.raw);
    },
  });
}
