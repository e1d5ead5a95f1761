import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AnalyticsLog } from '../../src/analytics/analytics-log.js';
import { batchOf, entryAt, type EntryBatch } from '../../src/analytics/entry-batch.js';
import { WriterThread } from '../../src/analytics/writer-thread.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { Config } from '../../src/config/schema.js';
import type { Db } from '../../src/store/db.js';
import { asReceived, DAY, entry, storedCount, T0, tempStore } from './fixtures.js';

const SCHED_IDLE = 5;

/** Field 41 of /proc/<pid>/task/<tid>/stat, counted after the command name (which may hold spaces). */
function schedulingPolicyOf(task: string): number {
  const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[38]);
}

const silent = pino({ level: 'silent' });
const open: AnalyticsLog[] = [];

function analyticsLog(db: Db, config: Partial<Config['analytics']> = {}, logger = silent, clock = new ManualClock(T0)): AnalyticsLog {
  const log = new AnalyticsLog({
    db,
    dataDir: dirname(db.name),
    config: { enabled: true, flush_interval_ms: 60_000, max_buffer: 100_000, retention_days: 90, geoip_file: null, ...config },
    logger,
    clock,
  });
  open.push(log);
  return log;
}

afterEach(() => {
  for (const log of open.splice(0)) log.close();
});

describe('analytics log: buffer and writer', () => {
  it('keeps recorded entries in memory until a flush writes them all', () => {
    const db = tempStore();
    const log = analyticsLog(db);
    log.record(entry());
    log.record(entry());
    expect(storedCount(db)).toBe(0);
    expect(log.pending).toBe(2);
    expect(log.flush()).toBe(2);
    expect(storedCount(db)).toBe(2);
    expect(log.pending).toBe(0);
  });

  it('stores every field as recorded', () => {
    const db = tempStore();
    const log = analyticsLog(db);
    const recorded = entry({ request_referer: 'https://example.org/', upstream_time: null, gatekeeper_denied_code: 'api_key_missing', response_time: 1.234 });
    log.record(recorded);
    log.flush();
    const row = db.prepare('SELECT * FROM analytics_logs').get() as Record<string, unknown>;
    expect(row).toEqual({ id: 1, context_id: 1, ...recorded });
  });

  it('stores every text field as TEXT, byte for byte: other scripts, emoji, empty strings, nulls', () => {
    const db = tempStore();
    const log = analyticsLog(db);
    const recorded = [
      entry({ request_path: '/é/日本/😀', request_url_query: '', request_user_agent: 'Mozilla/5.0 (ü)', user_email: null, request_referer: '' }),
      entry({ request_path: '/é/日本/😀', request_url_query: 'q=%C3%BC&x=ü', request_user_agent: null, user_email: 'zoë@example.com', request_referer: '' }),
    ];
    for (const item of recorded) log.record(asReceived(item));
    log.flush();
    const rows = db.prepare('SELECT * FROM analytics_logs ORDER BY id').all() as Record<string, unknown>[];
    expect(rows).toEqual(recorded.map((item, index) => ({ id: index + 1, context_id: expect.any(Number), ...item })));
    const types = db.prepare("SELECT DISTINCT typeof(request_path), typeof(request_url_query), typeof(request_referer), typeof(request_id) FROM analytics_logs").raw().all();
    expect(types).toEqual([['text', 'text', 'text', 'text']]);
    expect(db.prepare("SELECT count(*) FROM analytics_logs WHERE request_path = '/é/日本/😀' AND request_url_query = ''").pluck().get()).toBe(1);
  });

  it('stores a run of one client\'s entries and mixed entries alike, in order, text as TEXT', () => {
    const db = tempStore();
    const log = analyticsLog(db);
    const client = { request_user_agent: 'Mozilla/5.0 (ü)', request_referer: '', user_email: null, gatekeeper_denied_code: 'over_rate_limit' };
    const own = (index: number) => ({ request_path: `/p/${index}/日本`, request_url_query: index % 3 === 0 ? '' : `i=${index}`, response_time: index / 7, upstream_time: index % 5 === 0 ? null : index });
    const recorded = [
      // Fifty from one client, bound once: nulls, empty strings and non-ASCII text in the shared fields.
      ...Array.from({ length: 50 }, (_, index) => entry({ ...client, ...own(index) })),
      // Fifty where one differs from the others in a single shared field.
      ...Array.from({ length: 50 }, (_, index) => entry({ ...client, ...own(index), request_user_agent: index === 25 ? 'other/1.0' : client.request_user_agent })),
      // Fifty from another client, then a few more than a whole insert.
      ...Array.from({ length: 57 }, (_, index) => entry({ ...own(index), request_ip: '198.51.100.7', user_id: 'user-2', user_email: 'two@example.com' })),
    ];
    for (const item of recorded) log.record(asReceived(item));
    log.flush();
    const rows = db.prepare('SELECT * FROM analytics_logs ORDER BY id').all() as Record<string, unknown>[];
    expect(rows).toEqual(recorded.map((item, index) => ({ id: index + 1, context_id: expect.any(Number), ...item })));
    // One context per client: the first, the one user agent that differs from it, the second client.
    expect(db.prepare('SELECT context_id, count(*) FROM analytics_logs GROUP BY context_id ORDER BY context_id').raw().all()).toEqual([[1, 99], [2, 1], [3, 57]]);
    const types = db.prepare("SELECT DISTINCT typeof(request_method), typeof(request_user_agent), typeof(request_referer), typeof(request_id), typeof(request_path) FROM analytics_logs WHERE user_id = 'user-1'").raw().all();
    expect(types).toEqual([['text', 'text', 'text', 'text', 'text']]);
  });

  it('starts the writer thread on start(), before any entry, which would otherwise wait for it', async () => {
    const idle = analyticsLog(tempStore());
    const started = analyticsLog(tempStore());
    started.start();
    await expect.poll(() => started.writerReady, { timeout: 2_000, interval: 10 }).toBe(true);
    expect(idle.writerReady).toBe(false);
  });

  it('flushes on its own within flush_interval_ms, through the writer thread', async () => {
    const db = tempStore();
    const log = analyticsLog(db, { flush_interval_ms: 50 });
    log.record(entry());
    await expect.poll(() => storedCount(db), { timeout: 1_000, interval: 10 }).toBe(1);
    // The thread reports the batch settled just after its commit, which a reader may see first.
    await expect.poll(() => log.pending, { timeout: 1_000, interval: 10 }).toBe(0);
  });

  it('hands the writer thread two batches at most: while it is held up, later entries wait in the buffer and go when one comes back', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'setTimeout', 'setImmediate'] });
    try {
      const db = tempStore();
      const lines: string[] = [];
      const log = analyticsLog(db, { flush_interval_ms: 20 }, pino({ level: 'error' }, { write: (line: string) => lines.push(line) }));
      log.start();
      await expect.poll(() => log.writerReady, { timeout: 2_000, interval: 10 }).toBe(true);
      // The writer's first transaction waits for this one's lock.
      db.exec('BEGIN IMMEDIATE');
      for (const id of ['a', 'b', 'c', 'd']) {
        log.record(entry({ request_id: id }));
        vi.advanceTimersByTime(20);
      }
      expect(log.atWriter).toBe(2);
      expect(log.pending).toBe(4);
      db.exec('COMMIT');
      await expect.poll(() => storedCount(db), { timeout: 5_000, interval: 10 }).toBe(4);
      await expect.poll(() => log.pending, { timeout: 1_000, interval: 10 }).toBe(0);
      // It waited for the lock: a batch that first read (its client's context) did not fail on it.
      expect(lines).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('waits for a write another connection holds instead of failing the batch, though the batch reads first (a new client context)', async () => {
    const db = tempStore();
    const lines: string[] = [];
    const log = analyticsLog(db, { flush_interval_ms: 10 }, pino({ level: 'error' }, { write: (line: string) => lines.push(line) }));
    log.start();
    await expect.poll(() => log.writerReady, { timeout: 2_000, interval: 10 }).toBe(true);
    // An admin's write on the main thread, as the writer's batch comes: 300 ms is the write's length, not a wait for the writer.
    db.exec('BEGIN IMMEDIATE');
    log.record(entry());
    await expect.poll(() => log.atWriter, { timeout: 1_000, interval: 5 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    db.exec('COMMIT');
    await expect.poll(() => storedCount(db), { timeout: 5_000, interval: 10 }).toBe(1);
    // A deferred transaction that has read cannot wait for the lock: SQLite answers SQLITE_BUSY at once.
    expect(lines).toEqual([]);
  });

  it.runIf(process.platform === 'linux' && existsSync('/usr/bin/chrt'))('runs the writer thread under SCHED_IDLE, so it only takes CPU the proxy leaves', async () => {
    const before = new Set(readdirSync('/proc/self/task'));
    const db = tempStore();
    const log = analyticsLog(db, { flush_interval_ms: 20 });
    log.record(entry());
    await expect.poll(() => storedCount(db), { timeout: 2_000, interval: 10 }).toBe(1);
    const started = readdirSync('/proc/self/task').filter((task) => !before.has(task));
    expect(started.filter((task) => schedulingPolicyOf(task) === SCHED_IDLE)).toHaveLength(1);
  });

  it('gets a batch the writer thread could not store back, and stores it once the store recovers', async () => {
    const db = tempStore();
    const lines: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => lines.push(line) });
    const log = analyticsLog(db, { flush_interval_ms: 20 }, logger);
    // Up first: a thread that cannot even prepare its statements dies, and is started again (writer-restart.test.ts).
    log.start();
    await expect.poll(() => log.writerReady, { timeout: 2_000, interval: 10 }).toBe(true);
    db.exec('ALTER TABLE analytics_ip_days RENAME TO broken');
    log.record(entry({ request_id: 'retried' }));
    await expect.poll(() => lines.some((line) => line.includes('writing entries failed')), { timeout: 2_000, interval: 10 }).toBe(true);
    expect(storedCount(db)).toBe(0);
    expect(log.pending).toBe(1);
    db.exec('ALTER TABLE broken RENAME TO analytics_ip_days');
    await expect.poll(() => storedCount(db), { timeout: 2_000, interval: 10 }).toBe(1);
  });

  it('past max_buffer drops new entries and counts them, keeping the oldest', () => {
    const db = tempStore();
    const log = analyticsLog(db, { max_buffer: 3 });
    for (let i = 0; i < 5; i++) log.record(entry({ request_id: `r${i}` }));
    expect(log.pending).toBe(3);
    expect(log.dropped).toBe(2);
    log.flush();
    expect(db.prepare('SELECT request_id FROM analytics_logs ORDER BY id').pluck().all()).toEqual(['r0', 'r1', 'r2']);
    log.record(entry());
    expect(log.pending).toBe(1);
  });

  it('logs the number of dropped entries', () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const log = analyticsLog(tempStore(), { max_buffer: 1 }, logger);
    log.record(entry());
    log.record(entry());
    log.close();
    expect(lines.map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ msg: 'analytics: buffer full, entries dropped', dropped_total: 1 })]);
  });

  it('caps long client-controlled fields', () => {
    const db = tempStore();
    const log = analyticsLog(db);
    log.record(entry({ request_user_agent: 'x'.repeat(5_000), request_path: `/${'p'.repeat(10_000)}` }));
    log.flush();
    const row = db.prepare('SELECT length(request_user_agent) AS agent, length(request_path) AS path FROM analytics_logs').get();
    expect(row).toEqual({ agent: 1024, path: 4096 });
  });

  it('close() writes everything still buffered; later entries count as dropped', () => {
    const db = tempStore();
    const log = analyticsLog(db);
    for (let i = 0; i < 12_000; i++) log.record(entry());
    log.close();
    expect(storedCount(db)).toBe(12_000);
    log.record(entry());
    expect(log.dropped).toBe(1);
  });

  it('keeps a batch that failed to write and writes it once the store recovers', () => {
    const db = tempStore();
    const log = analyticsLog(db);
    log.record(entry({ request_id: 'kept' }));
    db.exec('ALTER TABLE analytics_ip_days RENAME TO broken');
    expect(log.flush()).toBe(0);
    expect(storedCount(db)).toBe(0);
    expect(log.pending).toBe(1);
    db.exec('ALTER TABLE broken RENAME TO analytics_ip_days');
    expect(log.flush()).toBe(1);
    expect(db.prepare('SELECT request_id FROM analytics_logs').pluck().get()).toBe('kept');
  });

  it('logs a store that keeps failing (a full disk) once, then once a minute with a count, and when it works again', () => {
    const db = tempStore();
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const clock = new ManualClock(T0);
    const log = analyticsLog(db, {}, logger, clock);
    log.record(entry());
    db.exec('ALTER TABLE analytics_ip_days RENAME TO broken');
    for (let flush = 0; flush < 3; flush++) log.flush();
    expect(lines.map((line) => [line.msg, line.failures])).toEqual([['analytics: writing entries failed; will retry', 1]]);
    clock.advance(60_000);
    log.flush();
    expect(lines.at(-1)).toMatchObject({ msg: 'analytics: writing entries failed; will retry', failures: 3, pending: 1 });
    db.exec('ALTER TABLE broken RENAME TO analytics_ip_days');
    log.flush();
    expect(lines.at(-1)).toMatchObject({ msg: 'analytics: writing entries works again', failures: 4 });
    expect(lines).toHaveLength(3);
  });

  it('says how many entries are lost when the store still fails as it stops', () => {
    const db = tempStore();
    const lines: Record<string, unknown>[] = [];
    const log = analyticsLog(db, {}, pino({ level: 'error' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) }));
    for (let i = 0; i < 3; i++) log.record(entry());
    db.exec('ALTER TABLE analytics_ip_days RENAME TO broken');
    log.close();
    expect(lines.at(-1)).toMatchObject({ msg: 'analytics: entries could not be written before stopping and are lost', entries: 3 });
  });

  it('records nothing when analytics.enabled is false', () => {
    const db = tempStore();
    const log = analyticsLog(db, { enabled: false });
    log.record(entry());
    log.close();
    expect(storedCount(db)).toBe(0);
  });

  it('keeps daily hits per user and per IP beside the rows', () => {
    const db = tempStore();
    const log = analyticsLog(db);
    log.record(entry({ request_at: T0, user_id: 'u1', request_ip: '192.0.2.1' }));
    log.record(entry({ request_at: T0 + 5, user_id: 'u1', request_ip: '192.0.2.2' }));
    log.flush();
    log.record(entry({ request_at: T0 + 10, user_id: 'u1', request_ip: '192.0.2.1', gatekeeper_denied_code: 'over_rate_limit' }));
    log.record(entry({ request_at: T0 + 20, user_id: null, user_email: null, request_ip: '192.0.2.1' }));
    log.flush();
    expect(db.prepare('SELECT denied, user_id, hits, last_request_at FROM analytics_user_days ORDER BY denied').all()).toEqual([
      { denied: 0, user_id: 'u1', hits: 2, last_request_at: T0 + 5 },
      { denied: 1, user_id: 'u1', hits: 1, last_request_at: T0 + 10 },
    ]);
    expect(db.prepare('SELECT denied, request_ip, hits FROM analytics_ip_days ORDER BY denied, request_ip').all()).toEqual([
      { denied: 0, request_ip: '192.0.2.1', hits: 2 },
      { denied: 0, request_ip: '192.0.2.2', hits: 1 },
      { denied: 1, request_ip: '192.0.2.1', hits: 1 },
    ]);
  });

  it('counts runs of one client and interleaved clients alike, apart by day and by denial', () => {
    const db = tempStore();
    const log = analyticsLog(db);
    const a = { user_id: 'a', user_email: 'a@example.com', request_ip: '192.0.2.1' };
    const b = { user_id: 'b', user_email: 'b@example.com', request_ip: '192.0.2.2' };
    for (const [client, at, denied] of [[a, 0, null], [a, 1, null], [b, 2, null], [a, 3, null], [a, DAY, null], [a, DAY + 1, 'over_rate_limit'], [a, DAY + 2, null]] as const) {
      log.record(entry({ ...client, request_at: T0 + at, gatekeeper_denied_code: denied }));
    }
    log.flush();
    const day = Math.floor(T0 / DAY);
    expect(db.prepare('SELECT day, denied, user_id, hits, last_request_at FROM analytics_user_days ORDER BY day, denied, user_id').all()).toEqual([
      { day, denied: 0, user_id: 'a', hits: 3, last_request_at: T0 + 3 },
      { day, denied: 0, user_id: 'b', hits: 1, last_request_at: T0 + 2 },
      { day: day + 1, denied: 0, user_id: 'a', hits: 2, last_request_at: T0 + DAY + 2 },
      { day: day + 1, denied: 1, user_id: 'a', hits: 1, last_request_at: T0 + DAY + 1 },
    ]);
    expect(db.prepare('SELECT day, denied, request_ip, hits FROM analytics_ip_days ORDER BY day, denied, request_ip').all()).toEqual([
      { day, denied: 0, request_ip: '192.0.2.1', hits: 3 },
      { day, denied: 0, request_ip: '192.0.2.2', hits: 1 },
      { day: day + 1, denied: 0, request_ip: '192.0.2.1', hits: 2 },
      { day: day + 1, denied: 1, request_ip: '192.0.2.1', hits: 1 },
    ]);
  });
});

describe('analytics writer thread', () => {
  it('moves each stored batch back, so the main thread reuses its memory instead of allocating', async () => {
    const db = tempStore();
    const written: EntryBatch[] = [];
    const thread = new WriterThread(dirname(db.name), null, {
      onReady: () => undefined,
      onWritten: (batch) => written.push(batch),
      onFailed: () => undefined,
      onPruned: () => undefined,
      onDied: () => undefined,
      onPruneFailed: () => undefined,
      onGeoIpUnreadable: () => undefined,
    });
    await expect.poll(() => thread.readyToWrite(), { timeout: 5_000, interval: 10 }).toBe(true);
    const entries = [entry({ request_id: 'a' }), entry({ request_id: 'b' })];
    const batch = batchOf(entries);
    const byteLength = batch.bytes.byteLength;
    thread.write(batch);
    await expect.poll(() => written.length, { timeout: 2_000, interval: 10 }).toBe(1);
    thread.stop(2_000);
    expect(storedCount(db)).toBe(2);
    expect(batch.bytes.byteLength).toBe(0);
    expect(written[0]!.bytes.byteLength).toBe(byteLength);
    expect([entryAt(written[0]!, 0), entryAt(written[0]!, 1)]).toEqual(entries);
  });
});
