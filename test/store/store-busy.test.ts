// Another process holding the store's write lock (a maintenance command, an
// sqlite3 shell) must not freeze the gateway, whose main thread shares the
// proxy's: writes there wait a moment, then answer "busy" in the format of
// what was asked, and the proxy goes on. (A fault review found every proxied
// request held 5 s per admin write, signup or admin page view.)
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFailure } from '../../src/store/db.js';
import { AdminClient, createAdmin } from '../admin-ui/helpers/admin-client.js';
import { echoBackend, send, startProxyFixture, type ProxyFixture } from '../gateway/support.js';
import { submitSignup, VALID_SIGNUP } from '../signup/signup-app.js';

const BETTER_SQLITE3 = createRequire(import.meta.url).resolve('better-sqlite3');

let fx: ProxyFixture;
let admin: AdminClient;
beforeAll(async () => {
  fx = await startProxyFixture();
  await fx.gw.publishBackend(echoBackend(fx.echo));
  await createAdmin(fx.gw.context, 'pages@example.com');
  admin = new AdminClient(fx.gw.app);
  await admin.signIn('pages@example.com');
});
afterAll(() => fx.close());

/** Another process that holds the store's write lock until it is killed. */
async function lockHolder(): Promise<ChildProcess> {
  const store = join(fx.gw.context.config.data_dir, 'parasol.db');
  const script = `const Database = require(${JSON.stringify(BETTER_SQLITE3)}); const db = new Database(${JSON.stringify(store)}); db.exec('BEGIN IMMEDIATE'); console.log('locked'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await once(child.stdout!, 'data');
  return child;
}

describe('a store another process holds', () => {
  it('answers writes "busy" at once, in the asked format, while the proxy and admin pages go on', async () => {
    const holder = await lockHolder();
    try {
      const started = performance.now();
      const [write, proxied] = await Promise.all([
        fx.gw.adminApi('POST', '/users', { user: { email: 'while-locked@example.com', first_name: 'A', last_name: 'B' } }),
        send(fx.gw.url, '/echo/during-lock', { headers: { 'X-Api-Key': fx.apiKey } }),
      ]);
      // Well under the 5 s the main connection used to wait with the proxy's thread.
      expect(performance.now() - started).toBeLessThan(2_500);
      expect(write.status).toBe(503);
      expect(write.headers['retry-after']).toBe('5');
      expect(write.body).toEqual({ error: 'The store is busy: another process is writing to it. Try again in a moment.' });
      expect(proxied.status).toBe(200);

      const signup = await submitSignup(fx.gw.app, { ...VALID_SIGNUP, email: 'page-while-locked@example.com' });
      expect(signup.statusCode).toBe(503);
      expect(signup.headers['content-type']).toMatch(/^text\/html/);
      expect(signup.body).toContain('We could not save your signup just now.');
      expect(signup.body).not.toMatch(/SQLITE|database is locked/);

      // Reading a page does not depend on its session's write.
      expect((await admin.get('/admin/api_users')).statusCode).toBe(200);
    } finally {
      holder.kill();
      await once(holder, 'exit');
    }
    expect((await fx.gw.adminApi('POST', '/users', { user: { email: 'after-lock@example.com', first_name: 'A', last_name: 'B' } })).status).toBe(201);
  });
});

describe('storeFailure', () => {
  it('names what a running gateway meets in the store, and nothing else', () => {
    const failure = (code: string) => storeFailure(Object.assign(new Error(code), { code }));
    expect(failure('SQLITE_BUSY')?.message).toContain('busy');
    expect(failure('SQLITE_FULL')?.message).toBe('The disk holding the store is full. Try again once the operator has freed space.');
    for (const code of ['SQLITE_READONLY', 'SQLITE_IOERR_WRITE', 'SQLITE_CANTOPEN']) expect(failure(code)?.status, code).toBe(503);
    for (const code of ['SQLITE_CONSTRAINT_UNIQUE', 'ECONNRESET']) expect(failure(code), code).toBeNull();
    expect(storeFailure(new Error('no code'))).toBeNull();
  });
});
