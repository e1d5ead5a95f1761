// How connections to https upstreams check the certificate they are shown.
// By default as any careful client does: a certificate a trusted CA signed
// for the name sent as Host (backend_host; with none, the client's host name,
// or the server's host when the client called by address). An internal CA
// is trusted through proxy.upstream_ca_file, beside the system's; and
// proxy.upstream_tls_verify: false takes any certificate, as API Umbrella's
// nginx does (it never verifies upstreams), for operators whose backends show
// self-signed or mismatched certificates and who accept what that opens.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { rootCertificates } from 'node:tls';
import { unreadableFile } from '../config/messages.js';
import type { Config } from '../config/schema.js';

export interface UpstreamTlsOptions {
  readonly rejectUnauthorized: boolean;
  /** Every CA trusted: the system's and the file's (Node's `ca` replaces the system's when given alone). */
  readonly ca?: string[];
}

const KEY = 'proxy.upstream_ca_file';
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Read when an app is built, so a reload takes a changed file. */
export function upstreamTlsOptions(proxy: Config['proxy']): UpstreamTlsOptions {
  if (!proxy.upstream_tls_verify) return { rejectUnauthorized: false };
  if (proxy.upstream_ca_file === null) return { rejectUnauthorized: true };
  return { rejectUnauthorized: true, ca: [...rootCertificates, ...certificatesIn(proxy.upstream_ca_file)] };
}

/** What is wrong with proxy.upstream_ca_file, or null (config check, start-up and reload). */
export function upstreamCaFileProblem(file: string): string | null {
  try {
    certificatesIn(file);
    return null;
  } catch (error) {
    return error instanceof NotCertificates ? `${KEY}: ${file} ${error.message}` : unreadableFile(KEY, file, error);
  }
}

class NotCertificates extends Error {}

/** The file's PEM certificates, each checked to parse. */
function certificatesIn(file: string): string[] {
  const certificates = readFileSync(resolve(file), 'utf8').match(PEM_CERTIFICATE) ?? [];
  if (certificates.length === 0) throw new NotCertificates('holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
  for (const certificate of certificates) {
    try {
      new X509Certificate(certificate);
    } catch (error) {
      throw new NotCertificates(`holds a certificate that does not parse: ${(error as Error).message}`);
    }
  }
  return certificates;
}
