// A redirect from the upstream that points at the backend itself is turned
// into the public URL the client used, so clients never learn the backend.
import type { GatewayRoute } from './routes.js';

const ABSOLUTE_URL = /^https?:\/\/([^/?#]*)(.*)$/i;

/**
 * "http://backend/api/x" (or "/api/x") under backend_prefix "/api/" becomes
 * "<public origin>/pub/x" (or "/pub/x") for frontend_prefix "/pub/". Other
 * locations pass unchanged.
 */
export function rewriteLocation(location: string, route: GatewayRoute, publicOrigin: string): string {
  const absolute = ABSOLUTE_URL.exec(location);
  let path: string;
  if (absolute !== null) {
    if (!route.backend.ownAuthorities.has(absolute[1]!.toLowerCase())) return location;
    path = absolute[2] === '' ? '/' : absolute[2]!;
  } else if (location.startsWith('/') && !location.startsWith('//')) {
    path = location;
  } else {
    return location;
  }
  if (!path.startsWith(route.backendPrefix)) return location;
  const publicPath = route.frontendPrefix + path.slice(route.backendPrefix.length);
  return absolute === null ? publicPath : publicOrigin + publicPath;
}
