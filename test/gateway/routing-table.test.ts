import { describe, expect, it } from 'vitest';
import { RoutingTable, type HostRoute, type Routable } from '../../src/gateway/routing-table.js';

interface Named extends Routable {
  readonly name: string;
}

let order = 0;
function route(frontendHost: string, frontendPrefix: string, name = `${frontendHost}${frontendPrefix}`): HostRoute<Named> {
  return { frontendHost, route: { name, frontendPrefix, sortOrder: order++ } };
}

function matchName(table: RoutingTable<Named>, host: string, path: string): string | null {
  return table.match(host, path)?.name ?? null;
}

describe('RoutingTable', () => {
  it('matches the host case-insensitively and ignores the request port when the pattern has none', () => {
    const table = new RoutingTable([route('API.example.com', '/')]);
    expect(matchName(table, 'api.EXAMPLE.com', '/x')).toBe('API.example.com/');
    expect(matchName(table, 'api.example.com:8443', '/x')).toBe('API.example.com/');
    expect(matchName(table, 'other.example.com', '/x')).toBeNull();
  });

  it("sends what its own host's backends do not match to the default host's backends, as API Umbrella's default host", () => {
    const routes = [route('default.example.com', '/', 'default'), route('other.example.com', '/', 'other'), route('*.team.example.com', '/', 'team'), route('*', '/open/', 'any')];
    const table = new RoutingTable(routes, 'Default.example.com');
    expect(matchName(table, 'unknown.example.com', '/info/')).toBe('default');
    expect(matchName(table, '10.0.0.5:8080', '/info/')).toBe('default');
    expect(matchName(table, 'other.example.com', '/info/')).toBe('other');
    // A named host's own match wins, even a shorter prefix; its misses go to the default host (API Umbrella's api_matcher).
    const partial = new RoutingTable(
      [route('default.example.com', '/', 'default'), route('default.example.com', '/long/', 'default long'), route('other.example.com:8080', '/v1/', 'other'), route('short.example.com', '/', 'short')],
      'default.example.com',
    );
    expect(matchName(partial, 'other.example.com:8080', '/v1/x')).toBe('other');
    expect(matchName(partial, 'other.example.com:8080', '/v2/')).toBe('default');
    expect(matchName(partial, 'other.example.com', '/v1/x')).toBe('default');
    expect(matchName(partial, 'short.example.com', '/long/x')).toBe('short');
    expect(matchName(table, 'a.team.example.com', '/info/')).toBe('team');
    // A backend on * names no host: its prefixes match everywhere, and the rest falls back.
    expect(matchName(table, 'unknown.example.com', '/open/x')).toBe('any');
    expect(matchName(new RoutingTable(routes), 'unknown.example.com', '/info/')).toBeNull();
  });

  it('matches nothing on a closed host (admin.hosts), on any port and in any case, whatever covers it, the default host too', () => {
    const routes = [route('*', '/', 'any'), route('admin.example.com', '/', 'named'), route('*.example.com', '/x', 'domain'), route('[::1]', '/', 'ipv6')];
    const table = new RoutingTable(routes, 'admin.example.com', ['admin.example.com', '[::1]']);
    for (const host of ['admin.example.com', 'ADMIN.example.com:8443', '[::1]', '[::1]:8080']) expect(matchName(table, host, '/x'), host).toBeNull();
    expect(matchName(table, 'api.example.com', '/x')).toBe('domain');
    expect(matchName(table, 'other.test', '/x')).toBe('any');
  });

  it('requires the port written in frontend_host', () => {
    const table = new RoutingTable([route('api.example.com:8080', '/', 'with-port')]);
    expect(matchName(table, 'api.example.com:8080', '/')).toBe('with-port');
    expect(matchName(table, 'api.example.com:9090', '/')).toBeNull();
    expect(matchName(table, 'api.example.com', '/')).toBeNull();
  });

  it('matches any host with "*", subdomains only with "*.x.com", apex and subdomains with ".x.com"', () => {
    const table = new RoutingTable([route('*', '/any/'), route('*.sub.com', '/sub/'), route('.dot.com', '/dot/')]);
    expect(matchName(table, 'whatever.org', '/any/1')).toBe('*/any/');
    expect(matchName(table, 'a.sub.com', '/sub/1')).toBe('*.sub.com/sub/');
    expect(matchName(table, 'a.b.sub.com', '/sub/1')).toBe('*.sub.com/sub/');
    expect(matchName(table, 'sub.com', '/sub/1')).toBeNull();
    expect(matchName(table, 'dot.com', '/dot/1')).toBe('.dot.com/dot/');
    expect(matchName(table, 'x.dot.com', '/dot/1')).toBe('.dot.com/dot/');
    expect(matchName(table, 'notdot.com', '/dot/1')).toBeNull();
  });

  it('picks the longest prefix, case-sensitively, with the trailing slash counting', () => {
    const table = new RoutingTable([route('h', '/x/'), route('h', '/x/specific/'), route('h', '/x/spec')]);
    expect(matchName(table, 'h', '/x/specific/a')).toBe('h/x/specific/');
    expect(matchName(table, 'h', '/x/specific')).toBe('h/x/spec');
    expect(matchName(table, 'h', '/x/other')).toBe('h/x/');
    expect(matchName(table, 'h', '/X/other')).toBeNull();
    expect(matchName(table, 'h', '/x')).toBeNull();
  });

  it('gives equal prefixes to the earlier-created backend, across host patterns too', () => {
    const wildcardFirst = new RoutingTable([route('*', '/same/', 'wildcard'), route('h', '/same/', 'specific')]);
    expect(matchName(wildcardFirst, 'h', '/same/x')).toBe('wildcard');
    const specificFirst = new RoutingTable([route('h', '/same/', 'specific'), route('*', '/same/', 'wildcard')]);
    expect(matchName(specificFirst, 'h', '/same/x')).toBe('specific');
    const sameHost = new RoutingTable([route('h', '/p/', 'first'), route('h', '/p/', 'second')]);
    expect(matchName(sameHost, 'h', '/p/')).toBe('first');
  });

  it('prefers a longer prefix on a wildcard host over a shorter one on the exact host', () => {
    const table = new RoutingTable([route('h', '/a/', 'exact'), route('*', '/a/b/', 'wild')]);
    expect(matchName(table, 'h', '/a/b/c')).toBe('wild');
    expect(matchName(table, 'h', '/a/c')).toBe('exact');
  });

  it('handles bracketed IPv6 hosts with and without ports', () => {
    const table = new RoutingTable([route('[::1]', '/v6/')]);
    expect(matchName(table, '[::1]:8080', '/v6/x')).toBe('[::1]/v6/');
    expect(matchName(table, '[::1]', '/v6/x')).toBe('[::1]/v6/');
  });

  it('finds the right route among 1,000 backends', () => {
    const routes = Array.from({ length: 1000 }, (_, index) => route(`host${index % 10}.example.com`, `/service${index}/v${index % 7}/`, `b${index}`));
    const table = new RoutingTable(routes);
    expect(matchName(table, 'host7.example.com', '/service997/v3/items?x')).toBe('b997');
    expect(matchName(table, 'host7.example.com', '/service998/v4/items')).toBeNull();
  });
});
