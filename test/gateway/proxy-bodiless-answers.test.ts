// 204 and 304 answers end at their head, whatever Content-Length the upstream
// states (RFC 9110 section 8.6 lets a 304 state its resource's), as nginx
// takes them: the client's connection goes on to its next request, the log
// tells of no failure, and a 204 goes out without a length. (Found by the
// HTTP probe: undici called such a 304 a length mismatch, and the client's
// connection was cut, losing a pipelined request's answer.)
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingLogger } from '../helpers/capturing-logger.js';
import { echoBackend, sendRaw, startProxyFixture, type ProxyFixture } from './support.js';

/** What the raw upstream answers for each path, on a connection it keeps open. */
const ANSWERS: Record<string, string> = {
  '/not-modified': 'HTTP/1.1 304 Not Modified\r\nETag: "x"\r\nContent-Length: 42\r\n\r\n',
  '/no-content': 'HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n',
  '/next': 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n\r\nnext',
};

const { logger, lines } = capturingLogger();
let fx: ProxyFixture;
let raw: Server;

beforeAll(async () => {
  raw = createNetServer((socket: Socket) => {
    let pending = '';
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        const path = pending.split(' ')[1]!.split('?')[0]!;
        pending = pending.slice(end + 4);
        socket.write(ANSWERS[path] ?? 'HTTP/1.1 500 Unknown\r\nContent-Length: 0\r\n\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  fx = await startProxyFixture({ context: { logger } });
  await fx.gw.publishBackend(echoBackend(fx.echo, { servers: [{ host: '127.0.0.1', port: (raw.address() as AddressInfo).port }], url_matches: [{ frontend_prefix: '/raw/', backend_prefix: '/' }] }));
});
afterAll(async () => {
  raw.close();
  await fx.close();
});

/** Two requests pipelined on one connection, the second closing it: everything answered. */
function pipelined(first: string): Promise<string> {
  const request = (path: string, close: boolean) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${fx.apiKey}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;
  return sendRaw(fx.gw.url, request(first, false) + request('/raw/next', true));
}

describe('204 and 304 answers stating a length', () => {
  it('passes a 304 on with its length and goes on to the next request on the connection', async () => {
    const answer = await pipelined('/raw/not-modified');
    const [notModified, next] = answer.split(/(?=HTTP\/1\.1 )/);
    expect(notModified).toMatch(/^HTTP\/1\.1 304 Not Modified\r\n/);
    expect(notModified).toContain('\r\nContent-Length: 42\r\n');
    expect(next).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nnext$/);
  });

  it('passes a 204 on without a length, and goes on likewise', async () => {
    const answer = await pipelined('/raw/no-content');
    const [noContent, next] = answer.split(/(?=HTTP\/1\.1 )/);
    expect(noContent).toMatch(/^HTTP\/1\.1 204 No Content\r\n/);
    expect(noContent!.toLowerCase()).not.toContain('content-length');
    expect(next).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nnext$/);
  });

  it('logs no upstream failure for them', () => {
    expect(lines.filter((line) => line.msg === 'upstream request failed')).toEqual([]);
  });
});
