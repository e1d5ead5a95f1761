import { describe, expect, it } from 'vitest';
import { estimateCount, msUntilBelow, windowIndex } from '../../src/rate-limit/sliding-window.js';

describe('sliding-window estimate', () => {
  it('cuts time into fixed windows of the duration', () => {
    expect(windowIndex(0, 1000)).toBe(0);
    expect(windowIndex(999, 1000)).toBe(0);
    expect(windowIndex(1000, 1000)).toBe(1);
    expect(windowIndex(3_600_000 * 5 + 1, 3_600_000)).toBe(5);
  });

  it('adds the previous window weighted by its overlap, rounded down', () => {
    expect(estimateCount(3, 10, 0, 1000)).toBe(13);
    expect(estimateCount(3, 10, 250, 1000)).toBe(3 + 7); // floor(7.5)
    expect(estimateCount(3, 10, 999, 1000)).toBe(3);
    expect(estimateCount(0, 0, 500, 1000)).toBe(0);
  });
});

/** The estimate `ms` from now if nothing else is counted: the current window becomes the previous at its end. */
function estimateLater(ms: number, current: number, previous: number, elapsed: number, duration: number): number {
  const at = elapsed + ms;
  if (at < duration) return estimateCount(current, previous, at, duration);
  if (at < 2 * duration) return estimateCount(0, current, at - duration, duration);
  return 0;
}

describe('time until the estimate falls below the limit', () => {
  it.each([1000, 15_000, 3_600_000])('is the first millisecond at which one more request passes (%i ms windows)', (duration) => {
    let checked = 0;
    for (const limit of [1, 2, 3, 5, 7, 50, 1000]) {
      for (const current of [0, 1, 2, 3, 5, 8, 49, 50, 51, 999, 1000, 1500]) {
        for (const previous of [0, 1, 2, 3, 5, 8, 49, 50, 51, 999, 1000, 1500, 100_000]) {
          for (let elapsed = 0; elapsed < duration; elapsed += Math.floor(duration / 29)) {
            if (estimateCount(current, previous, elapsed, duration) < limit) continue;
            const wait = msUntilBelow(limit, current, previous, elapsed, duration);
            expect(wait).toBeGreaterThan(0);
            expect(estimateLater(wait, current, previous, elapsed, duration)).toBeLessThan(limit);
            expect(estimateLater(wait - 1, current, previous, elapsed, duration)).toBeGreaterThanOrEqual(limit);
            checked += 1;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });
});
