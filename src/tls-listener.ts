// The HTTPS listener (listen.https_port): a second Node server beside the
// plain one. It terminates TLS; the app's listeners are put on it as on the
// plain one (app-switch.ts), so one app serves both: the gateway's direct
// path, Fastify's routes, WebSocket upgrades, 503 while closing. Requests on
// it see an encrypted socket, which is what makes request.protocol "https"
// for require_https, Secure cookies and X-Forwarded-Proto. With several
// certificates, each connection gets the one for the host it names (SNI,
// tls-server-names.ts).
import { createServer, type Server as HttpsServer } from 'node:https';
import type { SecureContext } from 'node:tls';
import type { TlsFiles } from './config/tls-files.js';
import { listen, type Listener, type ListenOptions } from './http-listener.js';
import { ServerNameChooser } from './tls-server-names.js';

export interface TlsListener extends Listener<HttpsServer> {
  /** Connections from now on get this certificate in place of the index-th (0: tls.cert_file); open ones keep theirs. */
  useCertificate(index: number, files: TlsFiles): void;
}

export interface TlsListenOptions extends ListenOptions<HttpsServer> {
  /** tls.http_strict_transport_security: put on every answer before the app writes it; null or left out: none. */
  readonly strictTransportSecurity?: string | null;
}

/** Listens on options.host:options.port; `pairs[0]` is the certificate for every host no other one names. */
export async function openTlsListener(pairs: readonly TlsFiles[], options: TlsListenOptions): Promise<TlsListener> {
  const chooser = pairs.length > 1 ? new ServerNameChooser(pairs) : null;
  const server = createServer({
    cert: pairs[0]!.cert,
    key: pairs[0]!.key,
    ...(chooser === null ? {} : { SNICallback: (name: string, answer: (error: Error | null, context: SecureContext) => void) => answer(null, chooser.contextFor(name)) }),
    // HTTP/1.1 only: the gateway, its upgrades and Fastify's routes are built on Node's HTTP/1 server.
    ALPNProtocols: ['http/1.1'],
    maxHeaderSize: options.maxHeaderSize,
    // As on the main server: the gateway answers a missing Host itself.
    requireHostHeader: false,
  });
  const { strictTransportSecurity = null } = options;
  if (strictTransportSecurity !== null) {
    // Before the app's listeners: headers the app writes are merged over it (Node's writeHead), an upstream's own one winning.
    server.prependListener('request', (_request, response) => response.setHeader('Strict-Transport-Security', strictTransportSecurity));
  }
  return {
    ...(await listen(server, options)),
    useCertificate: (index, files) => {
      chooser?.replace(index, files);
      // Also what a client that names no host gets.
      if (index === 0) server.setSecureContext({ cert: files.cert, key: files.key });
    },
  };
}
