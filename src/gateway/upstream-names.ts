// Upstream host names, looked up as API Umbrella's resolver treats them. Each
// new connection to a name starts at the next of its addresses, so a name
// with several (a cloud load balancer, a headless Kubernetes service) spreads
// its connections over all of them instead of the first. And the addresses a
// name's connections were made to are remembered, so that UpstreamPools can
// ask, every proxy.upstream_dns_refresh_ms, which names moved: kept-alive
// connections that never sit idle would otherwise stay on an old address for
// as long as it answers. Lookups happen per connection, never per request.
import { lookup as systemLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';

/** dns.lookup asked for every address (the system's resolver: /etc/hosts, then DNS). */
export type LookupAll = (hostname: string, options: LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

type ConnectLookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

const lookupAll: LookupAll = (hostname, options, callback) => systemLookup(hostname, options, callback);

interface KnownName {
  /**
   * Its addresses when its first connection, or the last look for moved
   * names, found them; sorted: a resolver that rotates their order has not
   * moved the name. Not updated by later connections: one made after a move
   * must not hide the move from the connections made before it.
   */
  addresses: string;
  /** Whose turn it is to be tried first. */
  next: number;
}

export class UpstreamNames {
  private readonly names = new Map<string, KnownName>();
  /** A look under way: a resolver slower than the refresh must not have lookups pile up. */
  private looking = false;

  constructor(private readonly resolve: LookupAll = lookupAll) {}

  /** For net.connect and tls.connect (undici passes it on): every address, starting at the name's next one. */
  readonly lookup = (hostname: string, options: LookupOptions, callback: ConnectLookupCallback): void => {
    this.resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null || addresses.length === 0) return callback(error ?? notFound(hostname), []);
      const turn = this.remember(hostname, addresses).next++ % addresses.length;
      const ordered = [...addresses.slice(turn), ...addresses.slice(0, turn)];
      if (options.all === true) callback(null, ordered);
      else callback(null, ordered[0]!.address, ordered[0]!.family);
    });
  };

  /**
   * Looks each name up again; resolves with those whose addresses changed
   * since their connections were made. A name that does not resolve now
   * keeps its connections: a resolver that fails for a moment must not take
   * a backend down (API Umbrella's resolver serves stale answers too).
   */
  async moved(): Promise<string[]> {
    if (this.looking) return [];
    this.looking = true;
    try {
      const looked = await Promise.all([...this.names.keys()].map(async (hostname) => ({ hostname, addresses: await this.addressesOf(hostname) })));
      return looked.filter(({ hostname, addresses }) => addresses !== null && this.names.has(hostname) && this.changed(hostname, addresses)).map(({ hostname }) => hostname);
    } finally {
      this.looking = false;
    }
  }

  /** No server is named by it any more: it is not looked up again. */
  forget(hostname: string): void {
    this.names.delete(hostname);
  }

  private addressesOf(hostname: string): Promise<LookupAddress[] | null> {
    return new Promise((settle) => this.resolve(hostname, { all: true }, (error, addresses) => settle(error === null && addresses.length > 0 ? addresses : null)));
  }

  private changed(hostname: string, addresses: LookupAddress[]): boolean {
    const known = this.names.get(hostname)!;
    const now = sortedOf(addresses);
    if (known.addresses === now) return false;
    known.addresses = now;
    return true;
  }

  private remember(hostname: string, addresses: LookupAddress[]): KnownName {
    let known = this.names.get(hostname);
    if (known === undefined) this.names.set(hostname, (known = { addresses: sortedOf(addresses), next: 0 }));
    return known;
  }
}

/** As getaddrinfo fails for a name without addresses. */
function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
}

function sortedOf(addresses: readonly LookupAddress[]): string {
  return addresses
    .map((address) => address.address)
    .sort()
    .join(' ');
}
