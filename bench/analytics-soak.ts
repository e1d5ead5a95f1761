// Soak: offers a steady request rate through the gateway for a while, then
// stops it gracefully and checks that the analytics log holds exactly one
// entry per response the gateway sent.
//   npm run bench:analytics-soak -- [--rate 5000] [--seconds 60] [--connections 100]
// autocannon and the upstream run as child processes, so the gateway has
// this process to itself.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../src/store/db.js';
import { packagePath } from '../src/lib/package-path.js';
import { testConfig } from '../test/helpers/config.js';
import { startWithConfig } from '../test/helpers/gateway.js';

const { values } = parseArgs({
  options: { rate: { type: 'string', default: '5000' }, seconds: { type: 'string', default: '60' }, connections: { type: 'string', default: '100' } },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);

const upstream = await startUpstream();
const config = testConfig({ default_api_backend_settings: { rate_limits: [] } });
const gw = await startWithConfig(config);
await gw.publishBackend({
  name: 'Soak',
  frontend_host: '*',
  backend_host: '127.0.0.1',
  servers: [{ host: '127.0.0.1', port: upstream.port }],
  url_matches: [{ frontend_prefix: '/soak/', backend_prefix: '/' }],
});
const { apiKey } = await gw.createUser({ email: 'soak@example.com' });

// Counted where the gateway hands responses to the OS: every proxied response that finished, and any cut short.
let sent = 0;
let cutShort = 0;
gw.app.server.on('request', (request: { url?: string }, response: ServerResponse) => {
  if (!request.url?.startsWith('/soak/')) return;
  response.once('close', () => (response.writableFinished ? sent++ : cutShort++));
});

console.log(`offering ${rate} req/s for ${seconds} s over ${values.connections} connections…`);
const load = await autocannon([
  '-j', '-R', String(rate), '-d', String(seconds), '-c', String(values.connections), '-H', `x-api-key=${apiKey}`, `${gw.url}/soak/hello?page=1`,
]);
const dropped = gw.context.analytics.dropped;
await gw.stop();
upstream.process.kill();

const db = openStore(config.data_dir);
const stored = db.prepare("SELECT count(*) FROM analytics_logs WHERE request_path LIKE '/soak/%'").pluck().get() as number;
db.close();
// The run's temp dir: its config and a store of a few hundred thousand entries.
rmSync(dirname(config.data_dir), { recursive: true, force: true });

console.log(`client: ${load.requests.total} responses (${load.non2xx} non-2xx), ${load.errors} errors, ${load.timeouts} timeouts; ${Math.round(load.requests.average)} req/s on average`);
console.log(`gateway: ${sent} responses sent, ${cutShort} cut short; analytics: ${stored} entries stored, ${dropped} dropped`);
console.log(stored === sent + cutShort ? 'OK: one stored entry per response' : `MISMATCH: ${stored - sent - cutShort} entries`);
process.exit(stored === sent + cutShort ? 0 : 1);

/** A fixed small JSON answer on a loopback port, in its own process. */
async function startUpstream(): Promise<{ port: number; process: ChildProcess }> {
  const code = `const s=require('node:http').createServer((q,r)=>{q.resume();q.on('end',()=>{r.writeHead(200,{'content-type':'application/json','content-length':11});r.end('{"ok":true}')})});s.keepAliveTimeout=60000;s.listen(0,'127.0.0.1',()=>console.log(s.address().port))`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return { port: Number(chunk.toString().trim()), process: child };
}

interface AutocannonResult {
  requests: { total: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

async function autocannon(args: string[]): Promise<AutocannonResult> {
  const child = spawn(packagePath('node_modules', '.bin', 'autocannon'), args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await once(child, 'exit');
  return JSON.parse(output) as AutocannonResult;
}
