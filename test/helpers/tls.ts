// The committed test certificate (test/fixtures/tls) and config for a
// gateway that serves HTTPS with it on a free loopback port.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/tls/${name}`, import.meta.url));

/** Self-signed for localhost, 127.0.0.1 and ::1. */
export const CERT_FILE = fixture('localhost-cert.pem');
export const KEY_FILE = fixture('localhost-key.pem');
/** A private key that is not the certificate's. */
export const OTHER_KEY_FILE = fixture('other-key.pem');
/** A renewal of the first: another certificate for the same names. */
export const RENEWED_CERT_FILE = fixture('renewed-cert.pem');
export const RENEWED_KEY_FILE = fixture('renewed-key.pem');
/** A second certificate, for api.example.org and *.example.net, and a renewal of it. */
export const SITES_CERT_FILE = fixture('sites-cert.pem');
export const SITES_KEY_FILE = fixture('sites-key.pem');
export const SITES_RENEWED_CERT_FILE = fixture('sites-renewed-cert.pem');
export const SITES_RENEWED_KEY_FILE = fixture('sites-renewed-key.pem');
/** A certificate that names no host (only IP:127.0.0.1), and its key. */
export const IP_ONLY_CERT_FILE = fixture('ip-only-cert.pem');
export const IP_ONLY_KEY_FILE = fixture('ip-only-key.pem');
/** What clients trust to reach the test listener: the certificate itself. */
export const TEST_CA = readFileSync(CERT_FILE);

/** Config overrides for HTTP and HTTPS, each on a free loopback port. */
export function httpsConfig(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { listen: { host: '127.0.0.1', port: 0, https_port: 0 }, tls: { cert_file: CERT_FILE, key_file: KEY_FILE }, ...overrides };
}
