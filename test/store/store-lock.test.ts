// SQLite's connections hold a POSIX lock on the store while it is open, which
// is how another program (an older sqlite3 shell, a backup script) knows it
// is not alone and leaves the running gateway's -wal file in place. Such a
// lock belongs to the process and goes when any descriptor of the file
// closes: opening the store again in the process (the analytics threads do)
// must not close one.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, storePath } from '../../src/store/db.js';
import { tempDir } from '../helpers/config.js';

/** The POSIX locks this process holds on the file, as the kernel lists them. */
function locksHeldOn(path: string): number {
  const inode = statSync(path).ino;
  return readFileSync('/proc/locks', 'utf8')
    .split('\n')
    .filter((line) => line.includes(` ${process.pid} `) && line.includes(`:${inode} `)).length;
}

describe('the store\'s lock', () => {
  it('stays held when the store is opened again in the same process', () => {
    const dir = join(tempDir(), 'data');
    const main = openStore(dir);
    main.prepare('SELECT count(*) FROM api_users').get();
    expect(locksHeldOn(storePath(dir))).toBeGreaterThan(0);

    const analytics = openStore(dir);
    expect(locksHeldOn(storePath(dir))).toBeGreaterThan(0);
    analytics.close();
    main.close();
  });
});
