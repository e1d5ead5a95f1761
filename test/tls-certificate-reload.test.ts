// A certificate renewed in place (as certbot does) reaches new HTTPS
// connections without a restart; a renewal that cannot be used is logged and
// leaves the certificate in use; an ending certificate is warned about.
import { X509Certificate } from 'node:crypto';
import { copyFileSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { readTlsFiles } from '../src/config/tls-files.js';
import { ManualClock } from '../src/lib/clock.js';
import { startServer, type RunningServer } from '../src/serve.js';
import { CertificateReloader, fingerprintOf } from '../src/tls-certificate-reload.js';
import { openTlsListener, type TlsListener } from '../src/tls-listener.js';
import { capturingLogger } from './helpers/capturing-logger.js';
import { tempDir, testConfig } from './helpers/config.js';
import { CERT_FILE, httpsConfig, IP_ONLY_CERT_FILE, IP_ONLY_KEY_FILE, KEY_FILE, OTHER_KEY_FILE, RENEWED_CERT_FILE, RENEWED_KEY_FILE, SITES_CERT_FILE, SITES_KEY_FILE, SITES_RENEWED_CERT_FILE, SITES_RENEWED_KEY_FILE } from './helpers/tls.js';

const certFingerprint = (path: string) => new X509Certificate(readFileSync(path)).fingerprint256;

let server: RunningServer | null = null;
let listener: TlsListener | null = null;
afterEach(async () => {
  await server?.stop();
  await listener?.close();
  server = null;
  listener = null;
});

/** A gateway serving HTTPS with copies of the test certificate, which the test may replace. */
async function start() {
  const dir = tempDir('tls-reload-');
  const files = { cert: join(dir, 'fullchain.pem'), key: join(dir, 'privkey.pem') };
  copyFileSync(CERT_FILE, files.cert);
  copyFileSync(KEY_FILE, files.key);
  const log = capturingLogger();
  const config = testConfig(httpsConfig({ tls: { cert_file: files.cert, key_file: files.key } }));
  server = await startServer(config, { logger: log.logger, certificateCheckMs: 20 });
  return { files, log, httpsUrl: new URL(server.httpsUrl!) };
}

/** The fingerprint of the certificate a new connection (naming `serverName`, if given) is shown. */
function servedFingerprint(url: URL, serverName?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), servername: serverName, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on('error', reject);
  });
}

describe('a renewed TLS certificate', () => {
  it('reaches new connections once both files are replaced, without a restart', async () => {
    const { files, log, httpsUrl } = await start();
    expect(await servedFingerprint(httpsUrl)).toBe(certFingerprint(CERT_FILE));
    const reloaded = log.nextLine('TLS certificate reloaded');
    copyFileSync(RENEWED_KEY_FILE, files.key);
    copyFileSync(RENEWED_CERT_FILE, files.cert);
    expect(await reloaded).toMatchObject({ level: 30, cert_file: files.cert, valid_to: '2076-11-12T00:51:55.000Z' });
    expect(await servedFingerprint(httpsUrl)).toBe(certFingerprint(RENEWED_CERT_FILE));
  });

  it('is not taken while its key is not the certificate\'s: the one in use stays until the pair matches', async () => {
    const { files, log, httpsUrl } = await start();
    const refused = log.nextLine('TLS certificate files changed but cannot be used; the certificate in use stays');
    copyFileSync(RENEWED_CERT_FILE, files.cert);
    expect(await refused).toMatchObject({ level: 50, problem: expect.stringContaining(`tls.key_file: ${files.key} is not the private key of the certificate`) });
    expect(await servedFingerprint(httpsUrl)).toBe(certFingerprint(CERT_FILE));
    const reloaded = log.nextLine('TLS certificate reloaded');
    copyFileSync(RENEWED_KEY_FILE, files.key);
    await reloaded;
    expect(await servedFingerprint(httpsUrl)).toBe(certFingerprint(RENEWED_CERT_FILE));
    // Unchanged files are not read again: one error, one reload.
    expect(log.lines.filter((line) => line.level === 50)).toHaveLength(1);
  });

  it('is read again when a file changed only its status (owner or mode set after it was written, as install -o -m does)', async () => {
    const { files, log, httpsUrl } = await start();
    const refused = log.nextLine('TLS certificate files changed but cannot be used; the certificate in use stays');
    copyFileSync(RENEWED_CERT_FILE, files.cert);
    copyFileSync(OTHER_KEY_FILE, files.key);
    await refused;
    // The right key, with the same inode, size and modification time: only the change time moves.
    const { mtime, atime } = statSync(files.key);
    const reloaded = log.nextLine('TLS certificate reloaded');
    copyFileSync(RENEWED_KEY_FILE, files.key);
    utimesSync(files.key, atime, mtime);
    await reloaded;
    expect(await servedFingerprint(httpsUrl)).toBe(certFingerprint(RENEWED_CERT_FILE));
  });

  it('of tls.certificates reaches connections naming its host, and leaves the others theirs', async () => {
    const dir = tempDir('tls-reload-sites-');
    const sites = { cert: join(dir, 'sites.pem'), key: join(dir, 'sites-key.pem') };
    copyFileSync(SITES_CERT_FILE, sites.cert);
    copyFileSync(SITES_KEY_FILE, sites.key);
    const log = capturingLogger();
    const config = testConfig(httpsConfig({ tls: { cert_file: CERT_FILE, key_file: KEY_FILE, certificates: [{ cert_file: sites.cert, key_file: sites.key }] } }));
    server = await startServer(config, { logger: log.logger, certificateCheckMs: 20 });
    const httpsUrl = new URL(server.httpsUrl!);
    expect(await servedFingerprint(httpsUrl, 'api.example.org')).toBe(certFingerprint(SITES_CERT_FILE));
    const reloaded = log.nextLine('TLS certificate reloaded');
    copyFileSync(SITES_RENEWED_KEY_FILE, sites.key);
    copyFileSync(SITES_RENEWED_CERT_FILE, sites.cert);
    expect(await reloaded).toMatchObject({ cert_file: sites.cert });
    expect(await servedFingerprint(httpsUrl, 'api.example.org')).toBe(certFingerprint(SITES_RENEWED_CERT_FILE));
    expect(await servedFingerprint(httpsUrl, 'localhost')).toBe(certFingerprint(CERT_FILE));
    expect(await servedFingerprint(httpsUrl)).toBe(certFingerprint(CERT_FILE));

    // A renewal that names no host any more would never be chosen: refused, as at start.
    const refused = log.nextLine('TLS certificate files changed but cannot be used; the certificate in use stays');
    copyFileSync(IP_ONLY_KEY_FILE, sites.key);
    copyFileSync(IP_ONLY_CERT_FILE, sites.cert);
    expect(await refused).toMatchObject({ problem: expect.stringContaining('tls.certificates[0].cert_file: the certificate in') });
    expect(await servedFingerprint(httpsUrl, 'api.example.org')).toBe(certFingerprint(SITES_RENEWED_CERT_FILE));
  });

  it('is warned about two weeks before its end, once a day, and once it has expired', async () => {
    const read = readTlsFiles({ at: 'tls', cert_file: CERT_FILE, key_file: KEY_FILE, byName: false });
    if (!read.ok) throw new Error(read.problem);
    const end = Date.parse(new X509Certificate(read.files.cert).validTo);
    const clock = new ManualClock(end - 15 * 86_400_000);
    const log = capturingLogger();
    listener = await openTlsListener([read.files], { host: '127.0.0.1', port: 0, maxHeaderSize: 16_384, serve: () => undefined });
    // Checked by hand here, with the clock moved, rather than by the interval.
    const pair = { at: 'tls', cert_file: CERT_FILE, key_file: KEY_FILE, byName: false };
    const reloader = new CertificateReloader(listener, [{ pair, files: read.files, fingerprint: fingerprintOf(pair) }], { logger: log.logger, clock, checkEveryMs: 86_400_000 });
    const warnings = () => log.lines.filter((line) => line.level === 40).map((line) => [line.msg, line.valid_to]);
    try {
      expect(warnings()).toEqual([]);
      clock.advance(86_400_000);
      reloader.check();
      clock.advance(86_400_000 - 1);
      reloader.check();
      expect(warnings()).toEqual([['TLS certificate expires soon', new Date(end).toISOString()]]);
      clock.advance(1);
      reloader.check();
      expect(warnings()).toHaveLength(2);
      clock.advance(14 * 86_400_000);
      reloader.check();
      expect(warnings().at(-1)).toEqual(['TLS certificate has expired', new Date(end).toISOString()]);
    } finally {
      reloader.stop();
    }
  });
});
