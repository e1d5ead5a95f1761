// What the analytics writer costs per entry, in CPU and in bytes on disk,
// for three kinds of traffic: runs of one client's requests (a batch as the
// proxy bench makes it), a thousand clients taking turns, and a new client
// for every request (the worst case for storing each client once). The
// writer shares the machine's CPU with the proxy, so this is the cost that
// decides the bench's analytics on/off ratio.
//   npm run bench:analytics-writer -- [--batches 40] [--rounds 5]
// Each kind writes --batches batches of 5,000 entries into a fresh store, in
// one thread as the writer thread does; the rounds interleave the kinds and
// the medians are printed.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { batchOf, type EntryBatch } from '../src/analytics/entry-batch.js';
import type { AnalyticsEntry } from '../src/analytics/log-entry.js';
import { AnalyticsWriter } from '../src/analytics/writer.js';
import { openStore } from '../src/store/db.js';

const BATCH = 5_000;
const { values } = parseArgs({ options: { batches: { type: 'string', default: '40' }, rounds: { type: 'string', default: '5' } } });
const batches = Number(values.batches);
const rounds = Number(values.rounds);

type Kind = 'one client' | '1,000 clients' | 'a new client each';
const KINDS: readonly Kind[] = ['one client', '1,000 clients', 'a new client each'];

function entry(index: number, client: number, at: number): AnalyticsEntry {
  return {
    request_id: `01J${index.toString(36).padStart(20, '0')}`,
    request_at: at,
    request_method: 'GET',
    request_scheme: 'http',
    request_host: '127.0.0.1:8080',
    request_path: '/bench/small',
    request_url_query: 'api_key=[REDACTED]',
    request_ip: `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`,
    request_user_agent: 'autocannon/7.15.0',
    request_referer: null,
    request_origin: null,
    request_size: 120,
    response_status: 200,
    response_size: 64,
    response_content_type: 'application/json; charset=utf-8',
    response_time: 0.4 + (index % 7) / 10,
    upstream_time: 0.2,
    gateway_overhead: 0.2 + (index % 7) / 10,
    api_backend_id: '2b1f0c8e-3c55-4b43-9a8e-5f0f8f5a2d11',
    user_id: `6f0d7a52-0000-4000-8000-${client.toString(16).padStart(12, '0')}`,
    user_email: `user${client}@example.com`,
    api_key_preview: `k${client.toString(36).padStart(5, '0')}...`,
    gatekeeper_denied_code: null,
    response_custom1: null,
    response_custom2: null,
    response_custom3: null,
  };
}

function clientOf(kind: Kind, index: number): number {
  if (kind === 'one client') return 1;
  if (kind === '1,000 clients') return index % 1_000;
  return index;
}

function batchesOf(kind: Kind): EntryBatch[] {
  const start = Date.UTC(2026, 10, 27);
  return Array.from({ length: batches }, (_, batch) =>
    batchOf(Array.from({ length: BATCH }, (_, slot) => {
      const index = batch * BATCH + slot;
      return entry(index, clientOf(kind, index), start + index);
    })),
  );
}

/** CPU µs and bytes on disk per entry for one kind, in a fresh store. */
function measure(kind: Kind): { cpu: number; bytes: number } {
  const dir = mkdtempSync(join(tmpdir(), 'parasol-writer-bench-'));
  const db = openStore(join(dir, 'data'));
  db.pragma('cache_size = -2000');
  const writer = new AnalyticsWriter(db);
  const input = batchesOf(kind);
  const before = process.cpuUsage();
  for (const batch of input) writer.write(batch);
  const used = process.cpuUsage(before);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const bytes = statSync(join(dir, 'data', 'parasol.db')).size;
  rmSync(dir, { recursive: true, force: true });
  const entries = batches * BATCH;
  return { cpu: (used.user + used.system) / entries, bytes: bytes / entries };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const results = new Map<Kind, { cpu: number[]; bytes: number[] }>(KINDS.map((kind) => [kind, { cpu: [], bytes: [] }]));
for (let round = 0; round < rounds; round++) {
  for (const kind of KINDS) {
    const { cpu, bytes } = measure(kind);
    results.get(kind)!.cpu.push(cpu);
    results.get(kind)!.bytes.push(bytes);
  }
}
console.log(`${batches} batches of ${BATCH} entries per kind, median of ${rounds} interleaved rounds:`);
for (const [kind, { cpu, bytes }] of results) {
  console.log(`  ${kind.padEnd(18)} ${median(cpu).toFixed(2)} µs CPU an entry, ${Math.round(median(bytes))} bytes an entry on disk`);
}
