// The built CLI, run as a user runs it: a child process with a config file.
import { once } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';
import { copyFileSync, existsSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { createContext } from '../../src/context.js';
import { tempDir } from '../helpers/config.js';
import { apiUserInput } from '../helpers/users.js';
import { CERT_FILE, KEY_FILE, OTHER_KEY_FILE, RENEWED_CERT_FILE, RENEWED_KEY_FILE, TEST_CA } from '../helpers/tls.js';
import { parasol, spawnServe, waitFor } from './run-parasol.js';

let dir: string;
let configPath: string;
beforeAll(() => {
  dir = tempDir();
  configPath = join(dir, 'parasol.yml');
  writeFileSync(configPath, `data_dir: ${join(dir, 'data')}\nlisten:\n  host: 127.0.0.1\n  port: 0\nlog_level: warn\n`);
});

describe('parasol CLI', () => {
  it('config check exits 0 for a good config and 1 with one line for a bad one', async () => {
    const good = await parasol(['config', 'check', '--config', configPath]);
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toEqual({ ok: true, config_file: configPath });

    const bad = join(dir, 'bad.yml');
    writeFileSync(bad, 'listen:\n  port: eighty\n');
    const result = await parasol(['config', 'check', '--config', bad]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`parasol: ${bad}: listen.port: expected an integer from 0 to 65535, got "eighty"\n`);
  });

  it('config check refuses what serve would refuse at start-up: a homepage file it cannot read', async () => {
    const missing = join(dir, 'missing-home.html');
    const config = join(dir, 'home.yml');
    writeFileSync(config, `homepage:\n  file: ${missing}\n`);
    const result = await parasol(['config', 'check', '--config', config]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`parasol: ${config}: homepage.file: cannot read ${missing}: no such file (ENOENT)\n`);
  });

  it('serve names the key at fault and where it was set, in one line, when the system refuses its listener', async () => {
    const config = join(dir, 'bad-host.yml');
    writeFileSync(config, `data_dir: ${join(dir, 'bad-host-data')}\nlisten:\n  host: no-such-host.invalid\n  port: 0\n`);
    const result = await parasol(['serve', '--config', config]);
    expect(result.code).toBe(1);
    // ENOTFOUND, or EAI_AGAIN on a machine without a resolver.
    expect(result.stderr.replace('(EAI_AGAIN)', '(ENOTFOUND)')).toBe(`parasol: ${config}: listen.host: no-such-host.invalid does not resolve to an address (ENOTFOUND)\n`);

    // An address of no machine here (TEST-NET-1), set by a variable over the file's.
    const elsewhere = await parasol(['serve', '--config', config], { env: { PARASOL_LISTEN_HOST: '192.0.2.1' } });
    expect(elsewhere).toMatchObject({ code: 1, stderr: 'parasol: environment PARASOL_LISTEN_HOST: listen.host: 192.0.2.1 is not an address of this machine (EADDRNOTAVAIL)\n' });
    // Judged before the store and its secret are made: a first start that cannot listen leaves neither.
    expect(['parasol.db', 'secret_key'].filter((file) => existsSync(join(dir, 'bad-host-data', file)))).toEqual([]);
  });

  it('serve names where a port in use was set: the config file, or the variables over it', async () => {
    const taken = await occupyPort();
    try {
      const config = join(dir, 'taken-port.yml');
      writeFileSync(config, `data_dir: ${join(dir, 'taken-port-data')}\nlisten:\n  host: 127.0.0.1\n  port: ${taken.port}\n`);
      const fromFile = await parasol(['serve', '--config', config]);
      expect(fromFile).toMatchObject({ code: 1, stderr: `parasol: ${config}: listen.port: ${taken.port} is in use on 127.0.0.1 (EADDRINUSE)\n` });

      // The port from a variable, the host from the file: each is named.
      const other = join(dir, 'other-port.yml');
      writeFileSync(other, `data_dir: ${join(dir, 'taken-port-data')}\nlisten:\n  host: 127.0.0.1\n`);
      const overFile = await parasol(['serve', '--config', other], { env: { PARASOL_LISTEN_PORT: String(taken.port) } });
      expect(overFile).toMatchObject({ code: 1, stderr: `parasol: ${other} with environment PARASOL_LISTEN_PORT: listen.port: ${taken.port} is in use on 127.0.0.1 (EADDRINUSE)\n` });

      // No config file at all (none in the working directory either): only the variables.
      const env = { PARASOL_LISTEN_HOST: '127.0.0.1', PARASOL_LISTEN_PORT: String(taken.port), PARASOL_DATA_DIR: join(dir, 'taken-port-data') };
      const fromEnvironment = await parasol(['serve'], { env, cwd: tempDir() });
      expect(fromEnvironment).toMatchObject({
        code: 1,
        stderr: `parasol: environment PARASOL_LISTEN_PORT, PARASOL_LISTEN_HOST: listen.port: ${taken.port} is in use on 127.0.0.1 (EADDRINUSE)\n`,
      });

      // The HTTPS listener's port, after the HTTP one was bound.
      const https = await parasol(['serve', '--config', other], {
        env: { PARASOL_LISTEN_PORT: '0', PARASOL_LISTEN_HTTPS_PORT: String(taken.port), PARASOL_TLS_CERT_FILE: CERT_FILE, PARASOL_TLS_KEY_FILE: KEY_FILE },
      });
      expect(https).toMatchObject({
        code: 1,
        stderr: `parasol: ${other} with environment PARASOL_LISTEN_HTTPS_PORT: listen.https_port: ${taken.port} is in use on 127.0.0.1 (EADDRINUSE)\n`,
      });
    } finally {
      await taken.close();
    }
    // A failed start from outside the checkout can wait out the analytics writer's stop (10 s) before it exits.
  }, 60_000);

  it('serve names where a port it may not bind was set (a user without the privilege; root binds any)', async ({ skip }) => {
    if (await canBind(LOW_PORT)) skip();
    const config = join(dir, 'low-port.yml');
    writeFileSync(config, `data_dir: ${join(dir, 'low-port-data')}\nlisten:\n  host: 127.0.0.1\n`);
    const result = await parasol(['serve', '--config', config], { env: { PARASOL_LISTEN_PORT: String(LOW_PORT) } });
    expect(result).toMatchObject({
      code: 1,
      stderr: `parasol: environment PARASOL_LISTEN_PORT: listen.port: ${LOW_PORT} needs privileges this user lacks (EACCES); use a port from 1024, or see the README's Install\n`,
    });
  });

  it('config check and serve refuse a data_dir that is a file, or lies under one, naming where it was set', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a directory');
    const cases: [string, string][] = [
      [file, `data_dir ${file} is not a directory`],
      [join(file, 'data'), `data_dir ${join(file, 'data')} cannot be created: part of its path is a file`],
    ];
    for (const [dataDir, problem] of cases) {
      const config = join(dir, 'data-dir.yml');
      writeFileSync(config, `data_dir: ${dataDir}\n`);
      for (const command of [['config', 'check'], ['serve']]) {
        const result = await parasol([...command, '--config', config]);
        expect([result.code, result.stderr]).toEqual([1, `parasol: ${config}: ${problem}\n`]);
        const fromEnvironment = await parasol([...command, '--config', config], { env: { PARASOL_DATA_DIR: dataDir } });
        expect([fromEnvironment.code, fromEnvironment.stderr]).toEqual([1, `parasol: environment PARASOL_DATA_DIR: ${problem}\n`]);
      }
    }
  });

  it('config check, serve and the other commands refuse a data_dir that is a link to a directory that is not there, saying so and where it was set', async () => {
    const cwd = tempDir();
    // A link to where the data lives, on a volume not mounted: the link is there, what it points to is not.
    const target = join(cwd, 'unmounted', 'data');
    symlinkSync(target, join(cwd, 'data'));
    const config = join(cwd, 'parasol.yml');
    writeFileSync(config, 'data_dir: ./data\nlisten:\n  host: 127.0.0.1\n  port: 0\n');
    const problem = `data_dir ./data is a symbolic link to ${target}, which does not exist`;

    for (const command of [['config', 'check'], ['serve']]) {
      expect(await parasol([...command, '--config', config], { cwd })).toEqual({ code: 1, stdout: '', stderr: `parasol: ${config}: ${problem}\n` });
    }
    const fromEnvironment = await parasol(['serve', '--config', config], { cwd, env: { PARASOL_DATA_DIR: './data' } });
    expect(fromEnvironment).toMatchObject({ code: 1, stderr: `parasol: environment PARASOL_DATA_DIR: ${problem}\n` });
    // No config file: the default data_dir, ./data, is the one.
    const byDefault = await parasol(['users', 'create-signup-key', '--email', 'a@example.com'], { cwd });
    expect(byDefault).toMatchObject({ code: 1, stderr: `parasol: defaults: ${problem}\n` });
    // The link as a part of the path: data_dir would be made through it.
    const below = await parasol(['config', 'check', '--config', config], { cwd, env: { PARASOL_DATA_DIR: './data/store' } });
    const belowProblem = `data_dir ./data/store cannot be created: ${join(cwd, 'data')} is a symbolic link to ${target}, which does not exist`;
    expect(below).toMatchObject({ code: 1, stderr: `parasol: environment PARASOL_DATA_DIR: ${belowProblem}\n` });
    expect((await parasol(['serve', '--config', config], { cwd, env: { PARASOL_DATA_DIR: './data/store' } })).stderr).toBe(below.stderr);
    expect(existsSync(join(cwd, 'unmounted'))).toBe(false);
  });

  it('config check and serve refuse a data_dir under /proc, which takes no new directories even from root, in the same line', async () => {
    const config = join(dir, 'proc.yml');
    writeFileSync(config, 'data_dir: /proc/parasol-data\nlisten:\n  host: 127.0.0.1\n  port: 0\n');
    const problem = 'data_dir /proc/parasol-data cannot be created: /proc is on a kernel file system (proc), which takes no new directories';
    for (const command of [['config', 'check'], ['serve']]) {
      expect(await parasol([...command, '--config', config])).toEqual({ code: 1, stdout: '', stderr: `parasol: ${config}: ${problem}\n` });
    }
  });

  it('config check refuses an HTTPS listener whose key is not the certificate\'s, in one line naming the key', async () => {
    const config = join(dir, 'tls.yml');
    writeFileSync(config, `listen:\n  https_port: 8443\ntls:\n  cert_file: ${CERT_FILE}\n  key_file: ${OTHER_KEY_FILE}\n`);
    const result = await parasol(['config', 'check', '--config', config]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`parasol: ${config}: tls.key_file: ${OTHER_KEY_FILE} is not the private key of the certificate in tls.cert_file (key values mismatch)\n`);
  });

  it('reads PARASOL_CONFIG like the server does', async () => {
    const result = await parasol(['config', 'check'], { env: { PARASOL_CONFIG: configPath } });
    expect(JSON.parse(result.stdout).config_file).toBe(configPath);
  });

  it('admins create prints one JSON line with a token that works, and refuses a duplicate or a short password', async () => {
    const created = await parasol(['admins', 'create', '--email', 'ops@example.com', '--password', 'a very long password', '--config', configPath]);
    expect(created.code).toBe(0);
    expect(created.stdout.trim().split('\n')).toHaveLength(1);
    const line = JSON.parse(created.stdout);
    expect(line).toEqual({ id: expect.any(String), email: 'ops@example.com', admin_auth_token: expect.stringMatching(/^[A-Za-z0-9]{40}$/) });
    const context = createContext(loadConfig({ configPath, env: {} }).config);
    expect(context.admins.findByToken(line.admin_auth_token)).toMatchObject({ email: 'ops@example.com', superuser: true });
    context.close();

    const duplicate = await parasol(['admins', 'create', '--email', 'ops@example.com', '--password', 'a very long password', '--config', configPath]);
    expect(duplicate.code).toBe(2);
    expect(duplicate.stderr).toMatch(/already exists/);
    const short = await parasol(['admins', 'create', '--email', 'x@example.com', '--password', 'short', '--config', configPath]);
    expect(short.code).toBe(2);
    expect(short.stderr).toBe('parasol: password is too short (minimum is 14 characters)\n');
    const missing = await parasol(['admins', 'create', '--config', configPath]);
    expect(missing.stderr).toBe('parasol: --email is required\n');
  });

  it('admins create waits out another process writing for a few seconds (a serving Parasol waits only one: its proxy shares the thread)', async () => {
    const args = (email: string) => ['admins', 'create', '--email', email, '--password', 'a very long password', '--config', configPath];
    expect((await parasol(args('first-of-two@example.com'))).code).toBe(0);
    const writer = new Database(join(dir, 'data', 'parasol.db'));
    writer.exec('BEGIN IMMEDIATE');
    const released = new Promise<void>((resolve) => setTimeout(() => resolve(void writer.exec('COMMIT')), 2000));
    const created = await parasol(args('patient@example.com'));
    await released;
    writer.close();
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
  });

  it('admins create on a fresh data_dir answers its JSON alone on stdout: what it logs (the store migrated) goes to stderr', async () => {
    const fresh = tempDir();
    const freshConfig = join(fresh, 'parasol.yml');
    writeFileSync(freshConfig, `data_dir: ${join(fresh, 'data')}\nlog_level: info\n`);
    const created = await parasol(['admins', 'create', '--email', 'first@example.com', '--password', 'a very long password', '--config', freshConfig]);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ email: 'first@example.com' });
    expect(created.stderr).toContain('"msg":"store migrated"');
  });

  it('admins reset-password changes the password of an existing admin only', async () => {
    await parasol(['admins', 'create', '--email', 'reset@example.com', '--password', 'first password here', '--config', configPath]);
    const reset = await parasol(['admins', 'reset-password', '--email', 'reset@example.com', '--password', 'second password here', '--config', configPath]);
    expect(reset.code).toBe(0);
    expect(JSON.parse(reset.stdout)).toMatchObject({ email: 'reset@example.com', password_reset: true });
    const unknown = await parasol(['admins', 'reset-password', '--email', 'nobody@example.com', '--password', 'second password here', '--config', configPath]);
    expect(unknown.code).toBe(2);
  });

  it('refuses a bad email or password before it opens the store: a fresh data_dir is not made for nothing', async () => {
    const fresh = tempDir();
    const freshConfig = join(fresh, 'parasol.yml');
    writeFileSync(freshConfig, `data_dir: ${join(fresh, 'data')}\n`);
    for (const args of [
      ['admins', 'create', '--email', 'not an email', '--password', 'a very long password'],
      ['admins', 'create', '--email', 'ops@example.com', '--password', 'short'],
      ['admins', 'reset-password', '--email', 'ops@example.com', '--password', 'short'],
      ['users', 'create-signup-key', '--email', 'embed'],
      // The admin API refuses what is longer: a record made here could not be saved back through it.
      ['admins', 'create', '--email', `${'a'.repeat(300)}@example.com`, '--password', 'a very long password'],
      ['users', 'create-signup-key', '--email', `${'a'.repeat(300)}@example.com`],
    ]) {
      expect((await parasol([...args, '--config', freshConfig])).code, args.join(' ')).toBe(2);
    }
    expect(existsSync(join(fresh, 'data'))).toBe(false);
  });

  it('refuses an email that is not one, as the admin and the signup form do, and creates nothing', async () => {
    const admin = await parasol(['admins', 'create', '--email', 'ops at example.com', '--password', 'a very long password', '--config', configPath]);
    expect(admin).toMatchObject({ code: 2, stdout: '', stderr: 'parasol: --email: "ops at example.com" is not a valid email address\n' });
    const signupKey = await parasol(['users', 'create-signup-key', '--email', 'embed', '--config', configPath]);
    expect(signupKey).toMatchObject({ code: 2, stdout: '', stderr: 'parasol: --email: "embed" is not a valid email address\n' });
    const context = createContext(loadConfig({ configPath, env: {} }).config);
    expect(context.admins.findByEmail('ops at example.com')).toBeNull();
    expect(context.users.countByEmail('embed')).toBe(0);
    context.close();
  });

  it('users delete deletes an API user and its key, which a running gateway stops taking at its next refresh', async () => {
    const running = createContext(loadConfig({ configPath, env: {} }).config);
    const { user, apiKey } = running.users.create(apiUserInput({ email: 'gone@example.com' }), 'test');
    const deleted = await parasol(['users', 'delete', '--id', user.id, '--config', configPath]);
    expect(deleted).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(deleted.stdout)).toEqual({ id: user.id, deleted: true });
    running.keyIndex.refresh();
    expect(running.keyIndex.find(apiKey)).toBeNull();
    running.close();
    expect(await parasol(['users', 'delete', '--id', user.id, '--config', configPath])).toMatchObject({ code: 2, stdout: '', stderr: `parasol: no API user with the id ${user.id}\n` });
    expect(await parasol(['users', 'delete', '--config', configPath])).toMatchObject({ code: 2, stderr: 'parasol: --id is required\n' });
  });

  it('backup copies the store, while a connection holds it open, to a new file of its owner\'s alone, and never overwrites one; restore puts it back', async () => {
    await parasol(['admins', 'create', '--email', 'kept@example.com', '--password', 'a very long password', '--config', configPath]);
    const running = createContext(loadConfig({ configPath, env: {} }).config);
    const target = join(dir, 'backups', 'parasol-backup.db');
    mkdirSync(join(dir, 'backups'));
    const made = await parasol(['backup', '--to', target, '--config', configPath]);
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).toEqual({ backup: target, bytes: statSync(target).size, secret_key_file: join(dir, 'data', 'secret_key') });
    expect(statSync(target).mode & 0o777).toBe(0o600);
    await running.admins.create({ email: 'later@example.com', password: 'a very long password', superuser: false });
    running.close();

    const copy = new Database(target, { readonly: true });
    const emails = (copy.prepare('SELECT email FROM admins ORDER BY email').all() as { email: string }[]).map((row) => row.email);
    copy.close();
    expect(emails).toContain('kept@example.com');
    expect(emails).not.toContain('later@example.com');

    const again = await parasol(['backup', '--to', target, '--config', configPath]);
    expect(again).toMatchObject({ code: 2, stderr: `parasol: ${target} already exists; a backup never overwrites a file\n` });
    const noStore = join(dir, 'no-store.yml');
    writeFileSync(noStore, `data_dir: ${join(dir, 'no-data')}\n`);
    const nothing = await parasol(['backup', '--to', join(dir, 'nothing.db'), '--config', noStore]);
    expect(nothing).toMatchObject({ code: 2, stderr: `parasol: there is no store in ${join(dir, 'no-data')} to back up\n` });
    expect(existsSync(join(dir, 'nothing.db'))).toBe(false);

    // ... and restore puts it back, keeping the store it replaces.
    const restored = await parasol(['restore', '--from', target, '--config', configPath]);
    const store = join(dir, 'data', 'parasol.db');
    expect(restored.code).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ restored: target, store, previous: expect.stringMatching(/parasol\.db\.replaced-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z$/) });
    const back = new Database(store, { readonly: true });
    expect(back.prepare('SELECT email FROM admins').pluck().all()).not.toContain('later@example.com');
    back.close();
    expect(await parasol(['restore', '--from', join(dir, 'nothing.db'), '--config', configPath])).toMatchObject({
      code: 1,
      stderr: `parasol: ${join(dir, 'nothing.db')} does not exist\n`,
    });
  });

  it('an unknown command is a usage error', async () => {
    const result = await parasol(['frobnicate', '--config', configPath]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown command "frobnicate"/);
  });
});

describe('parasol serve lifecycle', () => {
  it('refuses a second start on the same data_dir, and stops cleanly with exit 0 on SIGTERM', async () => {
    const serveDir = tempDir();
    const serveConfig = join(serveDir, 'parasol.yml');
    writeFileSync(serveConfig, `data_dir: ${join(serveDir, 'data')}\nlisten:\n  host: 127.0.0.1\n  port: 0\n`);
    const { server, log } = spawnServe(serveConfig);
    await waitFor(() => log().includes('Parasol is listening'));
    const url = (JSON.parse(log().split('\n').find((line) => line.includes('Parasol is listening'))!) as { url: string }).url;
    expect((await fetch(`${url}/api-umbrella/v1/health`)).status).toBe(200);

    const second = await parasol(['serve', '--config', serveConfig]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/Parasol is already running with data_dir .* \(pid \d+\)/);

    server.kill('SIGTERM');
    const [code] = (await once(server, 'exit')) as [number];
    expect(code).toBe(0);
    expect(existsSync(join(serveDir, 'data', 'parasol.pid'))).toBe(false);
  });
});

describe('parasol serve with HTTPS', () => {
  it('logs both URLs, answers on both, and stops with exit 0 on SIGTERM', async () => {
    const serveDir = tempDir();
    const serveConfig = join(serveDir, 'parasol.yml');
    writeFileSync(serveConfig, `data_dir: ${join(serveDir, 'data')}\nlisten:\n  host: 127.0.0.1\n  port: 0\n`);
    const env = { PARASOL_LISTEN_HTTPS_PORT: '0', PARASOL_TLS_CERT_FILE: CERT_FILE, PARASOL_TLS_KEY_FILE: KEY_FILE };
    const { server, log } = spawnServe(serveConfig, { ...process.env, ...env });
    await waitFor(() => log().includes('Parasol is listening'));
    const logged = JSON.parse(log().split('\n').find((line) => line.includes('Parasol is listening'))!) as { url: string; https_url: string };
    expect(logged.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(logged.https_url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${logged.url}/api-umbrella/v1/health`)).status).toBe(200);
    const status = await new Promise<number>((resolve, reject) => {
      httpsGet(`${logged.https_url}/api-umbrella/v1/health`, { ca: TEST_CA }, (response) => resolve(response.resume().statusCode ?? 0)).on('error', reject);
    });
    expect(status).toBe(200);

    server.kill('SIGTERM');
    const [code] = (await once(server, 'exit')) as [number];
    expect(code).toBe(0);
  });
});

describe('parasol serve signals', () => {
  it('a repeated signal does not cut the graceful stop short', async () => {
    const serveDir = tempDir();
    const serveConfig = join(serveDir, 'parasol.yml');
    writeFileSync(
      serveConfig,
      `data_dir: ${join(serveDir, 'data')}\nlisten:\n  host: 127.0.0.1\n  port: 0\nproxy:\n  shutdown_timeout_ms: 2000\n`,
    );
    const { server, log } = spawnServe(serveConfig);
    await waitFor(() => log().includes('Parasol is listening'));
    const url = new URL((JSON.parse(log().split('\n').find((line) => line.includes('Parasol is listening'))!) as { url: string }).url);
    // A request still arriving keeps the stop busy until shutdown_timeout_ms.
    const client = connect(Number(url.port), url.hostname);
    await once(client, 'connect');
    client.write('GET /api-umbrella/v1/health HTTP/1.1\r\nHost: x\r\n');
    client.on('error', () => undefined);

    // What a terminal's Ctrl-C under `npm start` delivers: the group's SIGINT, then npm's forwarded copy.
    server.kill('SIGINT');
    await waitFor(() => log().includes('shutting down'));
    server.kill('SIGINT');
    const [code, signal] = (await once(server, 'exit')) as [number | null, string | null];
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(existsSync(join(serveDir, 'data', 'parasol.pid'))).toBe(false);
  });
});

describe('parasol serve and SIGHUP', () => {
  it('reloads the config without a restart, names the keys that need one, keeps a broken one out, and looks at the TLS certificates', async () => {
    const serveDir = tempDir();
    const serveConfig = join(serveDir, 'parasol.yml');
    const [certFile, keyFile] = [join(serveDir, 'cert.pem'), join(serveDir, 'key.pem')];
    copyFileSync(CERT_FILE, certFile);
    copyFileSync(KEY_FILE, keyFile);
    const configText = `data_dir: ${join(serveDir, 'data')}\nlisten:\n  host: 127.0.0.1\n  port: 0\n  https_port: 0\ntls:\n  cert_file: ${certFile}\n  key_file: ${keyFile}\n`;
    writeFileSync(serveConfig, configText);
    const { server, log } = spawnServe(serveConfig);
    await waitFor(() => log().includes('Parasol is listening'));
    const pid = server.pid;
    const url = (JSON.parse(log().split('\n').find((line) => line.includes('Parasol is listening'))!) as { url: string }).url;
    // A renewal (certbot replaces both files), seen on the signal rather than at the next minute's check.
    copyFileSync(RENEWED_CERT_FILE, certFile);
    copyFileSync(RENEWED_KEY_FILE, keyFile);
    writeFileSync(serveConfig, `${configText}ban:\n  user_agents: ["~*^probe/"]\nproxy:\n  max_header_size: 65536\n`);

    server.kill('SIGHUP');
    await waitFor(() => log().includes('"msg":"config reloaded"'));
    expect(log()).toContain('TLS certificate reloaded');
    expect(log()).toContain('"changed":["ban.user_agents"]');
    expect(log()).toContain('restart Parasol to apply proxy.max_header_size');
    expect((await fetch(`${url}/api-umbrella/v1/health`, { headers: { 'User-Agent': 'Probe/1.0' } })).status).toBe(403);
    expect((await fetch(`${url}/api-umbrella/v1/health`)).status).toBe(200);

    writeFileSync(serveConfig, `${configText}ban:\n  user_agents: 7\n`);
    server.kill('SIGHUP');
    await waitFor(() => log().includes('config not reloaded'));
    expect(log()).toMatch(/config not reloaded, the running one stays: [^"]*parasol\.yml: ban\.user_agents/);
    expect((await fetch(`${url}/api-umbrella/v1/health`, { headers: { 'User-Agent': 'Probe/1.0' } })).status).toBe(403);
    expect([server.exitCode, server.pid]).toEqual([null, pid]);

    // `parasol reload` (API Umbrella's `api-umbrella reload`) checks the file before it signals.
    const signalsBefore = log().split('"signal":"SIGHUP"').length;
    const refused = await parasol(['reload', '--config', serveConfig]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('ban.user_agents');
    writeFileSync(serveConfig, configText);
    const requested = await parasol(['reload', '--config', serveConfig]);
    expect(requested.code).toBe(0);
    expect(JSON.parse(requested.stdout)).toEqual({ reload_requested: true, pid, config_file: serveConfig });
    await waitFor(() => log().split('"msg":"config reloaded"').length === 3);
    expect(log().split('"signal":"SIGHUP"').length).toBe(signalsBefore + 1);
    expect((await fetch(`${url}/api-umbrella/v1/health`, { headers: { 'User-Agent': 'Probe/1.0' } })).status).toBe(200);

    server.kill('SIGTERM');
    const [code] = (await once(server, 'exit')) as [number];
    expect(code).toBe(0);
    const nothingRunning = await parasol(['reload', '--config', serveConfig]);
    expect(nothingRunning).toMatchObject({ code: 7, stderr: `parasol: no Parasol is running with data_dir ${join(serveDir, 'data')}; nothing to reload\n` });
  });
});

describe('parasol serve and a SIGHUP during its start', () => {
  it('keeps starting, and applies the reload once it is up', async () => {
    const serveDir = tempDir();
    const serveConfig = join(serveDir, 'parasol.yml');
    writeFileSync(serveConfig, `data_dir: ${join(serveDir, 'data')}\nlisten:\n  host: 127.0.0.1\n  port: 0\n`);
    const { server, log } = spawnServe(serveConfig);
    // The pid file is written as the start takes the data_dir's lock, before the store's migrations run:
    // from then on `parasol reload` finds this process.
    await waitFor(() => existsSync(join(serveDir, 'data', 'parasol.pid')), 15_000, 2);
    expect(log()).not.toContain('Parasol is listening');
    server.kill('SIGHUP');
    await waitFor(() => log().includes('config reloaded'));
    expect(log()).toContain('Parasol is listening');
    expect(server.exitCode).toBeNull();
    server.kill('SIGTERM');
    const [code] = (await once(server, 'exit')) as [number];
    expect(code).toBe(0);
  });
});

/** `parasol serve` as a child process; `log()` is what it has written to standard output so far. */
/** A port below 1024 that a user without CAP_NET_BIND_SERVICE may not bind. */
const LOW_PORT = 1;

/** A port on 127.0.0.1 that another listener holds. */
async function occupyPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Whether this process's user may bind `port` on 127.0.0.1 (root may bind any). */
async function canBind(port: number): Promise<boolean> {
  const server = createServer().listen(port, '127.0.0.1');
  // once() rejects when the server emits 'error' instead.
  const bound = await once(server, 'listening').then(() => true, () => false);
  if (bound) await new Promise((resolve) => server.close(resolve));
  return bound;
}
