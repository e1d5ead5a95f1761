import { describe, expect, it } from 'vitest';
import { batchOf, contextHash, ContextBytes } from '../../src/analytics/entry-batch.js';
import { CONTEXT_FIELDS } from '../../src/analytics/fields.js';
import type { AnalyticsEntry } from '../../src/analytics/log-entry.js';
import { AnalyticsWriter } from '../../src/analytics/writer.js';
import type { Db } from '../../src/store/db.js';
import { DAY, entry, T0, tempStore } from './fixtures.js';

/** The logged fields of every stored entry, by request_id. */
function storedBy(db: Db): Map<string, Record<string, unknown>> {
  const rows = db.prepare(`SELECT request_id, ${CONTEXT_FIELDS.join(', ')} FROM analytics_logs`).all() as Record<string, unknown>[];
  return new Map(rows.map((row) => [row.request_id as string, row]));
}

function contextsOf(db: Db): number {
  return db.prepare('SELECT count(*) FROM analytics_contexts').pluck().get() as number;
}

/** Each entry's context fields as stored, against the entry's own. */
function expectStoredAsRecorded(db: Db, entries: readonly AnalyticsEntry[]): void {
  const stored = storedBy(db);
  for (const recorded of entries) {
    expect(stored.get(recorded.request_id), recorded.request_id).toEqual(Object.fromEntries([['request_id', recorded.request_id], ...CONTEXT_FIELDS.map((name) => [name, recorded[name]])]));
  }
}

/** A client that differs from entry()'s in one context field. */
const VARIANTS: readonly Partial<AnalyticsEntry>[] = [
  { request_method: 'POST' },
  { request_scheme: 'https' },
  { request_ip: '192.0.2.2' },
  { request_user_agent: null },
  { request_user_agent: '' },
  { api_backend_id: 'backend-2' },
  { user_id: null },
  { user_email: '' },
  { api_key_preview: null },
  { request_origin: 'https://app.example.org' },
  { request_origin: '' },
  { response_content_type: 'text/html' },
  { response_content_type: null },
];

describe('request contexts: who called and how, stored once per client', () => {
  it('gives every client its own context, one differing from another in a single field, a null from an empty string', () => {
    expect(new Set(VARIANTS.flatMap(Object.keys))).toEqual(new Set(CONTEXT_FIELDS));
    const db = tempStore();
    const entries = [entry(), ...VARIANTS.map((variant) => entry(variant)), entry()];
    new AnalyticsWriter(db).writeEntries(entries);
    expect(contextsOf(db)).toBe(1 + VARIANTS.length);
    expectStoredAsRecorded(db, entries);
  });

  it('keeps a context per type of answer for a client whose answers alternate between types, not one per request', () => {
    const db = tempStore();
    const types = ['application/json', 'text/csv', 'application/json', 'text/csv', 'application/json'];
    const entries = types.map((type) => entry({ response_content_type: type }));
    new AnalyticsWriter(db).writeEntries(entries);
    expect(contextsOf(db)).toBe(2);
    expectStoredAsRecorded(db, entries);
  });

  it('tells strings apart whose bytes only moved from one field to the next', () => {
    const first = batchOf([entry({ request_user_agent: 'ab', api_backend_id: 'c' })]);
    const second = batchOf([entry({ request_user_agent: 'a', api_backend_id: 'bc' })]);
    expect(contextHash(first, 0)).not.toBe(contextHash(second, 0));
    expect(ContextBytes.of(first, 0).matches(second, 0)).toBe(false);
    expect(ContextBytes.of(first, 0).matches(batchOf([entry({ request_user_agent: 'ab', api_backend_id: 'c' })]), 0)).toBe(true);
  });

  it('compares every byte of a kept context: non-ASCII text, nulls against empty strings, contexts of several KB', () => {
    const long = { request_user_agent: 'u'.repeat(1024), request_origin: `https://${'o'.repeat(1000)}`, user_email: 'zoë@example.com' };
    const kept = ContextBytes.of(batchOf([entry(long)]), 0);
    expect(kept.matches(batchOf([entry(long)]), 0)).toBe(true);
    expect(kept.matches(batchOf([entry({ ...long, user_email: 'zoé@example.com' })]), 0)).toBe(false);
    expect(kept.matches(batchOf([entry({ ...long, request_user_agent: `${'u'.repeat(1023)}v` })]), 0)).toBe(false);
    const withNull = ContextBytes.of(batchOf([entry({ request_origin: null })]), 0);
    expect(withNull.matches(batchOf([entry({ request_origin: '' })]), 0)).toBe(false);
    expect(withNull.matches(batchOf([entry({ request_origin: null })]), 0)).toBe(true);
  });

  it('keeps two clients apart whose strings hash alike, within a batch and across batches', () => {
    // Two user agents (found among 150,000 made-up ones) that give otherwise equal contexts the same 32-bit hash.
    const [a, b] = ['agent-2385415616-72128', 'agent-1746791097-146313'];
    expect(contextHash(batchOf([entry({ request_user_agent: a })]), 0)).toBe(contextHash(batchOf([entry({ request_user_agent: b })]), 0));
    const db = tempStore();
    const writer = new AnalyticsWriter(db);
    const together = [entry({ request_user_agent: a }), entry({ request_user_agent: b }), entry({ request_user_agent: a })];
    writer.writeEntries(together);
    const apart = [entry({ request_user_agent: b })];
    writer.writeEntries(apart);
    // And a writer with nothing cached finds each in the store by its hash and its strings.
    const later = [entry({ request_user_agent: a }), entry({ request_user_agent: b })];
    new AnalyticsWriter(db).writeEntries(later);
    expect(contextsOf(db)).toBe(2);
    expectStoredAsRecorded(db, [...together, ...apart, ...later]);
  });

  it('finds a stored client after a restart instead of adding it again, and moves its last day up', () => {
    const db = tempStore();
    new AnalyticsWriter(db).writeEntries([entry({ request_at: T0 })]);
    new AnalyticsWriter(db).writeEntries([entry({ request_at: T0 + 2 * DAY })]);
    expect(db.prepare('SELECT last_day FROM analytics_contexts').pluck().all()).toEqual([Math.floor(T0 / DAY) + 2]);
    // An older entry arriving late leaves it where it is.
    new AnalyticsWriter(db).writeEntries([entry({ request_at: T0 - DAY })]);
    expect(db.prepare('SELECT last_day FROM analytics_contexts').pluck().all()).toEqual([Math.floor(T0 / DAY) + 2]);
  });

  it('forgets the contexts of a batch that failed, whose rows were rolled back with it', () => {
    const db = tempStore();
    const writer = new AnalyticsWriter(db);
    const client = { request_ip: '198.51.100.4', user_id: 'user-9' };
    // A trigger makes the next insert fail after the batch added its new context.
    db.exec("CREATE TEMP TRIGGER refuse BEFORE INSERT ON analytics_requests WHEN NEW.request_id = 'refused' BEGIN SELECT RAISE(ABORT, 'refused'); END");
    expect(() => writer.writeEntries([entry({ ...client, request_id: 'refused' })])).toThrow('refused');
    expect(contextsOf(db)).toBe(0);
    const kept = [entry({ ...client, request_id: 'kept' })];
    writer.writeEntries(kept);
    expectStoredAsRecorded(db, kept);
  });
});
