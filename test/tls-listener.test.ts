// The HTTPS listener: TLS with a certificate per host named (SNI), in front of
// the listeners the app puts on it.
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { get } from 'node:https';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { readTlsFiles, type TlsFiles } from '../src/config/tls-files.js';
import { openTlsListener, type TlsListener } from '../src/tls-listener.js';
import { CERT_FILE, KEY_FILE, RENEWED_CERT_FILE, RENEWED_KEY_FILE, SITES_CERT_FILE, SITES_KEY_FILE, SITES_RENEWED_CERT_FILE, SITES_RENEWED_KEY_FILE, TEST_CA } from './helpers/tls.js';

function readPair(cert_file: string, key_file: string): TlsFiles {
  const read = readTlsFiles({ at: 'tls', cert_file, key_file, byName: false });
  if (!read.ok) throw new Error(read.problem);
  return read.files;
}
const files = readPair(CERT_FILE, KEY_FILE);

/** The fingerprint of the certificate a new connection naming `serverName` (none: no SNI) is shown. */
function servedFingerprint(url: string, serverName?: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), servername: serverName, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on('error', reject);
  });
}

const fingerprintOf = (path: string) => new X509Certificate(readFileSync(path)).fingerprint256;

let listener: TlsListener | null = null;
afterEach(async () => {
  await listener?.close();
  listener = null;
});

describe('openTlsListener', () => {
  it("answers with the listeners put on it (app-switch.ts), on an encrypted socket", async () => {
    const answer = (request: IncomingMessage, response: ServerResponse) => response.end(`encrypted: ${(request.socket as { encrypted?: boolean }).encrypted === true}`);
    listener = await openTlsListener([files], { host: '127.0.0.1', port: 0, maxHeaderSize: 16_384, serve: (server) => server.on('request', answer) });
    expect(listener.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const request = get(`${listener.url}/`, { ca: TEST_CA, agent: false });
    const [response] = (await once(request, 'response')) as [NodeJS.ReadableStream];
    let body = '';
    for await (const chunk of response) body += String(chunk);
    expect(body).toBe('encrypted: true');
  });

  it('refuses to start on a port that is taken', async () => {
    listener = await openTlsListener([files], { host: '127.0.0.1', port: 0, maxHeaderSize: 16_384, serve: () => undefined });
    const port = Number(new URL(listener.url).port);
    await expect(openTlsListener([files], { host: '127.0.0.1', port, maxHeaderSize: 16_384, serve: () => undefined })).rejects.toThrow(/EADDRINUSE/);
  });

  it('shows each client the certificate for the host it names (SNI): exact names and one-label wildcards, else the first', async () => {
    listener = await openTlsListener([files, readPair(SITES_CERT_FILE, SITES_KEY_FILE)], { host: '127.0.0.1', port: 0, maxHeaderSize: 16_384, serve: () => undefined });
    const sites = fingerprintOf(SITES_CERT_FILE);
    const first = fingerprintOf(CERT_FILE);
    for (const [name, expected] of [['api.example.org', sites], ['API.Example.ORG', sites], ['api.example.org.', sites], ['a.example.net', sites], ['example.net', first], ['a.b.example.net', first], ['localhost', first], ['other.example.com', first], [undefined, first]] as const) {
      expect(await servedFingerprint(listener.url, name), String(name)).toBe(expected);
    }
    listener.useCertificate(1, readPair(SITES_RENEWED_CERT_FILE, SITES_RENEWED_KEY_FILE));
    expect(await servedFingerprint(listener.url, 'api.example.org')).toBe(fingerprintOf(SITES_RENEWED_CERT_FILE));
    expect(await servedFingerprint(listener.url, 'localhost')).toBe(first);
    // A renewal of the first reaches both those that name a host no other names, and those that name none.
    listener.useCertificate(0, readPair(RENEWED_CERT_FILE, RENEWED_KEY_FILE));
    for (const name of ['localhost', undefined]) expect(await servedFingerprint(listener.url, name), String(name)).toBe(fingerprintOf(RENEWED_CERT_FILE));
    expect(await servedFingerprint(listener.url, 'a.example.net')).toBe(fingerprintOf(SITES_RENEWED_CERT_FILE));
  });
});
