// The memory check's warm-up traffic: `requests` calls spread over the given
// keys and over /svc0/ … /svcN-1/, `connections` at a time. Options come as
// the first IPC message (10,000 keys do not fit in argv).
import { once } from 'node:events';
import { Pool } from 'undici';

interface Options {
  readonly url: string;
  readonly keys: readonly string[];
  readonly backends: number;
  readonly requests: number;
  readonly connections: number;
}

const [options] = (await once(process, 'message')) as [Options];
const pool = new Pool(options.url, { connections: options.connections });
const statuses: Record<string, number> = {};
let next = 0;

async function worker(): Promise<void> {
  for (let index = next++; index < options.requests; index = next++) {
    const response = await pool.request({
      path: `/svc${index % options.backends}/small`,
      method: 'GET',
      headers: { 'x-api-key': options.keys[index % options.keys.length]! },
    });
    await response.body.dump();
    statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
  }
}

await Promise.all(Array.from({ length: options.connections }, worker));
await pool.close();
process.send!({ statuses }, () => process.exit(0));
