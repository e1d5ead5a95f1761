// A redirect from the upstream that points at the backend itself is turned
// into the public URL the client used, so clients never learn the backend.
import type { GatewayRoute } from './routes.js';

const ABSOLUTE_URL = /^https?:\/\/([^/?#]*)(.*)$/i;

/**
 * As API Umbrella does: an absolute URL on the backend's host gets the public
 * origin whatever its path ("http://backend/x" → "<public origin>/x"), and a
 * path under backend_prefix, absolute or relative, gets frontend_prefix
 * instead ("/api/x" → "/pub/x"). Other locations pass unchanged.
 */
export function rewriteLocation(location: string, route: GatewayRoute, publicOrigin: string): string {
  const absolute = ABSOLUTE_URL.exec(location);
  if (absolute !== null) {
    if (!route.backend.ownAuthorities.has(absolute[1]!.toLowerCase())) return location;
    return publicOrigin + publicPath(absolute[2] === '' ? '/' : absolute[2]!, route);
  }
  if (location.startsWith('/') && !location.startsWith('//')) return publicPath(location, route);
  return location;
}

function publicPath(path: string, route: GatewayRoute): string {
  const { backendPrefix, frontendPrefix } = route;
  if (!path.startsWith(backendPrefix)) return path;
  // With frontend "/api/v1/" over backend "/api/", a backend that already answers with public paths keeps them.
  if (frontendPrefix.startsWith(backendPrefix) && path.startsWith(frontendPrefix)) return path;
  return frontendPrefix + path.slice(backendPrefix.length);
}
