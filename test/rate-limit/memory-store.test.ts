import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { MemoryCounterStore } from '../../src/rate-limit/memory-store.js';

describe('in-memory counter store', () => {
  it('counts per key and answers 0 for a key never counted', () => {
    const clock = new ManualClock(0);
    const store = new MemoryCounterStore(clock);
    expect(store.increment('a', 2000)).toBe(1);
    expect(store.increment('a', 2000)).toBe(2);
    expect(store.increment('b', 2000)).toBe(1);
    expect(store.get('a', 2000)).toBe(2);
    expect(store.get('b', 2000)).toBe(1);
    expect(store.get('c', 2000)).toBe(0);
    expect(store.size).toBe(2);
  });

  it('forgets one counter of one window on request, and only that one', () => {
    const store = new MemoryCounterStore(new ManualClock(0));
    store.increment('a', 2000);
    store.increment('a', 4000);
    store.increment('b', 2000);
    store.forget('a', 2000);
    store.forget('never counted', 2000);
    expect([store.get('a', 2000), store.get('a', 4000), store.get('b', 2000), store.size]).toEqual([0, 1, 1, 2]);
    expect(store.increment('a', 2000)).toBe(1);
  });

  it('forgets the windows that have expired when it next adds a counter, and keeps the others', () => {
    const clock = new ManualClock(0);
    const store = new MemoryCounterStore(clock);
    store.increment('short', 1000);
    store.increment('long', 15_000);
    clock.set(999);
    store.increment('second', 15_000);
    expect(store.get('short', 1000)).toBe(1);
    clock.set(1000);
    store.increment('third', 15_000);
    expect(store.get('short', 1000)).toBe(0);
    expect(store.get('long', 15_000)).toBe(1);
    expect(store.size).toBe(3);
    clock.set(15_000);
    store.increment('next', 30_000);
    expect(store.get('long', 15_000)).toBe(0);
    expect(store.size).toBe(1);
  });

  it('starts a fresh count for a key of a window that has expired', () => {
    const clock = new ManualClock(0);
    const store = new MemoryCounterStore(clock);
    store.increment('a', 1000);
    store.increment('a', 1000);
    clock.set(1000);
    expect(store.increment('a', 3000)).toBe(1);
  });

  it('when full, drops the window closest to its end first', () => {
    const clock = new ManualClock(0);
    const store = new MemoryCounterStore(clock, 3);
    store.increment('late', 60_000);
    store.increment('soon-1', 2000);
    store.increment('soon-2', 2000);
    store.increment('soon-1', 2000); // an existing counter takes no room
    expect(store.size).toBe(3);
    store.increment('new', 60_000);
    expect(store.size).toBe(2);
    expect(store.get('soon-1', 2000)).toBe(0);
    expect(store.get('late', 60_000)).toBe(1);
    expect(store.get('new', 60_000)).toBe(1);
  });

  it('stays within the cap under a flood of distinct clients in one window', () => {
    const store = new MemoryCounterStore(new ManualClock(0), 1000);
    for (let client = 0; client < 10_000; client += 1) store.increment(`ip-${client}`, 2000);
    expect(store.size).toBeLessThanOrEqual(1000);
    expect(store.get('ip-9999', 2000)).toBe(1);
  });

  it('gives out the counts of windows ending after a time, and takes back those not ended, within its cap', () => {
    const clock = new ManualClock(0);
    const kept = new MemoryCounterStore(clock);
    kept.increment('short', 2000);
    kept.increment('hourly', 7_200_000);
    kept.increment('hourly', 7_200_000);
    expect([...kept.countsEndingAfter(60_000)]).toEqual([['hourly', 7_200_000, 2]]);

    clock.set(3_000_000);
    const restarted = new MemoryCounterStore(clock, 1);
    restarted.restore('ended', 2000, 5);
    restarted.restore('hourly', 7_200_000, 2);
    restarted.restore('hourly', 7_200_000, 2);
    expect([restarted.size, restarted.get('ended', 2000), restarted.get('hourly', 7_200_000)]).toEqual([1, 0, 2]);
  });

  it('refuses a cap below one counter', () => {
    expect(() => new MemoryCounterStore(new ManualClock(0), 0)).toThrow(RangeError);
  });
});
