import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { entriesCsv } from '../../src/analytics/csv.js';
import { FIELDS } from '../../src/analytics/fields.js';
import type { AnalyticsEntry } from '../../src/analytics/log-entry.js';
import { AnalyticsQueries } from '../../src/analytics/log-queries.js';
import { parseLogQuery, type LogQuery } from '../../src/analytics/query/log-query.js';
import { CSV_BATCH_ROWS } from '../../src/analytics/reader-protocol.js';
import { ReaderThread } from '../../src/analytics/reader-thread.js';
import { AnalyticsWriter } from '../../src/analytics/writer.js';
import { openStore, type Db } from '../../src/store/db.js';
import { seedAnalytics } from '../../scripts/seed-analytics.js';
import { tempDir } from '../helpers/config.js';
import { DAY, entry, T0, tempStore } from './fixtures.js';

const NOW = T0 + 3_600_000;
const readers: ReaderThread[] = [];

afterEach(async () => {
  await Promise.all(readers.splice(0).map((reader) => reader.stop()));
});

function readerOf(db: Db): ReaderThread {
  const reader = new ReaderThread(dirname(db.name));
  readers.push(reader);
  return reader;
}

function storeWith(entries: AnalyticsEntry[]): Db {
  const db = tempStore();
  new AnalyticsWriter(db).writeEntries(entries);
  return db;
}

function view(params: Record<string, unknown>): LogQuery {
  const parsed = parseLogQuery({ range: 'last_7_days', query: '[]', ...params }, NOW);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.query;
}

/** `count` entries a millisecond apart, newest at T0. */
function timeline(count: number): AnalyticsEntry[] {
  return Array.from({ length: count }, (_, index) => entry({ request_id: `t${index}`, request_at: T0 - index, user_id: `u${index % 7}` }));
}

/** Every CSV line ends with a newline. */
const lineCount = (text: string | null) => (text === null ? 0 : text.split('\n').length - 1);

async function csvText(reader: ReaderThread, query: LogQuery): Promise<string> {
  let text = '';
  for await (const chunk of await entriesCsv(reader, query)) text += String(chunk);
  return text;
}

describe('analytics reader thread: the same answers as the queries on the main thread', () => {
  const db = storeWith([
    entry({ request_id: 'a', request_at: T0, user_id: 'u1', user_email: 'one@example.com', response_time: 5 }),
    entry({ request_id: 'b', request_at: T0 - DAY, user_id: 'u2', user_email: 'two@example.com', request_ip: '192.0.2.9', response_time: 50 }),
    entry({ request_id: 'c', request_at: T0 - 2 * DAY, user_id: 'u1', user_email: 'one@example.com', request_path: '/energy', response_time: 7 }),
    entry({ request_id: 'd', request_at: T0 - 3 * DAY, user_id: null, user_email: null, gatekeeper_denied_code: 'api_key_missing' }),
  ]);
  const queries = new AnalyticsQueries(db);
  const views = [
    view({}),
    view({ query: undefined }),
    view({ search: 'energy' }),
    view({ query: JSON.stringify([{ field: 'response_time', operator: 'greater', value: 6 }]), order: 'response_time:asc', start: '1', length: '1' }),
  ];

  it.each(views.map((query, index) => [index, query] as const))('view %i: count, entries, summary and users', async (_, query) => {
    const reader = readerOf(db);
    expect(await reader.count(query)).toBe(queries.count(query));
    expect(await reader.entries(query)).toEqual(queries.entries(query));
    expect(await reader.summary(query)).toEqual(queries.summary(query));
    const byUsers = { ...query, usersOrder: { field: 'user_email', direction: 'asc' } } as const;
    expect(await reader.users(byUsers)).toEqual(queries.users(byUsers));
  });

  it('answers queries sent together, each with its own answer', async () => {
    const reader = readerOf(db);
    const answers = await Promise.all(views.map((query) => reader.count(query)));
    expect(answers).toEqual(views.map((query) => queries.count(query)));
  });
});

describe('analytics reader thread: the main event loop', () => {
  it('keeps turning while a large summary is computed', async () => {
    const db = tempStore();
    seedAnalytics(db, { count: 50_000, days: 7, endAt: NOW });
    const reader = readerOf(db);
    // Every row read: a search over four columns, the chart a range scan per day.
    const heavy = view({ search: 'example' });
    await reader.count(view({})); // the thread is up: what follows measures the query only
    let turns = 0;
    const turn = (): void => {
      turns++;
      if (!settled) setImmediate(turn);
    };
    let settled = false;
    const summary = reader.summary(heavy).finally(() => (settled = true));
    setImmediate(turn);
    const answer = await summary;
    // On the main thread the summary would have returned before any callback could run.
    expect(turns).toBeGreaterThan(0);
    expect(answer.hits).toBeGreaterThan(40_000);
  });
});

describe('analytics reader thread: CSV in batches', () => {
  it('streams more rows than one batch, complete and newest first', async () => {
    const entries = timeline(2 * CSV_BATCH_ROWS + 500);
    const reader = readerOf(storeWith(entries));
    const lines = (await csvText(reader, view({}))).trim().split('\n');
    expect(lines[0]).toBe(FIELDS.map((info) => info.name).join(','));
    expect(lines.slice(1).map((line) => line.split(',')[1])).toEqual(entries.map((e) => e.request_id));
    expect(await reader.openCsvCursors()).toBe(0);
  });

  it('answers the header line alone when nothing matches', async () => {
    const reader = readerOf(storeWith(timeline(3)));
    expect(await csvText(reader, view({ search: 'nothing like it' }))).toBe(`${FIELDS.map((info) => info.name).join(',')}\n`);
  });

  it('ends when the rows end exactly on a batch boundary', async () => {
    const entries = timeline(2 * CSV_BATCH_ROWS);
    const reader = readerOf(storeWith(entries));
    const cursor = reader.openCsv(view({}));
    const lines: number[] = [];
    for (let text = await cursor.next(); text !== null; text = await cursor.next()) lines.push(lineCount(text));
    // The header line comes first.
    expect(lines).toEqual([CSV_BATCH_ROWS + 1, CSV_BATCH_ROWS]);
    expect(await cursor.next()).toBeNull();
  });

  it('stops reading when the consumer stops early', async () => {
    const reader = readerOf(storeWith(timeline(5 * CSV_BATCH_ROWS)));
    const cursor = reader.openCsv(view({}));
    expect(lineCount(await cursor.next())).toBe(CSV_BATCH_ROWS + 1);
    expect(await reader.openCsvCursors()).toBe(1);
    cursor.close();
    expect(await reader.openCsvCursors()).toBe(0);
    expect(await cursor.next()).toBeNull();
  });

  it('closes the cursor when the download stream is destroyed (a client that went away)', async () => {
    const reader = readerOf(storeWith(timeline(5 * CSV_BATCH_ROWS)));
    const csv = await entriesCsv(reader, view({}));
    for await (const _ of csv) break; // leaving the loop destroys the stream
    await finished(csv).catch(() => undefined);
    await expect.poll(() => reader.openCsvCursors()).toBe(0);
  });
});

describe('analytics reader thread: failures', () => {
  it('rejects a failing query and goes on answering in the same thread', async () => {
    const db = storeWith(timeline(3 * CSV_BATCH_ROWS));
    const reader = readerOf(db);
    const cursor = reader.openCsv(view({}));
    expect(lineCount(await cursor.next())).toBe(CSV_BATCH_ROWS + 1);
    const broken = { ...view({}), order: { field: 'no_such_column', direction: 'desc' } } as unknown as LogQuery;
    await expect(reader.entries(broken)).rejects.toThrow(/no such column/);
    expect(await reader.count(view({}))).toBe(3 * CSV_BATCH_ROWS);
    // A restarted thread would not know the cursor.
    expect(lineCount(await cursor.next())).toBe(CSV_BATCH_ROWS);
  });

  it('rejects a CSV whose query fails before any of it is sent (the route answers 500)', async () => {
    const reader = readerOf(storeWith(timeline(3)));
    const broken = { ...view({}), rules: [{ field: 'no_such_field', operator: 'equal', value: 'x' }] } as unknown as LogQuery;
    await expect(entriesCsv(reader, broken)).rejects.toThrow();
    expect(await reader.openCsvCursors()).toBe(0);
    expect(await csvText(reader, view({}))).toContain('t2');
  });

  it('starts the thread again on the next query after it died', async () => {
    const dataDir = join(tempDir('parasol-reader-'), 'data');
    // A file where the data dir should be: the thread cannot open the store and dies.
    writeFileSync(dataDir, 'not a directory');
    const reader = new ReaderThread(dataDir);
    readers.push(reader);
    await expect(reader.count(view({}))).rejects.toThrow(/is not a directory/);
    rmSync(dataDir);
    const db = openStore(dataDir);
    new AnalyticsWriter(db).writeEntries(timeline(3));
    expect(await reader.count(view({}))).toBe(3);
  });

  it('rejects waiting and later queries once stopped', async () => {
    const reader = readerOf(storeWith(timeline(3)));
    const waiting = expect(reader.summary(view({}))).rejects.toThrow('the analytics reader is stopped');
    await reader.stop();
    await waiting;
    await expect(reader.count(view({}))).rejects.toThrow('the analytics reader is stopped');
  });
});

describe('analytics reader thread: process lifetime', () => {
  it('keeps the process alive while an answer is awaited, and not after', async () => {
    const db = storeWith(timeline(3));
    const script = `
      import { ReaderThread } from ${JSON.stringify(new URL('../../src/analytics/reader-thread.ts', import.meta.url).href)};
      import { parseLogQuery } from ${JSON.stringify(new URL('../../src/analytics/query/log-query.ts', import.meta.url).href)};
      const parsed = parseLogQuery({ start_at: '2026-01-01', end_at: '2026-01-31', query: '[]' }, Date.now());
      console.log(await new ReaderThread(process.argv[1]).count(parsed.query));`;
    // Never stopped: the process must still print the answer and exit on its own.
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dirname(db.name)], { timeout: 15_000 });
    expect(stdout.trim()).toBe('3');
  });
});
