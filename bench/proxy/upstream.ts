// The bench's upstream API: a small JSON answer at /small, 64 KiB at /large.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { turnOffPretenuring } from '../../src/lib/pretenuring.js';
import { holdTickEntryShape } from '../../src/lib/tick-shape.js';
import { answerUsageRequests, type Ready } from './protocol.js';

// Every bench process holds a nextTick entry and turns V8's pretenuring off, as Parasol does, so none of them
// draws V8's slow nextTick (src/lib/tick-shape.ts) or a literal born old for life (src/lib/pretenuring.ts).
holdTickEntryShape();
turnOffPretenuring();
const SMALL = Buffer.from(JSON.stringify({ ok: true, message: 'hello from the upstream', n: 42 }));
const LARGE = Buffer.alloc(64 * 1024, 'x');

const server = createServer((request, response) => {
  const body = request.url?.startsWith('/large') ? LARGE : SMALL;
  // Bodies sent to the upstream are drained before answering, as an API would.
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    response.end(body);
  });
});
server.keepAliveTimeout = 60_000;
answerUsageRequests();
server.listen(0, '127.0.0.1', () => process.send!({ ready: { port: (server.address() as AddressInfo).port } } satisfies Ready));
// The bench ends (or dies): so does this server.
process.on('disconnect', () => process.exit(0));
