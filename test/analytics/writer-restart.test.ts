// The analytics writer thread dies (an out-of-memory kill, a native fault, a
// store it cannot open): it is started again, after a delay that doubles while
// it keeps dying, and meanwhile entries wait in the buffer; the main thread
// never writes them while the proxy serves.
import { renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import type { Worker } from 'node:worker_threads';
import { pino, type Logger } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { AnalyticsLog } from '../../src/analytics/analytics-log.js';
import type { WriterRestart } from '../../src/analytics/writer-thread.js';
import { systemClock } from '../../src/lib/clock.js';
import type { Db } from '../../src/store/db.js';
import { tempDir } from '../helpers/config.js';
import { entry, storedCount, tempStore } from './fixtures.js';
import { startAnalyticsFixture } from './support.js';

const DIED = 'analytics: writer thread died; entries wait in the buffer until it is started again';
const RESTARTED = 'analytics: writer thread restarted';

type Line = Record<string, unknown> & { msg: string; at: number; stored: number };

/**
 * A logger whose lines carry when they were logged and how many entries the
 * store held at that moment (read as the line is written, synchronously, so
 * before anything the code does after logging it).
 */
function watchingLogger(db: Db): { logger: Logger; lines: Line[]; next(msg: string): Promise<Line> } {
  const lines: Line[] = [];
  const waiting: { msg: string; resolve: (line: Line) => void }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const line = { ...(JSON.parse(chunk.toString('utf8')) as { msg: string }), at: performance.now(), stored: storedCount(db) };
      lines.push(line);
      for (const waiter of waiting.filter((each) => each.msg === line.msg)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(line);
      }
      done();
    },
  });
  const next = (msg: string) => new Promise<Line>((resolve) => waiting.push({ msg, resolve }));
  return { logger: pino({ level: 'info' }, stream), lines, next };
}

const open: AnalyticsLog[] = [];
afterEach(() => {
  for (const log of open.splice(0)) log.close();
});

function analyticsLog(db: Db, logger: Logger, writerRestart: WriterRestart, { dataDir = dirname(db.name), max_buffer = 100_000 } = {}): AnalyticsLog {
  const config = { enabled: true, flush_interval_ms: 10, max_buffer, retention_days: 90, geoip_file: null };
  const log = new AnalyticsLog({ db, dataDir, config, logger, clock: systemClock, writerRestart });
  open.push(log);
  return log;
}

/** Ends the real writer thread from outside, as an out-of-memory kill or a native fault would. */
async function killWriterThread(log: AnalyticsLog): Promise<void> {
  const { worker } = (log as unknown as { thread: { worker: Worker | null } }).thread;
  await worker!.terminate();
}

async function writerUp(log: AnalyticsLog): Promise<void> {
  await expect.poll(() => log.writerReady, { timeout: 10_000, interval: 10 }).toBe(true);
}

describe('a writer thread that died', () => {
  it('is started again, and writes the entries recorded meanwhile; none is written on the main thread', async () => {
    const db = tempStore();
    const { logger, next } = watchingLogger(db);
    const log = analyticsLog(db, logger, { firstMs: 300, maxMs: 1_000 });
    log.start();
    await writerUp(log);
    log.record(entry({ request_id: 'before' }));
    await expect.poll(() => log.pending, { timeout: 10_000, interval: 5 }).toBe(0);
    expect(storedCount(db)).toBe(1);

    const died = next(DIED);
    await killWriterThread(log);
    expect(await died).toMatchObject({ lost: 0, restart_in_ms: 300, deaths: 1 });
    expect(log.writerReady).toBe(false);
    for (let i = 0; i < 100; i++) log.record(entry({ request_id: `meanwhile-${i}` }));

    // Some thirty flush intervals went by without a writer thread: the entries waited in the buffer.
    expect(await next(RESTARTED)).toMatchObject({ deaths: 1, pending: 100, stored: 1 });
    expect(log.writerStatus.deaths).toBe(1);
    await expect.poll(() => storedCount(db), { timeout: 10_000, interval: 10 }).toBe(101);
    await expect.poll(() => log.pending, { timeout: 10_000, interval: 5 }).toBe(0);
    expect(log.dropped).toBe(0);
  });

  it('keeps what comes while it is down within analytics.max_buffer, oldest first, and counts the rest as dropped', async () => {
    const db = tempStore();
    const { logger, next } = watchingLogger(db);
    const log = analyticsLog(db, logger, { firstMs: 200, maxMs: 1_000 }, { max_buffer: 50 });
    log.start();
    await writerUp(log);
    const died = next(DIED);
    await killWriterThread(log);
    await died;
    for (let i = 0; i < 80; i++) log.record(entry({ request_id: `r${String(i).padStart(2, '0')}` }));
    expect(log.pending).toBe(50);
    expect(log.dropped).toBe(30);

    expect(await next(RESTARTED)).toMatchObject({ pending: 50, stored: 0 });
    await expect.poll(() => storedCount(db), { timeout: 10_000, interval: 10 }).toBe(50);
    const ids = db.prepare('SELECT request_id FROM analytics_logs ORDER BY request_id').pluck().all();
    expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => `r${String(i).padStart(2, '0')}`));
  });

  it('that dies at once every time is started again after a delay that doubles up to the longest, and writes once it can', async () => {
    const db = tempStore();
    // The writer thread opens the store of its data_dir: this one is a link to a file, not a directory, so each thread dies as it starts.
    const dir = tempDir();
    writeFileSync(join(dir, 'not-a-directory'), '');
    const dataDir = join(dir, 'data');
    symlinkSync(join(dir, 'not-a-directory'), dataDir);
    const { logger, lines, next } = watchingLogger(db);
    const log = analyticsLog(db, logger, { firstMs: 50, maxMs: 400 }, { dataDir });
    for (let i = 0; i < 10; i++) log.record(entry());
    log.start();

    const deaths = () => lines.filter((line) => line.msg === DIED);
    await expect.poll(() => deaths().length, { timeout: 15_000, interval: 10 }).toBeGreaterThanOrEqual(6);
    // The link now leads to the store, in one step: the next thread starts.
    symlinkSync(dirname(db.name), `${dataDir}.next`);
    renameSync(`${dataDir}.next`, dataDir);
    const restarted = await next(RESTARTED);

    const dead = deaths().slice(0, 6);
    expect(dead.map((line) => line.restart_in_ms)).toEqual([50, 100, 200, 400, 400, 400]);
    expect(dead.map((line) => line.deaths)).toEqual([1, 2, 3, 4, 5, 6]);
    // Each thread started only once the delay the one before announced had passed: no spin.
    for (let i = 1; i < dead.length; i++) expect(dead[i]!.at - dead[i - 1]!.at).toBeGreaterThanOrEqual((dead[i - 1]!.restart_in_ms as number) - 1);
    expect((dead[0]!.err as { message: string }).message).toMatch(/not a directory|ENOTDIR|EEXIST/i);
    // Nothing was written while no thread ran, not even on the main thread.
    expect(deaths().map((line) => line.stored)).toEqual(deaths().map(() => 0));
    expect(restarted).toMatchObject({ pending: 10, stored: 0 });
    await expect.poll(() => storedCount(db), { timeout: 10_000, interval: 10 }).toBe(10);

    // A thread that has stored a batch is not one that dies at once: after it, the first delay again.
    const died = next(DIED);
    await killWriterThread(log);
    expect(await died).toMatchObject({ restart_in_ms: 50 });
  }, 40_000);
});

describe('a writer thread that died, in the admin', () => {
  it('is shown to superusers on Filter Logs and in summary.json, and whether it runs again', async () => {
    const fx = await startAnalyticsFixture();
    try {
      const { analytics } = fx.gw.context;
      await killWriterThread(analytics);
      await expect.poll(() => analytics.writerStatus.deaths, { timeout: 10_000, interval: 10 }).toBe(1);
      // Started again a second later (WRITER_RESTART).
      await writerUp(analytics);
      const { text } = await fx.page('/admin/analytics/logs');
      expect(text).toMatch(/data-testid="writer-deaths">The analytics writer thread died once since start and is started again each time[^<]*It is running now\./);
      const { body } = await fx.stats('/admin/stats/summary.json');
      expect(body.writer_thread).toEqual({ running: true, deaths: 1 });
    } finally {
      await fx.close();
    }
  });
});
