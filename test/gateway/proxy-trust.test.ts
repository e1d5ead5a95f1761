import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ProxyTrust, type ClientAddress } from '../../src/gateway/proxy-trust.js';

const TRUSTED = ['127.0.0.1', '::1', '10.0.0.0/8', 'linklocal'];

interface Case {
  readonly remoteAddress: string;
  readonly headers: Record<string, string>;
}

const CASES: Case[] = [
  { remoteAddress: '203.0.113.5', headers: {} },
  { remoteAddress: '203.0.113.5', headers: { 'x-forwarded-for': '198.51.100.7', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' } },
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.7' } },
  { remoteAddress: '::ffff:127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.7' } },
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.7, 10.0.0.2' } },
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.7, 203.0.113.9, 10.0.0.2' } },
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '10.0.0.9, 10.0.0.2' } },
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': ' , 198.51.100.7 ,' } },
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': 'garbage, 169.254.1.1' } },
  { remoteAddress: '::1', headers: { 'x-forwarded-for': '2001:db8::1', 'x-forwarded-host': 'a.example, b.example:8443', 'x-forwarded-proto': 'http, https' } },
  { remoteAddress: '10.20.30.40', headers: { 'x-forwarded-proto': 'https' } },
];

describe('ProxyTrust', () => {
  it("answers ip, host and protocol exactly as Fastify's trustProxy does", async () => {
    const trust = ProxyTrust.compile(TRUSTED)!;
    const app = Fastify({ trustProxy: TRUSTED });
    const seen: { ours: ClientAddress; fastify: ClientAddress }[] = [];
    app.get('/', (request) => {
      seen.push({ ours: trust.clientOf(request.raw), fastify: { ip: request.ip, host: request.host, protocol: request.protocol } });
      return 'ok';
    });
    for (const { remoteAddress, headers } of CASES) {
      await app.inject({ url: '/', remoteAddress, headers: { host: 'gw.example', ...headers } });
    }
    await app.close();
    expect(seen).toHaveLength(CASES.length);
    for (const [index, { ours, fastify }] of seen.entries()) expect(ours, JSON.stringify(CASES[index])).toEqual(fastify);
    expect(seen.map(({ ours }) => ours.ip).slice(0, 6)).toEqual(['203.0.113.5', '203.0.113.5', '198.51.100.7', '198.51.100.7', '198.51.100.7', '203.0.113.9']);
    expect(seen[9]!.ours).toEqual({ ip: '2001:db8::1', host: 'b.example:8443', protocol: 'https' });
  });

  it('refuses entries it cannot evaluate', () => {
    expect(ProxyTrust.compile(['127.0.0.1', 'proxy.example.com'])).toBeNull();
    expect(ProxyTrust.compile(['10.0.0.0/33'])).toBeNull();
    expect(ProxyTrust.compile(['loopback', 'uniquelocal', 'fe80::/10'])).not.toBeNull();
  });
});
