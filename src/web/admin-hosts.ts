// admin.hosts: the web admin and the admin API on hosts of their own. A
// proxied response shares its origin with whatever else its host serves: on
// the admin's host, a backend's page (another team's, or one with an XSS)
// could read admin pages with a signed-in admin's session and act as them.
// With admin.hosts set, the admin answers only there, and the gateway serves
// no backend there (RoutingTable's closed hosts); elsewhere the admin's
// addresses answer as a path no backend claims. Health, state, signup,
// contact, the homepage and the assets stay on every host.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { hostnameOf, targetOrRoot } from '../gateway/request-url.js';
import { refuseRequest } from '../gateway/respond.js';

export class AdminHosts {
  private constructor(
    private readonly context: Pick<AppContext, 'config' | 'proxyTrust'>,
    /** Lowercase, without ports, as the config parsed them. */
    private readonly names: ReadonlySet<string>,
  ) {}

  /** null when admin.hosts is empty: the admin answers on every host. */
  static of(context: Pick<AppContext, 'config' | 'proxyTrust'>): AdminHosts | null {
    const { hosts } = context.config.admin;
    return hosts.length === 0 ? null : new AdminHosts(context, new Set(hosts));
  }

  /**
   * Whether the request came for an admin host, on any port: its Host, or a
   * trusted proxy's X-Forwarded-Host, read as the gateway reads it, so a host
   * is the admin's or the backends', never both.
   */
  has(request: FastifyRequest): boolean {
    return this.names.has(hostnameOf(this.context.proxyTrust.clientOf(request.raw).host).toLowerCase());
  }

  /**
   * Off an admin host, answers the gateway's 404 NOT_FOUND in the client's
   * format, as for a path no backend claims, and returns true; else false.
   */
  refuseOffHost(request: FastifyRequest, reply: FastifyReply): boolean {
    if (this.has(request)) return false;
    refuseRequest(this.context.config, request, reply, 'NOT_FOUND', targetOrRoot(request.raw.url ?? '/'));
    return true;
  }
}

/**
 * For the pages' scope: the web admin's addresses, by the route that took the
 * request (so however its path was spelled): /admin and under it
 * (/admin/stats/ too), API Umbrella's /admins/ ones, and what the pages serve
 * under /api-umbrella/v1/ (API Umbrella's analytics/drilldown, the admin's).
 */
export function isAdminRoute(request: FastifyRequest): boolean {
  const url = request.routeOptions.url;
  if (url === undefined) return false;
  return url === '/admin' || url.startsWith('/admin/') || url === '/admins' || url.startsWith('/admins/') || url.startsWith('/api-umbrella/v1/');
}
