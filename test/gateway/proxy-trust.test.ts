import type { IncomingMessage } from 'node:http';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ProxyTrust, type ClientAddress } from '../../src/gateway/proxy-trust.js';

const TRUSTED = ['10.0.0.0/8', '169.254.0.0/16', '2001:db8:ffff::/48'];

interface Case {
  readonly remoteAddress: string;
  readonly headers: Record<string, string>;
  /** The client IP, as nginx's realip module (real_ip_recursive on) reads it. */
  readonly ip: string;
}

const CASES: Case[] = [
  { remoteAddress: '203.0.113.5', headers: {}, ip: '203.0.113.5' },
  // A dual-stack listener's name for an IPv4 client.
  { remoteAddress: '::ffff:203.0.113.5', headers: {}, ip: '203.0.113.5' },
  { remoteAddress: '::ffff:10.0.0.3', headers: { 'x-forwarded-for': '198.51.100.7' }, ip: '198.51.100.7' },
  { remoteAddress: '203.0.113.5', headers: { 'x-forwarded-for': '198.51.100.7', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' }, ip: '203.0.113.5' },
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.7' }, ip: '198.51.100.7' },
  { remoteAddress: '::ffff:127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.7' }, ip: '198.51.100.7' },
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.7, 10.0.0.2' }, ip: '198.51.100.7' },
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.7, 203.0.113.9, 10.0.0.2' }, ip: '203.0.113.9' },
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '10.0.0.9, 10.0.0.2' }, ip: '10.0.0.9' },
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': ' , 198.51.100.7 ,,' }, ip: '198.51.100.7' },
  // A hop's port is not part of the address (Azure's gateways write them).
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.7:50312' }, ip: '198.51.100.7' },
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.7:443, 10.0.0.2:8080' }, ip: '198.51.100.7' },
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '[2001:db8::7]:50312, [2001:db8:ffff::1]' }, ip: '2001:db8::7' },
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '2001:db8::7' }, ip: '2001:db8::7' },
  // What is no address ends the walk at the last trusted hop.
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': 'garbage, 169.254.1.1' }, ip: '169.254.1.1' },
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.7, unknown' }, ip: '127.0.0.1' },
  { remoteAddress: '10.0.0.3', headers: { 'x-forwarded-for': '198.51.100.7:0, 10.0.0.2' }, ip: '10.0.0.2' },
  { remoteAddress: '10.0.0.3', headers: { 'x-forwarded-for': '198.51.100.7:65536' }, ip: '10.0.0.3' },
  { remoteAddress: '10.0.0.3', headers: { 'x-forwarded-for': '198.51.100.7:' }, ip: '10.0.0.3' },
  { remoteAddress: '10.0.0.3', headers: { 'x-forwarded-for': '[198.51.100.7]:80' }, ip: '10.0.0.3' },
  { remoteAddress: '10.0.0.3', headers: { 'x-forwarded-for': '2001:db8::7:80:90:100:1:2:3' }, ip: '10.0.0.3' },
  { remoteAddress: '::1', headers: { 'x-forwarded-for': '2001:db8::1', 'x-forwarded-host': 'a.example, b.example:8443', 'x-forwarded-proto': 'http, https' }, ip: '2001:db8::1' },
  { remoteAddress: '10.20.30.40', headers: { 'x-forwarded-proto': 'https' }, ip: '10.20.30.40' },
];

describe('ProxyTrust', () => {
  it('walks X-Forwarded-For as nginx realip does, and reads host and protocol as Fastify does with the same trust', async () => {
    const trust = ProxyTrust.of(TRUSTED);
    const app = Fastify({ trustProxy: (address: string) => trust.isTrusted(address) });
    const seen: { ours: ClientAddress; ip: string; fastify: Pick<ClientAddress, 'host' | 'protocol'> }[] = [];
    app.get('/', (request) => {
      seen.push({ ours: trust.clientOf(request.raw), ip: trust.ipOf(request.raw), fastify: { host: request.host, protocol: request.protocol as 'http' | 'https' } });
      return 'ok';
    });
    for (const { remoteAddress, headers } of CASES) {
      await app.inject({ url: '/', remoteAddress, headers: { host: 'gw.example', ...headers } });
    }
    await app.close();
    expect(seen).toHaveLength(CASES.length);
    for (const [index, { ours, ip, fastify }] of seen.entries()) {
      const { ip: expected, ...asked } = CASES[index]!;
      expect({ ip: ours.ip, host: ours.host, protocol: ours.protocol }, JSON.stringify(asked)).toEqual({ ip: expected, ...fastify });
      expect(ip).toBe(expected);
    }
    expect(seen.at(-2)!.ours).toEqual({ ip: '2001:db8::1', host: 'b.example:8443', protocol: 'https', forwardedPort: null });
  });

  it("reads a trusted proxy's X-Forwarded-Proto in any case, and believes no scheme but http and https", () => {
    const trust = ProxyTrust.of(TRUSTED);
    const protocolOf = (proto: string) =>
      trust.clientOf({ headers: { host: 'gw.example', 'x-forwarded-proto': proto }, socket: { remoteAddress: '10.0.0.2' } } as unknown as IncomingMessage).protocol;
    expect(['HTTPS', 'Https', 'http, HTTPS', 'gopher', 'x'.repeat(5000), 'HTTP'].map(protocolOf)).toEqual(['https', 'https', 'https', 'http', 'http', 'http']);
  });

  it("reads a trusted proxy's last X-Forwarded-Port, when it is a port number, and no one else's", async () => {
    const trust = ProxyTrust.of(TRUSTED);
    const app = Fastify();
    app.get('/', (request) => ({ port: trust.clientOf(request.raw).forwardedPort }));
    const portFrom = async (remoteAddress: string, value: string) =>
      (await app.inject({ url: '/', remoteAddress, headers: { host: 'gw.example', 'x-forwarded-port': value } })).json<{ port: string | null }>().port;
    expect(await portFrom('10.0.0.2', '8443')).toBe('8443');
    expect(await portFrom('10.0.0.2', '80, 443')).toBe('443');
    expect(await portFrom('10.0.0.2', 'https')).toBeNull();
    expect(await portFrom('10.0.0.2', '123456')).toBeNull();
    expect(await portFrom('192.0.2.1', '8443')).toBeNull();
    await app.close();
  });

  it('reads real_ip_header instead of X-Forwarded-For, from trusted peers only, as nginx realip with real_ip_header does', async () => {
    const trust = ProxyTrust.of(TRUSTED, 'True-Client-IP');
    const app = Fastify();
    app.get('/', (request) => ({ ip: trust.clientOf(request.raw).ip, alone: trust.ipOf(request.raw) }));
    const ipFrom = async (remoteAddress: string, headers: Record<string, string>) => {
      const seen = (await app.inject({ url: '/', remoteAddress, headers: { host: 'gw.example', ...headers } })).json<{ ip: string; alone: string }>();
      expect(seen.alone).toBe(seen.ip);
      return seen.ip;
    };
    expect(await ipFrom('10.0.0.2', { 'true-client-ip': '52.52.118.192', 'x-forwarded-for': '8.8.8.8' })).toBe('52.52.118.192');
    expect(await ipFrom('10.0.0.2', { 'true-client-ip': ' 2001:db8::7 ' })).toBe('2001:db8::7');
    // A list is read from the right while its hops are trusted proxies, as X-Forwarded-For is.
    expect(await ipFrom('10.0.0.2', { 'true-client-ip': '52.52.118.192, 10.0.0.9' })).toBe('52.52.118.192');
    // Without the header, or with no address in it, the client is the peer: X-Forwarded-For is not read.
    expect(await ipFrom('10.0.0.2', { 'x-forwarded-for': '8.8.8.8' })).toBe('10.0.0.2');
    expect(await ipFrom('10.0.0.2', { 'true-client-ip': 'unknown' })).toBe('10.0.0.2');
    // An untrusted peer names nobody.
    expect(await ipFrom('203.0.113.5', { 'true-client-ip': '52.52.118.192' })).toBe('203.0.113.5');
    await app.close();
  });

  it('always trusts loopback', () => {
    const trust = ProxyTrust.of([]);
    expect(trust.isTrusted('127.0.0.1')).toBe(true);
    expect(trust.isTrusted('::1')).toBe(true);
    expect(trust.isTrusted('10.0.0.1')).toBe(false);
  });

  it('refuses entries the config would refuse', () => {
    expect(() => ProxyTrust.of(['proxy.example.com'])).toThrow('trusted_proxies');
    expect(() => ProxyTrust.of(['10.0.0.0/33'])).toThrow('trusted_proxies');
  });
});
