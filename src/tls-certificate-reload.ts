// Renewed certificates without a restart. certbot and the like replace
// tls.cert_file and tls.key_file (and those of tls.certificates) in place
// every couple of months; Parasol looks at each pair's files every minute
// and, when either has changed, reads and checks the pair as at start-up and
// gives it to new connections. A pair
// that does not pass (a key not yet written beside its new certificate, a
// wrong file) is logged and the certificate in use stays, so a bad renewal
// never takes HTTPS down. A certificate close to its end is warned about
// daily, so an operator hears of a renewal that stopped working.
import { X509Certificate } from 'node:crypto';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { readTlsFiles, type TlsFiles, type TlsPairPaths } from './config/tls-files.js';
import type { Clock } from './lib/clock.js';
import { DAY_MS } from './lib/iso-instant.js';
import type { TlsListener } from './tls-listener.js';

const CERTIFICATE_CHECK_MS = 60_000;
/** Let's Encrypt's certificates last 90 days and certbot renews them 30 days before the end: two weeks left means renewal has failed for a while. */
const WARN_BEFORE_END_MS = 14 * DAY_MS;

export interface CertificateReloadOptions {
  readonly logger: Logger;
  readonly clock: Clock;
  /** How often the files are looked at. */
  readonly checkEveryMs?: number;
}

/** What a pair's two files look like: a change of either is a renewal (or a step of one). */
type FilesFingerprint = string;

/** Taken before the files are read, so that a change while they are read is seen as one. */
export function fingerprintOf(pair: TlsPairPaths): FilesFingerprint {
  return [pair.cert_file, pair.key_file].map((path) => fileState(path)).join(' ');
}

/** A certificate in use: where the config names it, its files as read, and what they looked like just before. */
export interface CertificateInUse {
  readonly pair: TlsPairPaths;
  readonly files: TlsFiles;
  readonly fingerprint: FilesFingerprint;
}

/** Watches every pair of the config (tls.cert_file and key_file, then tls.certificates), each on its own. */
export class CertificateReloader {
  private readonly watched: WatchedCertificate[];
  private readonly timer: NodeJS.Timeout;

  /** `inUse` in the listener's order: the index of each is the one listener.useCertificate() takes. */
  constructor(listener: TlsListener, inUse: readonly CertificateInUse[], options: CertificateReloadOptions) {
    this.watched = inUse.map((certificate, index) => new WatchedCertificate(index, certificate, listener, options));
    this.timer = setInterval(() => this.check(), options.checkEveryMs ?? CERTIFICATE_CHECK_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Reloads each pair whose files changed since they were last read; else only warns of an ending certificate. */
  check(): void {
    for (const watched of this.watched) watched.check();
  }
}

class WatchedCertificate {
  /** What the files looked like when last read. */
  private seen: FilesFingerprint;
  private validTo: number;
  private lastWarnedAt = -Infinity;
  private readonly pair: TlsPairPaths;

  constructor(
    private readonly index: number,
    inUse: CertificateInUse,
    private readonly listener: TlsListener,
    private readonly options: CertificateReloadOptions,
  ) {
    this.pair = inUse.pair;
    this.seen = inUse.fingerprint;
    this.validTo = validToOf(inUse.files);
    this.warnIfEnding();
  }

  check(): void {
    const current = fingerprintOf(this.pair);
    if (current !== this.seen) {
      this.seen = current;
      this.reload();
    }
    this.warnIfEnding();
  }

  private reload(): void {
    const read = readTlsFiles(this.pair);
    if (!read.ok) {
      this.options.logger.error({ problem: read.problem }, 'TLS certificate files changed but cannot be used; the certificate in use stays');
      return;
    }
    this.listener.useCertificate(this.index, read.files);
    this.validTo = validToOf(read.files);
    this.lastWarnedAt = -Infinity;
    this.options.logger.info({ cert_file: this.pair.cert_file, valid_to: new Date(this.validTo).toISOString() }, 'TLS certificate reloaded');
  }

  private warnIfEnding(): void {
    const now = this.options.clock.now();
    if (now < this.validTo - WARN_BEFORE_END_MS || now - this.lastWarnedAt < DAY_MS) return;
    this.lastWarnedAt = now;
    const message = now >= this.validTo ? 'TLS certificate has expired' : 'TLS certificate expires soon';
    this.options.logger.warn({ cert_file: this.pair.cert_file, valid_to: new Date(this.validTo).toISOString() }, message);
  }
}

/**
 * Inode, size, and change and modification times (following links, as
 * certbot's live/ names are): a file written and then given its owner and
 * mode (install -o -m) changes again when it becomes readable.
 */
function fileState(path: string | null): string {
  if (path === null) return 'none';
  try {
    const stat = statSync(resolve(path));
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
  } catch (error) {
    return `missing:${(error as NodeJS.ErrnoException).code ?? 'unknown'}`;
  }
}

/** The end of the first certificate of the chain, the server's own. */
function validToOf(files: TlsFiles): number {
  return Date.parse(new X509Certificate(files.cert).validTo);
}
