// With pretenuring turned off, V8 makes no pretenuring decision however long
// a literal's objects live (V8 traces its decisions with
// --trace-pretenuring-statistics).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const pretenuring = new URL('../../src/lib/pretenuring.ts', import.meta.url).href;

/** Tenure decisions V8 traced in a process whose literals' objects all outlive several young collections. */
async function tenureDecisions(turnedOff: boolean): Promise<number> {
  const script = `
    const { turnOffPretenuring } = await import(${JSON.stringify(pretenuring)});
    if (${turnedOff}) turnOffPretenuring();
    let kept = [];
    const entry = (index) => ({ index, tags: [index], name: 'entry ' + index });
    for (let round = 0; round < 1000; round++) {
      for (let index = 0; index < 1000; index++) kept.push(entry(index));
      if (kept.length > 300000) kept = [];
    }
  `;
  // V8 only tenures a site when the young generation is at its largest: 1 MB gets there at once.
  const { stdout } = await promisify(execFile)(process.execPath, ['--trace-pretenuring-statistics', '--max-semi-space-size=1', '--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: new URL('../..', import.meta.url).pathname,
    timeout: 30_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout.split('\n').filter((line) => line.includes('=> tenure')).length;
}

describe('pretenuring', () => {
  it('is decided for long-lived literals by default (what turning it off is for)', async () => {
    expect(await tenureDecisions(false)).toBeGreaterThan(0);
  });

  it('is never decided once turned off', async () => {
    expect(await tenureDecisions(true)).toBe(0);
  });
});
