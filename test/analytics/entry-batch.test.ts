import { describe, expect, it } from 'vitest';
import { batchOf, EntryBatchBuilder, entryAt, fieldReader, firstEntries, PACKED_ORDER, type EntryBatch } from '../../src/analytics/entry-batch.js';
import type { AnalyticsEntry } from '../../src/analytics/log-entry.js';
import { asReceived, entry } from './fixtures.js';

function entriesOf(batch: EntryBatch): AnalyticsEntry[] {
  return Array.from({ length: batch.count }, (_, index) => entryAt(batch, index));
}

describe('entry batches', () => {
  it('pack every field once', () => {
    expect([...PACKED_ORDER].sort()).toEqual(Object.keys(entry()).sort());
  });

  it('give back every entry as added, nulls included, past the first capacity', () => {
    const entries = Array.from({ length: 300 }, (_, index) =>
      entry({ request_id: `r${index}`, upstream_time: index % 3 === 0 ? null : index / 7, user_id: index % 2 === 0 ? null : `u${index % 5}`, request_url_query: '' }),
    );
    expect(entriesOf(batchOf(entries))).toEqual(entries);
  });

  it('give back any text in paths and queries, however long, byte for byte', () => {
    const entries = Array.from({ length: 5 }, (_, index) => entry({ request_path: `/é/日本/${'x'.repeat(3_000)}/${index}`, request_url_query: `q=${'ü'.repeat(index)}&emoji=😀` }));
    expect(entriesOf(batchOf(entries))).toEqual(entries);
  });

  it('give back short strings byte for byte whether ASCII or not, in every text column (headers as the bytes the client sent)', () => {
    const entries = [
      entry({ request_id: 'ascii-0001', user_email: 'ana@example.com', request_user_agent: 'curl/8.5.0', request_referer: 'https://example.com/a' }),
      entry({ request_id: 'ünï-0002', user_email: 'josé@example.com', request_user_agent: 'Bücher/1.0 日本', request_referer: 'https://例え.jp/' }),
      entry({ request_id: 'ascii-0003', user_email: 'bo@example.com', request_user_agent: 'x'.repeat(64), request_referer: `${'y'.repeat(63)}é` }),
      entry({ request_id: 'long-0004', request_user_agent: `café ${'z'.repeat(100)}` }),
    ];
    expect(entriesOf(batchOf(entries.map(asReceived)))).toEqual(entries);
  });

  it('cut a long user agent or referer before a UTF-8 character the cap would split, never inside it', () => {
    const entries = [
      entry({ request_user_agent: `${'a'.repeat(1023)}é`, request_referer: `${'b'.repeat(2047)}日本` }),
      entry({ request_user_agent: `${'a'.repeat(1022)}é`, request_referer: `${'b'.repeat(2045)}日本` }),
    ];
    const stored = entriesOf(batchOf(entries.map(asReceived)));
    expect(stored.map((each) => [each.request_user_agent, each.request_referer])).toEqual([
      ['a'.repeat(1023), 'b'.repeat(2047)],
      [`${'a'.repeat(1022)}é`, `${'b'.repeat(2045)}日`],
    ]);
  });

  it('write a string that repeats in its column once', () => {
    const batch = batchOf([entry({ request_ip: '192.0.2.9' }), entry({ request_ip: '192.0.2.9' }), entry({ request_ip: '192.0.2.10' })]);
    const text = Buffer.from(batch.bytes).toString('utf8');
    expect(text.split('192.0.2.9').length - 1).toBe(1);
    expect(text.split('192.0.2.10').length - 1).toBe(1);
  });

  it('reuse a stored batch\'s arrays for the next batch, with none of its old values showing', () => {
    const builder = new EntryBatchBuilder();
    const old = Array.from({ length: 100 }, (_, index) => entry({ request_id: `old${index}`, request_path: `/old/${'x'.repeat(200)}`, upstream_time: 5 }));
    for (const item of old) builder.add(item);
    const stored = builder.take();
    builder.reuse(stored);
    // The batch being filled when the stored one came back is taken as usual; the one after it lives in the stored arrays.
    for (const item of old) builder.add(item);
    expect(builder.take().numbers.buffer).not.toBe(stored.numbers.buffer);
    const fresh = Array.from({ length: 60 }, (_, index) => entry({ request_id: `new${index}`, request_path: '/n', upstream_time: null, user_id: null }));
    for (const item of fresh) builder.add(item);
    const reused = builder.take();
    expect(reused.numbers.buffer).toBe(stored.numbers.buffer);
    expect(reused.spans.buffer).toBe(stored.spans.buffer);
    expect(reused.bytes.buffer).toBe(stored.bytes.buffer);
    expect(entriesOf(reused)).toEqual(fresh);
  });

  it('reuse every batch handed back while a batch fills, not only the last', () => {
    const builder = new EntryBatchBuilder();
    const fill = (tag: string) => {
      for (let index = 0; index < 100; index++) builder.add(entry({ request_id: `${tag}${index}` }));
    };
    fill('a');
    const first = builder.take();
    fill('b');
    const second = builder.take();
    builder.reuse(first);
    builder.reuse(second);
    fill('c');
    builder.take();
    fill('d');
    const third = builder.take();
    fill('e');
    const fourth = builder.take();
    expect(new Set([third.numbers.buffer, fourth.numbers.buffer])).toEqual(new Set([first.numbers.buffer, second.numbers.buffer]));
    expect(entriesOf(fourth).map((item) => item.request_id)).toEqual(Array.from({ length: 100 }, (_, index) => `e${index}`));
  });

  it('keep no room and no batch for reuse past 4 MB of text, so a burst of long URLs leaves no lasting memory', () => {
    const builder = new EntryBatchBuilder();
    const long = Array.from({ length: 600 }, (_, index) => entry({ request_id: `l${index}`, request_path: `/${index}/${'p'.repeat(4_000)}`, request_url_query: `q=${index}${'ü'.repeat(3_000)}` }));
    for (const item of long) builder.add(item);
    const huge = builder.take();
    expect(huge.bytes.length).toBeGreaterThan(4 * 1024 * 1024);
    builder.reuse(huge);
    builder.add(entry({ request_id: 'small' }));
    const next = builder.take();
    expect(next.bytes.length).toBeLessThanOrEqual(4 * 1024 * 1024);
    builder.add(entry({ request_id: 'after' }));
    const after = builder.take();
    expect(after.bytes.buffer).not.toBe(huge.bytes.buffer);
    expect(entriesOf(huge)).toEqual(long);
  });

  it('allocate afresh when the spare batch is too small for the load', () => {
    const builder = new EntryBatchBuilder();
    builder.add(entry());
    const small = builder.take();
    const many = Array.from({ length: 500 }, (_, index) => entry({ request_id: `r${index}` }));
    for (const item of many) builder.add(item);
    builder.reuse(small);
    const large = builder.take();
    for (const item of many) builder.add(item);
    const next = builder.take();
    expect(next.numbers.buffer).not.toBe(small.numbers.buffer);
    expect(next.numbers.length).toBeGreaterThanOrEqual(large.count * 7);
    expect(entriesOf(next)).toEqual(many);
  });

  it('cut long client-controlled strings to their caps', () => {
    const [stored] = entriesOf(batchOf([entry({ request_user_agent: 'a'.repeat(5_000), request_url_query: `q=${'x'.repeat(9_000)}` })]));
    expect(stored!.request_user_agent).toHaveLength(1024);
    expect(stored!.request_url_query).toHaveLength(4096);
  });

  it('start empty again after take()', () => {
    const builder = new EntryBatchBuilder();
    builder.add(entry({ request_id: 'first' }));
    expect(builder.take().count).toBe(1);
    builder.add(entry({ request_id: 'second' }));
    const batch = builder.take();
    expect(entriesOf(batch).map((stored) => stored.request_id)).toEqual(['second']);
    expect(builder.size).toBe(0);
  });

  it('read a single field without the others', () => {
    const batch = batchOf([entry({ request_at: 5, user_email: null }), entry({ request_at: 6, user_email: 'b@example.com' })]);
    expect([0, 1].map((index) => fieldReader('request_at')(batch, index))).toEqual([5, 6]);
    expect([0, 1].map((index) => fieldReader('user_email')(batch, index))).toEqual([null, 'b@example.com']);
    expect(fieldReader('request_id')(batch, 1)).toBe(entriesOf(batch)[1]!.request_id);
  });

  it('cut a batch to its first entries', () => {
    const entries = [entry({ request_id: 'a' }), entry({ request_id: 'b' }), entry({ request_id: 'c' })];
    expect(entriesOf(firstEntries(batchOf(entries), 2))).toEqual(entries.slice(0, 2));
    expect(firstEntries(batchOf(entries), 0).count).toBe(0);
  });
});
