// Which certificate a TLS connection gets, by the host name the client asks
// for (SNI): the certificate that lists the name, exactly or under a
// wildcard (*.example.com covers a.example.com, not example.com nor
// a.b.example.com); else the first one, tls.cert_file, which is also what a
// client that names no host gets. An exact name wins over a wildcard; where
// two certificates list the same name, the earlier in the config wins.
import { createSecureContext, type SecureContext } from 'node:tls';
import { dnsNamesOf, type TlsFiles } from './config/tls-files.js';

export class ServerNameChooser {
  private readonly contexts: SecureContext[] = [];
  private readonly namesByIndex: string[][] = [];
  private byName = new Map<string, number>();

  /** `pairs[0]` is the certificate for every other name. */
  constructor(pairs: readonly TlsFiles[]) {
    pairs.forEach((files, index) => this.hold(index, files));
    this.rebuildNameMap();
  }

  /** A renewal of the index-th certificate; connections from now on get it. */
  replace(index: number, files: TlsFiles): void {
    this.hold(index, files);
    this.rebuildNameMap();
  }

  contextFor(serverName: string): SecureContext {
    // "api.example.org." is the same host, written fully qualified.
    const name = (serverName.endsWith('.') ? serverName.slice(0, -1) : serverName).toLowerCase();
    const dot = name.indexOf('.');
    const index = this.byName.get(name) ?? (dot < 0 ? undefined : this.byName.get(`*${name.slice(dot)}`)) ?? 0;
    return this.contexts[index]!;
  }

  private hold(index: number, files: TlsFiles): void {
    this.contexts[index] = createSecureContext({ cert: files.cert, key: files.key });
    this.namesByIndex[index] = dnsNamesOf(files.cert);
  }

  private rebuildNameMap(): void {
    const byName = new Map<string, number>();
    this.namesByIndex.forEach((names, index) => {
      for (const name of names) if (!byName.has(name)) byName.set(name, index);
    });
    this.byName = byName;
  }
}
