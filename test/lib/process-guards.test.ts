// A serving process outlives a rejected promise nobody awaited and a throwing
// timer callback, and logs both (with the log's redaction).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const guards = new URL('../../src/lib/process-guards.ts', import.meta.url).href;
const redactions = new URL('../../src/lib/log-redaction.ts', import.meta.url).href;

/** A process with the guards in place (or not) that meets both slips, then says whether it is still there. */
async function runProcess(guarded: boolean): Promise<{ code: number; stdout: string }> {
  const script = `
    import { pino } from 'pino';
    const { guardProcess } = await import(${JSON.stringify(guards)});
    const { LOG_REDACT } = await import(${JSON.stringify(redactions)});
    const logger = pino({ redact: LOG_REDACT });
    if (${guarded}) guardProcess(logger);
    Promise.reject(Object.assign(new Error('lost promise'), { headers: { authorization: 'Bearer SECRET' } }));
    setTimeout(() => { throw new Error('timer threw'); }, 20);
    setTimeout(() => { console.log('still serving'); }, 200);
  `;
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: new URL('../..', import.meta.url).pathname, timeout: 15_000 });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

describe('process guards', () => {
  it('without them Node ends the process at the first slip (what the guards are for)', async () => {
    const { code, stdout } = await runProcess(false);
    expect(code).not.toBe(0);
    expect(stdout).not.toContain('still serving');
  });

  it('log an unhandled rejection and a throwing timer callback, and the process goes on', async () => {
    const { code, stdout } = await runProcess(true);
    expect(code).toBe(0);
    expect(stdout).toContain('still serving');
    const logged = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number; msg: string; err: { message: string } });
    expect(logged.map(({ level, msg, err }) => [level, msg, err.message])).toEqual([
      [50, 'unhandled promise rejection; still serving', 'lost promise'],
      [50, 'uncaught exception; still serving', 'timer threw'],
    ]);
    expect(stdout).not.toContain('SECRET');
  });
});
