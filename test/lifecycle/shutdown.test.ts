// Graceful stop: requests in flight finish, new ones are refused, the store closes.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { startTestGateway } from '../helpers/gateway.js';

let upstream: EchoUpstream | null = null;
afterEach(async () => {
  await upstream?.close();
});

function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('graceful stop', () => {
  it('lets a request in flight finish on the upstream, then closes', async () => {
    let release: () => void = () => undefined;
    let arrived: () => void = () => undefined;
    const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
    upstream = await startEchoUpstream((req, res) => {
      if (!req.url?.startsWith('/slow')) return false;
      arrived();
      release = () => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('finished');
      return true;
    });
    const gw = await startTestGateway();
    await gw.publishBackend({
      name: 'slow',
      frontend_host: '*',
      backend_host: '',
      servers: [{ host: '127.0.0.1', port: upstream.port }],
      url_matches: [{ frontend_prefix: '/slow', backend_prefix: '/slow' }],
      settings: { disable_api_key: true, rate_limit_mode: 'unlimited' },
    });

    const inFlight = get(`${gw.url}/slow`, {});
    await slowArrived;
    const stopStarted = Date.now();
    const stopped = gw.stop().then(() => Date.now() - stopStarted);
    release();
    expect(await inFlight).toEqual({ status: 200, body: 'finished' });
    // The client keeps its connection alive; stop must not wait for the client's idle timeout (5 s).
    expect(await stopped).toBeLessThan(2000);
    await expect(get(`${gw.url}/slow`, {})).rejects.toThrow(/ECONNREFUSED/);
    expect(gw.context.db.open).toBe(false);
  });
});
