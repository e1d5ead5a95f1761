// A real upstream on a loopback port that answers every request with what it
// received: method, path, query, headers, body and basic-auth user, as JSON.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EchoedRequest {
  method: string;
  url: string;
  path: string;
  query: string;
  headers: Record<string, string | string[] | undefined>;
  rawHeaders: string[];
  body: string;
  bodyLength: number;
  basicAuthUser: string | null;
}

export interface EchoUpstream {
  readonly port: number;
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: EchoedRequest[];
  close(): Promise<void>;
}

export type CustomHandler = (request: IncomingMessage, response: ServerResponse) => boolean | void;

/** `custom` may answer a request itself (return true) for special paths such as slow or failing ones. */
export async function startEchoUpstream(custom?: CustomHandler): Promise<EchoUpstream> {
  const requests: EchoedRequest[] = [];
  const server: Server = createServer((request, response) => {
    if (custom?.(request, response) === true) return;
    const chunks: Buffer[] = [];
    let length = 0;
    // Large bodies are counted, not kept, so streaming tests measure the gateway and not this echo.
    request.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length <= 1_048_576) chunks.push(chunk);
    });
    request.on('end', () => {
      const url = request.url ?? '/';
      const queryAt = url.indexOf('?');
      const echoed: EchoedRequest = {
        method: request.method ?? '',
        url,
        path: queryAt < 0 ? url : url.slice(0, queryAt),
        query: queryAt < 0 ? '' : url.slice(queryAt + 1),
        headers: request.headers,
        rawHeaders: request.rawHeaders,
        body: Buffer.concat(chunks).toString('utf8'),
        bodyLength: length,
        basicAuthUser: basicAuthUser(request.headers.authorization),
      };
      requests.push(echoed);
      const body = JSON.stringify(echoed);
      response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      response.end(request.method === 'HEAD' ? undefined : body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function basicAuthUser(header: string | undefined): string | null {
  if (header === undefined || !/^basic /i.test(header)) return null;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? decoded : decoded.slice(0, colon);
}
