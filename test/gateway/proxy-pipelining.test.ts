// Pipelined requests on one connection: an unsafe one, or one behind an
// unsafe one, goes upstream only once the answer before it has gone out (RFC
// 9112 section 9.3.2; nginx takes one request of a connection at a time), so
// a PUT and the GET after it never overtake each other. Safe ones may run
// together; answers always come back in order. (Found by the HTTP probe: a
// pipelined POST, DELETE and GET reached the upstream within a millisecond.)
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { echoBackend, sendRaw, startProxyFixture, statusOf, type ProxyFixture } from './support.js';

/** What the upstream saw, in order: "start /path" as a request arrives, "end /path" as its answer goes. */
const events: string[] = [];
let fx: ProxyFixture;
let upstream: EchoUpstream;

beforeAll(async () => {
  upstream = await startEchoUpstream((request: IncomingMessage, response: ServerResponse) => {
    const path = request.url!;
    events.push(`start ${path}`);
    // The slow one answers once a later request could have overtaken it.
    const delay = path.includes('slow') ? 150 : 0;
    request.resume();
    request.on('end', () =>
      setTimeout(() => {
        events.push(`end ${path}`);
        response.end(path);
      }, delay),
    );
    return true;
  });
  fx = await startProxyFixture();
  await fx.gw.publishBackend(echoBackend(upstream, { url_matches: [{ frontend_prefix: '/p/', backend_prefix: '/' }] }));
});
afterAll(async () => {
  await fx.close();
  await upstream.close();
});

function pipeline(requests: readonly [method: string, path: string][]): Promise<string> {
  const bytes = requests.map(([method, path], index) => {
    const last = index === requests.length - 1;
    const body = method === 'GET' ? '' : 'Content-Length: 2\r\n\r\nhi';
    return `${method} /p${path} HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${fx.apiKey}\r\n${last ? 'Connection: close\r\n' : ''}${body === '' ? '\r\n' : body}`;
  });
  return sendRaw(fx.gw.url, bytes.join(''));
}

describe('pipelined requests', () => {
  it('sends an unsafe request, and any request behind one, upstream only once the answer before it has gone', async () => {
    events.length = 0;
    const answer = await pipeline([
      ['POST', '/slow-post'],
      ['DELETE', '/delete'],
      ['GET', '/get'],
    ]);
    expect(answer.split(/(?=HTTP\/1\.1 )/).map(statusOf)).toEqual([200, 200, 200]);
    expect(events).toEqual(['start /slow-post', 'end /slow-post', 'start /delete', 'end /delete', 'start /get', 'end /get']);
  });

  it('lets safe requests run together, answering them in order', async () => {
    events.length = 0;
    const answer = await pipeline([
      ['GET', '/slow-get'],
      ['GET', '/fast-get'],
    ]);
    expect(answer.split(/(?=HTTP\/1\.1 )/).map((part) => part.slice(part.indexOf('\r\n\r\n') + 4))).toEqual(['/slow-get', '/fast-get']);
    expect(events.indexOf('start /fast-get')).toBeLessThan(events.indexOf('end /slow-get'));
  });
});
