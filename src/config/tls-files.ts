// The HTTPS listener's certificates and keys (tls.cert_file and tls.key_file,
// and each pair of tls.certificates). They are read and tried on Node's TLS
// here, when the config is loaded, so that a missing file or a key that is
// not the certificate's stops start-up and `parasol config check` with one
// line, not the first handshake.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import { about, unreadableFile, type KeyProblem } from './messages.js';
import type { Config } from './schema.js';

/** PEM bytes as node:tls takes them; cert may hold the whole chain. */
export interface TlsFiles {
  readonly cert: Buffer;
  readonly key: Buffer;
}

export type TlsFilesRead = { readonly ok: true; readonly files: TlsFiles } | { readonly ok: false; readonly problem: string };

/** One certificate and its key as the config names them, under the key `at` ("tls", "tls.certificates[0]"). */
export interface TlsPairPaths {
  readonly at: string;
  readonly cert_file: string | null;
  readonly key_file: string | null;
  /** Chosen by the host names it lists (tls.certificates), so it must list one; the first serves every host. */
  readonly byName: boolean;
}

/** The certificate for every other name (tls.cert_file, tls.key_file) first, then tls.certificates in order. */
export function tlsPairsOf(tls: Config['tls']): TlsPairPaths[] {
  return [
    { at: 'tls', cert_file: tls.cert_file, key_file: tls.key_file, byName: false },
    ...tls.certificates.map((pair, index) => ({ at: `tls.certificates[${index}]`, ...pair, byName: true })),
  ];
}

/** The keys that name a pair's files, so that an error about the files can say where they were set. */
export function tlsPairKeys(pair: TlsPairPaths): string[] {
  return pair.byName ? ['tls.certificates'] : ['tls.cert_file', 'tls.key_file'];
}

/** The listen.https_port and tls.* keys together: what is wrong, or null. */
export function httpsKeysProblem(config: Config): KeyProblem | null {
  const { cert_file, key_file, certificates } = config.tls;
  const { port, https_port } = config.listen;
  if (https_port === null) {
    const stray =
      cert_file !== null ? 'tls.cert_file'
      : key_file !== null ? 'tls.key_file'
      : certificates.length > 0 ? 'tls.certificates'
      : null;
    return stray === null ? null : about([stray], `${stray}: set, but listen.https_port is not: set it to serve HTTPS, or remove the tls keys`);
  }
  if (https_port === port && port !== 0) return about(['listen.https_port', 'listen.port'], `listen.https_port: ${https_port} is listen.port already: HTTPS needs a port of its own`);
  if (cert_file === null) return about(['listen.https_port'], 'tls.cert_file: listen.https_port needs a certificate file (PEM)');
  if (key_file === null) return about(['listen.https_port'], 'tls.key_file: listen.https_port needs a private key file (PEM)');
  for (const pair of tlsPairsOf(config.tls)) {
    const read = readTlsFiles(pair);
    if (!read.ok) return about(tlsPairKeys(pair), read.problem);
  }
  return null;
}

/**
 * Reads both files (paths resolved against the working directory, as
 * homepage.file is) and checks each, then the pair, with the same call the
 * listener makes, so each failure names the key whose file is at fault. A
 * certificate of tls.certificates must name a host: it would never be chosen.
 */
export function readTlsFiles(pair: TlsPairPaths): TlsFilesRead {
  const cert = readPem(`${pair.at}.cert_file`, pair.cert_file);
  if (typeof cert === 'string') return { ok: false, problem: cert };
  const key = readPem(`${pair.at}.key_file`, pair.key_file);
  if (typeof key === 'string') return { ok: false, problem: key };
  const refused =
    refusal({ cert }, `${pair.at}.cert_file: no PEM certificate in ${pair.cert_file}`) ??
    refusal({ key }, `${pair.at}.key_file: no usable PEM private key (unencrypted) in ${pair.key_file}`) ??
    refusal({ cert, key }, `${pair.at}.key_file: ${pair.key_file} is not the private key of the certificate in ${pair.at}.cert_file`);
  if (refused !== null) return { ok: false, problem: refused };
  if (pair.byName && dnsNamesOf(cert).length === 0) return { ok: false, problem: `${pair.at}.cert_file: the certificate in ${pair.cert_file} names no host (no DNS subjectAltName)` };
  return { ok: true, files: { cert, key } };
}

/** The host names (DNS subjectAltNames, wildcards such as *.example.com included) of a PEM chain's first certificate, lowercase. */
export function dnsNamesOf(cert: Buffer): string[] {
  const names = new X509Certificate(cert).subjectAltName ?? '';
  return names.split(', ').flatMap((entry) => (entry.startsWith('DNS:') ? [entry.slice(4).toLowerCase()] : []));
}

/** The bytes, or "key: cannot read PATH: why". */
function readPem(key: string, path: string | null): Buffer | string {
  if (path === null) return `${key}: not set`;
  try {
    return readFileSync(resolve(path));
  } catch (error) {
    return unreadableFile(key, path, error);
  }
}

/** null when node:tls takes these options, else the problem with OpenSSL's reason appended. */
function refusal(options: { cert?: Buffer; key?: Buffer }, problem: string): string | null {
  try {
    createSecureContext(options);
    return null;
  } catch (error) {
    return `${problem} (${opensslReason(error)})`;
  }
}

/** "error:05800074:x509 certificate routines::key values mismatch" → "key values mismatch". */
function opensslReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(message.lastIndexOf(':') + 1).trim() || message;
}
