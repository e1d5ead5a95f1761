// Host + longest-prefix matching over the published url_matches, compiled
// once per publish. A lookup costs a few map reads per distinct prefix
// length, whatever the number of backends.

/** What the table stores per url_match; the gateway's routes carry more. */
export interface Routable {
  readonly frontendPrefix: string;
  /** The backend's rank in the backends' order (compareBackendOrder): the lower one wins a tie. */
  readonly sortOrder: number;
}

export interface HostRoute<T extends Routable> {
  /** frontend_host: "api.example.com", "api.example.com:8080", "*", "*.example.com" or ".example.com". */
  readonly frontendHost: string;
  readonly route: T;
}

/** Routes of one host pattern, by prefix length then prefix. */
class PrefixIndex<T extends Routable> {
  private readonly byLength = new Map<number, Map<string, T>>();
  /** Distinct prefix lengths, longest first. */
  private lengths: number[] = [];

  add(route: T): void {
    const length = route.frontendPrefix.length;
    let prefixes = this.byLength.get(length);
    if (prefixes === undefined) {
      prefixes = new Map();
      this.byLength.set(length, prefixes);
      this.lengths = [...this.byLength.keys()].sort((a, b) => b - a);
    }
    const existing = prefixes.get(route.frontendPrefix);
    if (existing === undefined || route.sortOrder < existing.sortOrder) prefixes.set(route.frontendPrefix, route);
  }

  longest(path: string): T | undefined {
    const { lengths } = this;
    for (let index = 0; index < lengths.length; index++) {
      const length = lengths[index]!;
      if (length > path.length) continue;
      const route = this.byLength.get(length)!.get(length === path.length ? path : path.slice(0, length));
      if (route !== undefined) return route;
    }
    return undefined;
  }
}

/** Routes by host pattern; "" as port key means "any port". */
export class RoutingTable<T extends Routable> {
  private readonly exact = new Map<string, PrefixIndex<T>>();
  private readonly subdomains = new Map<string, PrefixIndex<T>>();
  private readonly anyHost = new Map<string, PrefixIndex<T>>();
  private hasPorts = false;

  /**
   * `defaultHost`: API Umbrella's default host (`hosts: [{hostname, default:
   * true}]`): a request that no route of its own host matches is matched as
   * if sent to it (API Umbrella appends the default host's backends to every
   * request's candidates, after the host's own).
   */
  private readonly defaultHost: string | null;

  /**
   * Host names (lowercase, without a port) on which no route answers, on any
   * port: the web admin's own hosts (admin.hosts), so that no proxied
   * response shares its origin. null: none.
   */
  private readonly closedHosts: ReadonlySet<string> | null;

  constructor(routes: Iterable<HostRoute<T>>, defaultHost: string | null = null, closedHosts: readonly string[] = []) {
    this.defaultHost = defaultHost?.toLowerCase() ?? null;
    this.closedHosts = closedHosts.length === 0 ? null : new Set(closedHosts.map((host) => host.toLowerCase()));
    for (const { frontendHost, route } of routes) this.add(frontendHost.toLowerCase(), route);
  }

  /**
   * The route whose prefix is the longest one `path` starts with, among the
   * routes of host patterns that cover `host` (a Host header value); none on
   * a closed host.
   */
  match(host: string, path: string): T | null {
    const colon = portSeparator(host);
    const hostname = (colon < 0 ? host : host.slice(0, colon)).toLowerCase();
    if (this.closedHosts !== null && this.closedHosts.has(hostname)) return null;
    const best = this.matchHost(host, colon, hostname, path);
    if (best !== undefined) return best;
    // Only on a miss, so the proxy's matches pay nothing for it.
    if (this.defaultHost === null) return null;
    return this.matchHost(this.defaultHost, -1, this.defaultHost, path) ?? null;
  }

  private matchHost(host: string, colon: number, hostname: string, path: string): T | undefined {
    const best = this.matchPort('', hostname, path, undefined);
    return colon >= 0 && this.hasPorts ? this.matchPort(host.slice(colon), hostname, path, best) : best;
  }

  private matchPort(port: string, hostname: string, path: string, best: T | undefined): T | undefined {
    best = better(best, this.exact.get(hostname + port)?.longest(path));
    if (this.subdomains.size > 0) {
      for (let dot = hostname.indexOf('.'); dot >= 0; dot = hostname.indexOf('.', dot + 1)) {
        best = better(best, this.subdomains.get(hostname.slice(dot) + port)?.longest(path));
      }
    }
    return better(best, this.anyHost.get(port)?.longest(path));
  }

  private add(pattern: string, route: T): void {
    const colon = portSeparator(pattern);
    const name = colon < 0 ? pattern : pattern.slice(0, colon);
    const port = colon < 0 ? '' : pattern.slice(colon);
    if (port !== '') this.hasPorts = true;
    if (name === '*') indexFor(this.anyHost, port).add(route);
    else if (name.startsWith('*.')) indexFor(this.subdomains, name.slice(1) + port).add(route);
    else if (name.startsWith('.')) {
      // ".example.com": the apex and every subdomain.
      indexFor(this.exact, name.slice(1) + port).add(route);
      indexFor(this.subdomains, name + port).add(route);
    } else indexFor(this.exact, name + port).add(route);
  }
}

/** Index of the ":" before a port, or -1; IPv6 literals are bracketed. */
function portSeparator(host: string): number {
  const colon = host.lastIndexOf(':');
  return colon < 0 || host.indexOf(']', colon) >= 0 ? -1 : colon;
}

function indexFor<T extends Routable>(indexes: Map<string, PrefixIndex<T>>, key: string): PrefixIndex<T> {
  let index = indexes.get(key);
  if (index === undefined) {
    index = new PrefixIndex();
    indexes.set(key, index);
  }
  return index;
}

function better<T extends Routable>(current: T | undefined, candidate: T | undefined): T | undefined {
  if (candidate === undefined) return current;
  if (current === undefined) return candidate;
  const difference = candidate.frontendPrefix.length - current.frontendPrefix.length;
  return difference > 0 || (difference === 0 && candidate.sortOrder < current.sortOrder) ? candidate : current;
}
