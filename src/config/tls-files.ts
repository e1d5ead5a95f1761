// The HTTPS listener's certificate and key (tls.cert_file, tls.key_file).
// They are read and tried on Node's TLS here, when the config is loaded, so
// that a missing file or a key that is not the certificate's stops start-up
// and `parasol config check` with one line, not the first handshake.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { Config } from './schema.js';

/** PEM bytes as node:tls takes them; cert may hold the whole chain. */
export interface TlsFiles {
  readonly cert: Buffer;
  readonly key: Buffer;
}

export type TlsFilesRead = { readonly ok: true; readonly files: TlsFiles } | { readonly ok: false; readonly problem: string };

/** The listen.https_port and tls.* keys together: what is wrong as "key: reason", or null. */
export function httpsKeysProblem(config: Config): string | null {
  const { cert_file, key_file } = config.tls;
  const { port, https_port } = config.listen;
  if (https_port === null) {
    if (cert_file !== null) return 'tls.cert_file: set, but listen.https_port is not: set it to serve HTTPS, or remove the tls keys';
    if (key_file !== null) return 'tls.key_file: set, but listen.https_port is not: set it to serve HTTPS, or remove the tls keys';
    return null;
  }
  if (https_port === port && port !== 0) return `listen.https_port: ${https_port} is listen.port already: HTTPS needs a port of its own`;
  if (cert_file === null) return 'tls.cert_file: listen.https_port needs a certificate file (PEM)';
  if (key_file === null) return 'tls.key_file: listen.https_port needs a private key file (PEM)';
  const read = readTlsFiles(config.tls);
  return read.ok ? null : read.problem;
}

/**
 * Reads both files (paths resolved against the working directory, as
 * homepage.file is) and checks each, then the pair, with the same call the
 * listener makes, so each failure names the key whose file is at fault.
 */
export function readTlsFiles(tls: Config['tls']): TlsFilesRead {
  const cert = readPem('tls.cert_file', tls.cert_file);
  if (typeof cert === 'string') return { ok: false, problem: cert };
  const key = readPem('tls.key_file', tls.key_file);
  if (typeof key === 'string') return { ok: false, problem: key };
  const refused =
    refusal({ cert }, `tls.cert_file: no PEM certificate in ${tls.cert_file}`) ??
    refusal({ key }, `tls.key_file: no usable PEM private key (unencrypted) in ${tls.key_file}`) ??
    refusal({ cert, key }, `tls.key_file: ${tls.key_file} is not the private key of the certificate in tls.cert_file`);
  return refused === null ? { ok: true, files: { cert, key } } : { ok: false, problem: refused };
}

/** The bytes, or "key: cannot read PATH: CODE". */
function readPem(key: string, path: string | null): Buffer | string {
  if (path === null) return `${key}: not set`;
  try {
    return readFileSync(resolve(path));
  } catch (error) {
    return `${key}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
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
