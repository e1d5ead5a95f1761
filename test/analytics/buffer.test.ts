import { describe, expect, it } from 'vitest';
import { AnalyticsBuffer } from '../../src/analytics/buffer.js';
import { entryAt } from '../../src/analytics/entry-batch.js';
import { entry } from './fixtures.js';

describe('analytics buffer', () => {
  it('counts entries held elsewhere (at the writer thread) against max_buffer', () => {
    const buffer = new AnalyticsBuffer(3, 10);
    buffer.holdElsewhere(2);
    buffer.push(entry({ request_id: 'kept' }));
    buffer.push(entry({ request_id: 'dropped' }));
    expect(buffer.size).toBe(1);
    expect(buffer.dropped).toBe(1);
    buffer.holdElsewhere(0);
    buffer.push(entry({ request_id: 'kept too' }));
    expect(buffer.size).toBe(2);
  });

  it('puts back as much of a failed batch as fits beside the entries held elsewhere', () => {
    const buffer = new AnalyticsBuffer(4, 10);
    for (const id of ['a', 'b', 'c']) buffer.push(entry({ request_id: id }));
    const failed = buffer.take()!;
    buffer.holdElsewhere(2);
    buffer.push(entry({ request_id: 'd' }));
    buffer.putBack(failed);
    expect(buffer.dropped).toBe(2);
    const first = buffer.take()!;
    expect(entryAt(first, 0).request_id).toBe('a');
    expect(first.count).toBe(1);
  });

  it('keeps entries in order across packing runs and batches, and counts those not yet packed', () => {
    const buffer = new AnalyticsBuffer(1_000, 100);
    for (let index = 0; index < 150; index++) buffer.push(entry({ request_id: `r${index}` }));
    expect(buffer.size).toBe(150);
    const first = buffer.take()!;
    const second = buffer.take()!;
    expect([first.count, second.count]).toEqual([100, 50]);
    expect([entryAt(first, 0).request_id, entryAt(first, 99).request_id, entryAt(second, 49).request_id]).toEqual(['r0', 'r99', 'r149']);
    expect(buffer.take()).toBeNull();
    expect(buffer.size).toBe(0);
  });
});
