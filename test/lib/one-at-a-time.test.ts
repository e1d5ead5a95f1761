import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { OneAtATime } from '../../src/lib/one-at-a-time.js';

describe('OneAtATime', () => {
  it('starts each task once the one queued before it has finished, in order', async () => {
    const queue = new OneAtATime();
    let running = 0;
    let mostAtOnce = 0;
    const order: number[] = [];
    const results = await Promise.all(
      [30, 5, 20, 1].map((ms, index) =>
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
    expect(mostAtOnce).toBe(1);
    expect(order).toEqual([0, 1, 2, 3]);
    expect(results).toEqual([0, 10, 20, 30]);
  });

  it('passes an error to its own caller only: the next task runs all the same', async () => {
    const queue = new OneAtATime();
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
