// A redirect from the upstream that points at the backend itself is turned
// into the public URL the client used, so clients never learn the backend.
import { hostnameOf, httpsPortSuffix } from './request-url.js';
import type { GatewayRoute } from './routes.js';

/** Scheme (none: protocol-relative), authority, and the rest. */
const ABSOLUTE_URL = /^(?:(https?):)?\/\/([^/?#]*)(.*)$/i;

/**
 * As API Umbrella does: an absolute URL on the backend's host (backend_host,
 * a server's, or the public host the client used: a backend that trusts
 * X-Forwarded-Host builds its redirects on it with its own paths; host names
 * compared, any port) gets the public host whatever its path
 * ("http://backend/x" → "http://<public host>/x"),
 * keeping its scheme, so a backend's redirect to https stays one — on the
 * client's own port for the client's scheme, else on listen.https_port (the
 * default port for http, or without an HTTPS listener here); and a path under
 * backend_prefix, absolute or relative, gets frontend_prefix instead
 * ("/api/x" → "/pub/x"). Other locations pass unchanged.
 *
 * A location of the backend's (rewritten or already public) also gets the
 * client's `queryKey`, the api_key it sent in the query string, so that
 * following the redirect does not lose the key
 * (API Umbrella adds the key however it came; a key sent in a header or as
 * Basic auth is sent again by the client itself, and is kept out of URLs).
 */
export function rewriteLocation(location: string, route: GatewayRoute, protocol: string, host: string, httpsPort: number | null, queryKey: string | null): string {
  const rewritten = publicLocation(location, route, protocol, host, httpsPort);
  if (rewritten === null) return location;
  return queryKey === null ? rewritten : withApiKey(rewritten, queryKey);
}

/** The location as the client should see it; null when it is not the backend's (another host, a path outside backend_prefix). */
function publicLocation(location: string, route: GatewayRoute, protocol: string, host: string, httpsPort: number | null): string | null {
  const absolute = ABSOLUTE_URL.exec(location);
  if (absolute !== null) {
    const scheme = absolute[1]?.toLowerCase() ?? protocol;
    if (!namesBackend(hostnameOf(absolute[2]!).toLowerCase(), route, host)) return null;
    const port = scheme === 'https' ? httpsPortSuffix(httpsPort) : '';
    const publicHost = scheme === protocol ? host : hostnameOf(host) + port;
    const path = absolute[3] === '' ? '/' : absolute[3]!;
    return `${scheme}://${publicHost}${publicPath(path, route) ?? path}`;
  }
  return location.startsWith('/') ? publicPath(location, route) : null;
}

/** The location with api_key added to its query (before any fragment), unless it names one already. */
function withApiKey(location: string, apiKey: string): string {
  const hash = location.indexOf('#');
  const [url, fragment] = hash < 0 ? [location, ''] : [location.slice(0, hash), location.slice(hash)];
  const query = url.indexOf('?');
  if (query >= 0 && new URLSearchParams(url.slice(query + 1)).has('api_key')) return location;
  return `${url}${query < 0 ? '?' : url.endsWith('?') || url.endsWith('&') ? '' : '&'}api_key=${encodeURIComponent(apiKey)}${fragment}`;
}

/** Whether `hostname`, a Location's, is the backend's own or the client's `host`: a URL the backend means as one of its own. */
function namesBackend(hostname: string, route: GatewayRoute, host: string): boolean {
  const { backend } = route;
  if (backend.ownHostnames.has(hostname) || hostname === hostnameOf(host).toLowerCase()) return true;
  return backend.wildcardBackendHost && hostname === hostnameOf(backend.upstreamHost(host)).toLowerCase();
}

/** The path under frontend_prefix; null when it is not under backend_prefix. */
function publicPath(path: string, route: GatewayRoute): string | null {
  const { backendPrefix, frontendPrefix } = route;
  if (!path.startsWith(backendPrefix)) return null;
  // With frontend "/api/v1/" over backend "/api/", a backend that already answers with public paths keeps them.
  if (frontendPrefix.startsWith(backendPrefix) && path.startsWith(frontendPrefix)) return path;
  return frontendPrefix + path.slice(backendPrefix.length);
}
