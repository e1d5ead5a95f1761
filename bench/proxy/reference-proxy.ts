// Case B: the smallest reasonable reverse proxy on undici — a keep-alive pool
// to the upstream and undici's stream() straight into the response. No key,
// no routing, no logging: the ceiling Parasol is measured against.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { turnOffPretenuring } from '../../src/lib/pretenuring.js';
import { holdTickEntryShape } from '../../src/lib/tick-shape.js';
import { answerUsageRequests, type Ready } from './protocol.js';

const upstreamPort = Number(process.argv[2]);
const pool = new Pool(`http://127.0.0.1:${upstreamPort}`, { connections: 128, pipelining: 1, keepAliveTimeout: 4000 });

// Like Parasol: without it, V8 runs every nextTick through its runtime in some starts (src/lib/tick-shape.ts), and the reference would vary by ~10 %.
holdTickEntryShape();
// And like Parasol, V8's pretenuring off (src/lib/pretenuring.ts): its decisions can slow any Node process for life, the reference's too.
turnOffPretenuring();

const server = createServer((request, response) => {
  const { host: _host, connection: _connection, ...headers } = request.headers;
  const hasBody = request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined;
  pool
    .stream({ path: request.url!, method: request.method as 'GET', headers: headers as IncomingHttpHeaders, body: hasBody ? request : null }, ({ statusCode, headers: upstreamHeaders }) => {
      response.writeHead(statusCode, upstreamHeaders as IncomingHttpHeaders);
      return response;
    })
    .catch(() => {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
});
server.keepAliveTimeout = 60_000;
answerUsageRequests();
server.listen(0, '127.0.0.1', () => process.send!({ ready: { port: (server.address() as AddressInfo).port } } satisfies Ready));
// The bench ends (or dies): so does this server.
process.on('disconnect', () => process.exit(0));
