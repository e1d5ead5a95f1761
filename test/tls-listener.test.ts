// The HTTPS listener takes the plain server's connection limits, and relays
// what arrives on it to the plain server's listeners.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { get } from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import { readTlsFiles } from '../src/config/tls-files.js';
import { openTlsListener, type TlsListener } from '../src/tls-listener.js';
import { CERT_FILE, KEY_FILE, TEST_CA } from './helpers/tls.js';

const files = (() => {
  const read = readTlsFiles({ cert_file: CERT_FILE, key_file: KEY_FILE });
  if (!read.ok) throw new Error(read.problem);
  return read.files;
})();

let listener: TlsListener | null = null;
afterEach(async () => {
  await listener?.close();
  listener = null;
});

describe('openTlsListener', () => {
  it('has the keep-alive, header and request timeouts of the plain server (max_header_size: see proxy-https.test.ts)', async () => {
    const main: Server = createServer();
    main.keepAliveTimeout = 72_000;
    main.headersTimeout = 12_345;
    main.requestTimeout = 0;
    main.maxRequestsPerSocket = 7;
    main.setTimeout(9_000);
    listener = await openTlsListener(main, files, { host: '127.0.0.1', port: 0, maxHeaderSize: 32_768 });
    const { server } = listener;
    expect([server.keepAliveTimeout, server.headersTimeout, server.requestTimeout, server.maxRequestsPerSocket, server.timeout]).toEqual([72_000, 12_345, 0, 7, 9_000]);
  });

  it('hands its requests to the plain server\'s request listeners, whose socket is encrypted', async () => {
    const main = createServer((request, response) => response.end(`encrypted: ${(request.socket as { encrypted?: boolean }).encrypted === true}`));
    listener = await openTlsListener(main, files, { host: '127.0.0.1', port: 0, maxHeaderSize: 16_384 });
    expect(listener.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const request = get(`${listener.url}/`, { ca: TEST_CA, agent: false });
    const [response] = (await once(request, 'response')) as [NodeJS.ReadableStream];
    let body = '';
    for await (const chunk of response) body += String(chunk);
    expect(body).toBe('encrypted: true');
  });

  it('refuses to start on a port that is taken', async () => {
    listener = await openTlsListener(createServer(), files, { host: '127.0.0.1', port: 0, maxHeaderSize: 16_384 });
    const port = Number(new URL(listener.url).port);
    await expect(openTlsListener(createServer(), files, { host: '127.0.0.1', port, maxHeaderSize: 16_384 })).rejects.toThrow(/EADDRINUSE/);
  });
});
