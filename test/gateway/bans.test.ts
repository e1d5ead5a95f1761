// ban (API Umbrella's): clients refused by User-Agent or IP on every path the
// gateway serves, with API Umbrella's default answer or the configured one.
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoBackend, send, sendRaw, startProxyFixture, statusOf, type ProxyFixture } from './support.js';

let fx: ProxyFixture;
let custom: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture({ config: { ban: { user_agents: ['~*naughty', '~^Exact', 'BadBot/1.0'], ips: ['7.4.2.2', '8.7.1.0/24', '2001:db8:bad::/48'] } } });
  await fx.gw.publishBackend(echoBackend(fx.echo));
  custom = await startProxyFixture({ config: { ban: { user_agents: ['~*naughty'], response: { status_code: 418, delay: 1, message: "You've been banned!" } } } });
  await custom.gw.publishBackend(echoBackend(custom.echo));
});
afterAll(async () => {
  await fx.close();
  await custom.close();
});

function get(gateway: ProxyFixture, path: string, headers: Record<string, string> = {}) {
  return send(gateway.gw.url, path, { headers: { 'X-Api-Key': gateway.apiKey, ...headers } });
}

describe('banned User-Agents', () => {
  it('are refused with 403 and API Umbrella\'s message, on APIs, signup, admin and unknown paths alike', async () => {
    expect((await get(fx, '/echo/info')).status).toBe(200);
    for (const path of ['/echo/info', '/signup/', '/admin/login', '/nowhere']) {
      const reply = await get(fx, path, { 'User-Agent': 'some NaUghtY user_agent' });
      expect(reply.status, path).toBe(403);
      expect(reply.text).toBe('Please contact us for assistance.\n');
      expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
    }
  });

  it('match as nginx\'s map does: "~" case-sensitive, else the whole User-Agent in any case', async () => {
    expect((await get(fx, '/echo/info', { 'User-Agent': 'Exact client' })).status).toBe(403);
    expect((await get(fx, '/echo/info', { 'User-Agent': 'exact client' })).status).toBe(200);
    expect((await get(fx, '/echo/info', { 'User-Agent': 'BadBot/1.0' })).status).toBe(403);
    expect((await get(fx, '/echo/info', { 'User-Agent': 'BADBOT/1.0' })).status).toBe(403);
    expect((await get(fx, '/echo/info', { 'User-Agent': 'BadBot/1.0 (compatible)' })).status).toBe(200);
  });

  it('get the ban\'s answer whatever the request is like: a body that never comes, a coded body', async () => {
    for (const framing of ['Content-Length: 10\r\n\r\nabc', 'Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n']) {
      const answer = await sendRaw(fx.gw.url, `POST /echo/info HTTP/1.1\r\nHost: localhost\r\nUser-Agent: naughty\r\nConnection: close\r\n${framing}`);
      expect(statusOf(answer), framing).toBe(403);
      expect(answer).toContain('Please contact us for assistance.');
    }
  });

  it('cannot open a WebSocket either', async () => {
    const answer = await sendRaw(
      fx.gw.url,
      `GET /echo/live HTTP/1.1\r\nHost: localhost\r\nUser-Agent: naughty\r\nX-Api-Key: ${fx.apiKey}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
    );
    expect(statusOf(answer)).toBe(403);
    expect(answer).toContain('Please contact us for assistance.');
  });
});

describe('banned IPs', () => {
  it('are refused by address and by range, for the client a trusted proxy names', async () => {
    for (const ip of ['7.4.2.2', '8.7.1.44', '2001:db8:bad::1']) expect((await get(fx, '/echo/info', { 'X-Forwarded-For': ip })).status, ip).toBe(403);
    for (const ip of ['7.4.2.3', '8.7.2.1', '2001:db8:bae::1']) expect((await get(fx, '/echo/info', { 'X-Forwarded-For': ip })).status, ip).toBe(200);
  });
});

describe('ban.response', () => {
  it('sets the status and message, and holds the answer back for the delay', async () => {
    const startedAt = performance.now();
    const reply = await get(custom, '/echo/info', { 'User-Agent': 'naughty' });
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(1000);
    expect(reply.status).toBe(418);
    expect(reply.text).toBe("You've been banned!\n");
    expect((await get(custom, '/echo/info')).status).toBe(200);
  });

  it('answers HEAD without a body', async () => {
    const reply = await send(fx.gw.url, '/echo/info', { method: 'HEAD', headers: { 'X-Api-Key': fx.apiKey, 'User-Agent': 'naughty' } });
    expect(reply.status).toBe(403);
    expect(reply.headers['content-length']).toBe(String('Please contact us for assistance.\n'.length));
    expect(reply.text).toBe('');
  });
});
