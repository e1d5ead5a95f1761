// One Parasol per data_dir, and a crash never keeps the next start out: a pid
// file left behind names a pid that may since belong to anything (after a
// reboot; pid 1 in every container start).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireInstanceLock, InstanceLockedError } from '../../src/store/instance-lock.js';
import { tempDir } from '../helpers/config.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** Another process that runs and is not Parasol. */
function otherProcess(): ChildProcess {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

/** Another process that holds the lock of `dataDir` until killed. */
async function otherParasol(dataDir: string): Promise<ChildProcess> {
  const script = `import('${new URL('../../src/store/instance-lock.ts', import.meta.url).href}').then(({ acquireInstanceLock }) => { acquireInstanceLock(process.argv[1]); console.log('locked'); setInterval(() => {}, 1000); })`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await once(child.stdout!, 'data');
  return child;
}

const pidFile = (dataDir: string) => join(dataDir, 'parasol.pid');

describe('the data_dir lock', () => {
  it('refuses a second Parasol while one runs, naming its pid', async () => {
    const dataDir = tempDir();
    const holder = await otherParasol(dataDir);
    expect(() => acquireInstanceLock(dataDir)).toThrow(InstanceLockedError);
    expect(() => acquireInstanceLock(dataDir)).toThrow(`Parasol is already running with data_dir ${dataDir} (pid ${holder.pid}); stop it first or use another data_dir`);
  });

  it('refuses a second lock in the same process', () => {
    const dataDir = tempDir();
    const lock = acquireInstanceLock(dataDir);
    expect(() => acquireInstanceLock(dataDir)).toThrow(InstanceLockedError);
    lock.release();
    acquireInstanceLock(dataDir).release();
  });

  it('is free at once when its holder is killed, though its pid file stays behind', async () => {
    const dataDir = tempDir();
    const holder = await otherParasol(dataDir);
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    expect(readFileSync(pidFile(dataDir), 'utf8')).toBe(`${holder.pid}\n`);
    const lock = acquireInstanceLock(dataDir);
    expect(readFileSync(pidFile(dataDir), 'utf8')).toBe(`${process.pid}\n`);
    lock.release();
    expect(existsSync(pidFile(dataDir))).toBe(false);
  });

  it('takes over a pid file left by a crash whose pid now belongs to another process', () => {
    const dataDir = tempDir();
    writeFileSync(pidFile(dataDir), `${otherProcess().pid}\n`);
    acquireInstanceLock(dataDir).release();
  });

  it("takes over a pid file that names this very process (a container's Parasol is pid 1 at every start)", () => {
    const dataDir = tempDir();
    writeFileSync(pidFile(dataDir), `${process.pid}\n`);
    acquireInstanceLock(dataDir).release();
  });

  it('takes over a pid file that holds no number', () => {
    const dataDir = tempDir();
    writeFileSync(pidFile(dataDir), 'not a pid\n');
    acquireInstanceLock(dataDir).release();
  });
});
