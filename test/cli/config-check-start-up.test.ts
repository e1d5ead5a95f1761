// `parasol config check` refuses what start-up would (packages run it before
// every start and reload), with the line start-up would stop with, and
// changes nothing on disk doing so.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { createContext } from '../../src/context.js';
import { storePath } from '../../src/store/db.js';
import { acquireInstanceLock } from '../../src/store/instance-lock.js';
import { tempDir } from '../helpers/config.js';
import { apiUserInput } from '../helpers/users.js';
import { parasol, type Result } from './run-parasol.js';

let dir: string;
beforeEach(() => {
  dir = tempDir();
});

/** A config file for data_dir (and more YAML), answered with its path. */
function configFor(dataDir: string, more = 'listen:\n  host: 127.0.0.1\n  port: 0\n'): string {
  const path = join(dir, `parasol-${readdirSync(dir).length}.yml`);
  writeFileSync(path, `data_dir: ${JSON.stringify(dataDir)}\nlog_level: warn\n${more}`);
  return path;
}

/** A data_dir with a store as start-up leaves it (schema up to date, closed). */
function madeStore(name: string): string {
  const dataDir = join(dir, name);
  createContext(loadConfig({ configPath: configFor(dataDir), env: {} }).config).close();
  return dataDir;
}

/** Every file under dataDir with its size and mtime: what "nothing changed" compares. */
function snapshot(dataDir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dataDir).map((name) => [name, `${statSync(join(dataDir, name)).size}@${statSync(join(dataDir, name)).mtimeMs}`]));
}

function check(config: string): Promise<Result> {
  return parasol(['config', 'check', '--config', config], { cwd: dir });
}

describe('config check refuses what start-up would', () => {
  it('a listen.host that does not resolve: a malformed address or a name, in serve\'s own words, naming where it was set', async () => {
    for (const host of ['256.1.1.1', 'not-an-ip']) {
      const config = configFor(join(dir, `data-${host}`), `listen:\n  host: ${host}\n  port: 0\n`);
      const checked = await check(config);
      expect(checked.code).toBe(1);
      // ENOTFOUND, or EAI_AGAIN on a machine without a resolver.
      expect(checked.stderr.replace('(EAI_AGAIN)', '(ENOTFOUND)')).toBe(`parasol: ${config}: listen.host: ${host} does not resolve to an address (ENOTFOUND)\n`);
      expect(checked.stdout).toBe('');
      const served = await parasol(['serve', '--config', config], { cwd: dir });
      expect(served.stderr).toBe(checked.stderr);
    }
    const fromEnvironment = await parasol(['config', 'check', '--config', configFor(join(dir, 'data'))], { cwd: dir, env: { PARASOL_LISTEN_HOST: 'not-an-ip' } });
    expect(fromEnvironment.code).toBe(1);
    expect(fromEnvironment.stderr.replace('(EAI_AGAIN)', '(ENOTFOUND)')).toBe('parasol: environment PARASOL_LISTEN_HOST: listen.host: not-an-ip does not resolve to an address (ENOTFOUND)\n');
  });

  it('a listen.host that resolves but is no address of this machine, in serve\'s own words', async () => {
    // TEST-NET-1 (RFC 5737): never a local address.
    const config = configFor(join(dir, 'data'), 'listen:\n  host: 192.0.2.1\n  port: 0\n');
    const checked = await check(config);
    expect(checked).toEqual({ code: 1, stdout: '', stderr: `parasol: ${config}: listen.host: 192.0.2.1 is not an address of this machine (EADDRNOTAVAIL)\n` });
    expect((await parasol(['serve', '--config', config], { cwd: dir })).stderr).toBe(checked.stderr);
  });

  it('a secret_key file that is missing, empty or not the secret of the store\'s keys, as serve stops, touching nothing', async () => {
    const dataDir = join(dir, 'keys');
    const made = createContext(loadConfig({ configPath: configFor(dataDir), env: {} }).config);
    made.users.create(apiUserInput(), 'test');
    made.close();
    const secretFile = join(dataDir, 'secret_key');
    const secret = readFileSync(secretFile, 'utf8');
    const config = configFor(dataDir);
    const refused = async (line: string) => {
      const before = snapshot(dataDir);
      const checked = await check(config);
      expect(checked).toEqual({ code: 1, stdout: '', stderr: `parasol: ${line}\n` });
      expect(snapshot(dataDir)).toEqual(before);
      expect((await parasol(['serve', '--config', config], { cwd: dir })).stderr).toBe(checked.stderr);
    };

    rmSync(secretFile);
    await refused(`${secretFile} is missing, but the store holds API keys or admin tokens made with it; restore it from a backup (or set secret_key)`);
    writeFileSync(secretFile, '');
    await refused(`${secretFile} is empty; restore it from a backup (or set secret_key)`);
    writeFileSync(secretFile, 'the secret of another installation\n');
    await refused(
      `${secretFile} is not the secret this store's API keys and admin tokens were made with, so every one of them would be refused; use that secret (a backup's secret_key file has it)`,
    );
    writeFileSync(secretFile, secret);
    expect(await check(config)).toMatchObject({ code: 0 });
  });

  it('an empty data_dir, with the line serve stops with', async () => {
    const config = configFor('');
    const checked = await check(config);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toMatch(/^parasol: .*data_dir.*\n$/);
    expect((await parasol(['serve', '--config', config], { cwd: dir })).stderr).toBe(checked.stderr);
  });

  it('an analytics.timezone no IANA database has, in one line naming the key, as serve stops', async () => {
    const config = configFor(join(dir, 'data'), 'analytics:\n  timezone: America/Springfield\n');
    const checked = await check(config);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toBe(`parasol: ${config}: analytics.timezone: expected an IANA time zone name, such as UTC or America/Denver, got "America/Springfield"\n`);
    expect((await parasol(['serve', '--config', config], { cwd: dir })).stderr).toBe(checked.stderr);
  });

  it('a truncated copy of the store, with the line every command stops with, and touches nothing', async () => {
    const good = madeStore('good');
    const damaged = join(dir, 'damaged');
    mkdirSync(damaged);
    copyFileSync(storePath(good), storePath(damaged));
    truncateSync(storePath(damaged), Math.floor(statSync(storePath(good)).size / 2));
    const config = configFor(damaged);
    const before = snapshot(damaged);

    const checked = await check(config);
    expect(checked).toEqual({ code: 1, stdout: '', stderr: `parasol: ${storePath(damaged)}: not a SQLite database, or a damaged one; check data_dir, or restore a backup\n` });
    expect(snapshot(damaged)).toEqual(before);
    const created = await parasol(['admins', 'create', '--email', 'a@example.com', '--password', 'a very long password', '--config', config], { cwd: dir });
    expect(created.stderr).toBe(checked.stderr);
  });

  it('a file that is no SQLite database at all', async () => {
    const dataDir = join(dir, 'text');
    mkdirSync(dataDir);
    writeFileSync(storePath(dataDir), 'these are not the pages you are looking for\n'.repeat(200));
    const checked = await check(configFor(dataDir));
    expect(checked).toMatchObject({ code: 1, stderr: `parasol: ${storePath(dataDir)}: not a SQLite database, or a damaged one; check data_dir, or restore a backup\n` });
  });

  it('a store made by a newer Parasol, with the line start-up stops with', async () => {
    const dataDir = madeStore('newer');
    const db = new Database(storePath(dataDir));
    db.pragma('user_version = 999');
    db.close();
    const config = configFor(dataDir);
    const before = snapshot(dataDir);

    const checked = await check(config);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toMatch(new RegExp(`^parasol: ${storePath(dataDir)}: made by a newer Parasol \\(schema version 999; this one knows up to \\d+\\); run that version or restore a backup\\n$`));
    expect(snapshot(dataDir)).toEqual(before);
    const created = await parasol(['users', 'create-signup-key', '--email', 'a@example.com', '--config', config], { cwd: dir });
    expect(created.stderr).toBe(checked.stderr);
  });
});

describe('config check and serve refuse a file in data_dir start-up cannot use, in one line naming it, and check changes nothing', () => {
  /** A data_dir with `make` run in it; config check's and serve's results (serve killed, and failing the test, if it waits). */
  async function checkedAndServed(name: string, make: (dataDir: string) => void): Promise<{ dataDir: string; checked: Result; served: Result }> {
    const dataDir = join(dir, name);
    mkdirSync(dataDir);
    make(dataDir);
    const config = configFor(dataDir);
    const before = snapshot(dataDir);
    const checked = await check(config);
    expect(snapshot(dataDir)).toEqual(before);
    const served = await parasol(['serve', '--config', config], { cwd: dir, timeoutMs: 8_000 });
    return { dataDir, checked, served };
  }

  /** mkfifo(1): Node makes no FIFO. */
  const fifo = (path: string) => execFileSync('mkfifo', [path]);

  it('a parasol.lock that is a directory, or a FIFO (which start-up would wait on for ever)', async () => {
    for (const [kind, make] of [
      ['a directory', (path: string) => mkdirSync(path)],
      ['a FIFO', fifo],
    ] as const) {
      const { dataDir, checked, served } = await checkedAndServed(`lock-${kind.slice(2)}`, (dataDir) => make(join(dataDir, 'parasol.lock')));
      const line = `parasol: ${join(dataDir, 'parasol.lock')}: ${kind}, not a regular file; remove it, and Parasol makes it again\n`;
      expect(checked).toEqual({ code: 1, stdout: '', stderr: line });
      expect(served).toEqual({ code: 1, stdout: '', stderr: line });
    }
  });

  it('a parasol.lock that holds data (not the empty file Parasol makes), and leaves it as it was', async () => {
    const text = 'notes, not a lock\n';
    const { dataDir, checked, served } = await checkedAndServed('lock-data', (dataDir) => writeFileSync(join(dataDir, 'parasol.lock'), text));
    const line = `parasol: ${join(dataDir, 'parasol.lock')}: holds data that is not SQLite's, where Parasol keeps an empty lock file; remove it, and Parasol makes it again\n`;
    expect(checked).toEqual({ code: 1, stdout: '', stderr: line });
    expect(served).toEqual({ code: 1, stdout: '', stderr: line });
    expect(readFileSync(join(dataDir, 'parasol.lock'), 'utf8')).toBe(text);
  });

  it('a parasol.pid that is a directory', async () => {
    const { dataDir, checked, served } = await checkedAndServed('pid-directory', (dataDir) => mkdirSync(join(dataDir, 'parasol.pid')));
    const line = `parasol: ${join(dataDir, 'parasol.pid')}: a directory, not a regular file; remove it, and Parasol makes it again\n`;
    expect(checked).toEqual({ code: 1, stdout: '', stderr: line });
    expect(served).toEqual({ code: 1, stdout: '', stderr: line });
  });

  it('a parasol.db that is a directory (a volume mounted at the file), or a FIFO', async () => {
    for (const [kind, make] of [
      ['a directory', (path: string) => mkdirSync(path)],
      ['a FIFO', fifo],
    ] as const) {
      const { dataDir, checked, served } = await checkedAndServed(`store-${kind.slice(2)}`, (dataDir) => make(storePath(dataDir)));
      const line = `parasol: ${storePath(dataDir)}: ${kind}, not a regular file; check data_dir, or move it away\n`;
      expect(checked).toEqual({ code: 1, stdout: '', stderr: line });
      expect(served).toEqual({ code: 1, stdout: '', stderr: line });
    }
  });

  it('a parasol.lock the user Parasol runs as may not write (run as nobody when the tests run as root)', async (context) => {
    // Permission bits bind root in nothing: as root, Parasol runs as nobody, in a directory nobody can reach.
    const nobody = process.getuid?.() === 0 ? 65534 : undefined;
    const reachable = mkdtempSync(join(tmpdir(), 'parasol-lock-'));
    try {
      chmodSync(reachable, 0o755);
      if (nobody !== undefined && (await parasol(['--help'], { cwd: reachable, uid: nobody })).code !== 0) context.skip('nobody cannot run Parasol from this checkout');
      const dataDir = join(reachable, 'data');
      mkdirSync(dataDir, { mode: 0o777 });
      chmodSync(dataDir, 0o777);
      const lock = join(dataDir, 'parasol.lock');
      writeFileSync(lock, '', { mode: 0o400 });
      const config = join(reachable, 'parasol.yml');
      writeFileSync(config, `data_dir: ${dataDir}\nlisten:\n  host: 127.0.0.1\n  port: 0\n`, { mode: 0o644 });
      const line = `parasol: ${lock}: cannot be opened for writing (EACCES); it and data_dir must be writable by the user Parasol runs as\n`;
      for (const command of [['config', 'check'], ['serve']]) {
        expect(await parasol([...command, '--config', config], { cwd: reachable, uid: nobody, timeoutMs: 8_000 })).toEqual({ code: 1, stdout: '', stderr: line });
      }
    } finally {
      rmSync(reachable, { recursive: true, force: true });
    }
  });
});

describe('config check takes what start-up would, and changes nothing', () => {
  it('a data_dir whose lock a running gateway holds', async () => {
    const dataDir = madeStore('locked');
    const lock = acquireInstanceLock(dataDir);
    try {
      const before = snapshot(dataDir);
      expect(await check(configFor(dataDir))).toMatchObject({ code: 0, stderr: '' });
      expect(snapshot(dataDir)).toEqual(before);
    } finally {
      lock.release();
    }
  });

  it('a healthy store: exit 0, and no -wal or -shm file left beside it (nor any other change)', async () => {
    const dataDir = madeStore('healthy');
    const before = snapshot(dataDir);
    const bytes = readFileSync(storePath(dataDir));
    const checked = await check(configFor(dataDir));
    expect(checked).toMatchObject({ code: 0, stderr: '' });
    expect(snapshot(dataDir)).toEqual(before);
    expect(readFileSync(storePath(dataDir)).equals(bytes)).toBe(true);
  });

  it('a store that a running gateway holds open (a reload)', async () => {
    const dataDir = madeStore('running');
    const running = createContext(loadConfig({ configPath: configFor(dataDir), env: {} }).config);
    try {
      running.users.create(apiUserInput({ email: 'held@example.com' }), 'test');
      expect(await check(configFor(dataDir))).toMatchObject({ code: 0, stderr: '' });
    } finally {
      running.close();
    }
  });

  it('no store yet, or an empty file: start-up makes one, and check makes nothing', async () => {
    const missing = join(dir, 'not-yet');
    expect(await check(configFor(missing))).toMatchObject({ code: 0, stderr: '' });
    expect(readdirSync(dir)).not.toContain('not-yet');

    const empty = join(dir, 'empty');
    mkdirSync(empty);
    writeFileSync(storePath(empty), '');
    expect(await check(configFor(empty))).toMatchObject({ code: 0, stderr: '' });
    expect(readdirSync(empty)).toEqual(['parasol.db']);
  });
});
