import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AtMost } from '../../src/lib/at-most.js';

describe('AtMost', () => {
  /** Runs tasks sleeping `ms` each through `queue`: the most that ran at once, the order they ended in, their results. */
  async function runAll(queue: AtMost, durations: number[]) {
    let running = 0;
    let mostAtOnce = 0;
    const order: number[] = [];
    const results = await Promise.all(
      durations.map((ms, index) =>
        queue.run(async () => {
          running++;
          mostAtOnce = Math.max(mostAtOnce, running);
          await sleep(ms);
          order.push(index);
          running--;
          return index * 10;
        }),
      ),
    );
    return { mostAtOnce, order, results };
  }

  it('with a limit of 1, starts each task once the one queued before it has finished, in order', async () => {
    expect(await runAll(new AtMost(1), [30, 5, 20, 1])).toEqual({ mostAtOnce: 1, order: [0, 1, 2, 3], results: [0, 10, 20, 30] });
  });

  it('runs as many at once as its limit, starting the others in order as slots free', async () => {
    const { mostAtOnce, order, results } = await runAll(new AtMost(3), [40, 40, 40, 1, 1, 1, 1]);
    expect(mostAtOnce).toBe(3);
    expect(order.slice(0, 3)).not.toContain(3);
    expect(results).toEqual([0, 10, 20, 30, 40, 50, 60]);
  });

  it('passes an error to its own caller only: the next task runs all the same', async () => {
    const queue = new AtMost(1);
    const rejected = queue.run(async () => {
      await sleep(5);
      throw new Error('broken');
    });
    const thrown = queue.run(() => {
      throw new Error('thrown before any promise');
    });
    const next = queue.run(async () => 'ran');
    await expect(rejected).rejects.toThrow('broken');
    await expect(thrown).rejects.toThrow('thrown before any promise');
    await expect(next).resolves.toBe('ran');
    await expect(queue.run(async () => 'and later')).resolves.toBe('and later');
  });
});
