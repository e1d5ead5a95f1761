import { afterEach, describe, expect, it, vi } from 'vitest';
import { OpenWork } from '../../src/lib/open-work.js';

afterEach(() => vi.useRealTimers());

describe('OpenWork', () => {
  it('is idle at once with nothing open', async () => {
    expect(await new OpenWork().idle(1_000)).toBe(true);
  });

  it('tells every waiter once the last open request ends', async () => {
    const work = new OpenWork();
    work.begin();
    work.begin();
    const waiters = [work.idle(60_000), work.idle(60_000)];
    work.end();
    let settled = false;
    void Promise.all(waiters).then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    work.end();
    expect(await Promise.all(waiters)).toEqual([true, true]);
  });

  it('gives up when the timeout passes first', async () => {
    vi.useFakeTimers();
    const work = new OpenWork();
    work.begin();
    const waiting = work.idle(500);
    vi.advanceTimersByTime(500);
    expect(await waiting).toBe(false);
  });
});
