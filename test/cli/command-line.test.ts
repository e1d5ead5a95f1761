// Every command refuses what it does not take, before it reads the config or
// touches a store: a mistyped --config must not start on the defaults.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/config.js';
import { parasol } from './run-parasol.js';

const PASSWORD = 'a very long password';
let cwd: string;
let configPath: string;
let dataDir: string;

beforeEach(() => {
  // The working directory too: the defaults' store would be ./data.
  cwd = tempDir();
  dataDir = join(cwd, 'store');
  configPath = join(cwd, 'parasol.yml');
  writeFileSync(configPath, `data_dir: ${dataDir}\nlisten:\n  host: 127.0.0.1\n  port: 0\nlog_level: warn\n`);
});

/** Exit 2, one line on stderr, nothing on stdout, and no store made anywhere. */
async function expectRefused(args: string[], line: string): Promise<void> {
  const result = await parasol(args, { cwd });
  expect(result).toEqual({ code: 2, stdout: '', stderr: `parasol: ${line}; see parasol --help\n` });
  expect(readdirSync(cwd)).toEqual(['parasol.yml']);
}

describe('parasol command line', () => {
  it('serve refuses a mistyped --config, with a hint, instead of starting on the defaults', async () => {
    await expectRefused(['serve', '--conifg', configPath], 'unknown option "--conifg" (did you mean "--config"?)');
  });

  it('serve refuses an option it does not know', async () => {
    await expectRefused(['serve', '--bogus'], 'unknown option "--bogus"');
    await expectRefused(['serve', '-x', '--config', configPath], 'unknown option "-x"');
  });

  it('config check refuses a mistyped --config rather than answer ok for the defaults', async () => {
    await expectRefused(['config', 'check', '--confg', join(cwd, 'bad.yml')], 'unknown option "--confg" (did you mean "--config"?)');
  });

  it('refuses an option with no value, an empty one, or one that swallowed the next option', async () => {
    await expectRefused(['config', 'check', '--config'], 'option "--config" needs a value');
    await expectRefused(['config', 'check', '--config='], 'option "--config" needs a value');
    await expectRefused(['config', 'check', '--config', ''], 'option "--config" needs a value');
    await expectRefused(
      ['admins', 'create', '--email', '--password', PASSWORD, '--config', configPath],
      'option "--email" needs a value (a value starting with "-" is given as --email=VALUE)',
    );
  });

  it('admins create refuses an extra option and stores nothing', async () => {
    await expectRefused(['admins', 'create', '--email', 'a@example.com', '--password', PASSWORD, '--extra', '1', '--config', configPath], 'unknown option "--extra"');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('refuses an option given twice', async () => {
    await expectRefused(['users', 'delete', '--id', 'a', '--id', 'b', '--config', configPath], 'option "--id" given twice');
    await expectRefused(['config', 'check', '--config', configPath, '--config', configPath], 'option "--config" given twice');
  });

  it('refuses a word after the command\'s, and another command\'s option', async () => {
    await expectRefused(['config', 'check', configPath], `unexpected argument "${configPath}" after "config check"`);
    await expectRefused(['backup', '--to', join(cwd, 'b.db'), 'now', '--config', configPath], 'unexpected argument "now" after "backup"');
    await expectRefused(['users', 'delete', '--email', 'a@example.com', '--config', configPath], 'unknown option "--email" for users delete');
    await expectRefused(['admins', 'create', '--emial', 'a@example.com', '--password', PASSWORD], 'unknown option "--emial" (did you mean "--email"?)');
  });

  it('refuses an unknown command, also one named like a property every object has', async () => {
    await expectRefused(['toString', '--config', configPath], 'unknown command "toString"');
  });

  it('a mistyped option before the command is named as such, not as an unknown command', async () => {
    await expectRefused(['--confg', configPath, 'config', 'check'], 'unknown option "--confg" (did you mean "--config"?)');
  });

  it('still takes each command\'s documented options, before or after its words, and a value starting with "-" given with =', async () => {
    const before = await parasol(['--config', configPath, 'config', 'check'], { cwd });
    expect(before).toEqual({ code: 0, stdout: `${JSON.stringify({ ok: true, config_file: configPath })}\n`, stderr: '' });
    const dashed = await parasol(['admins', 'create', '--email=dash@example.com', `--password=-${PASSWORD}`, '--config', configPath], { cwd });
    expect(dashed.code).toBe(0);
    expect(JSON.parse(dashed.stdout)).toMatchObject({ email: 'dash@example.com' });
    const help = await parasol(['serve', '--help'], { cwd });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: parasol/);
  });

  it('--version prints the version of package.json, alone or with a command, and reads no config', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const argv of [['--version'], ['serve', '--version', '--config', join(cwd, 'missing.yml')]]) {
      expect(await parasol(argv, { cwd })).toEqual({ code: 0, stdout: `parasol ${version}\n`, stderr: '' });
    }
    await expectRefused(['--version=1'], 'option "--version" takes no value');
  });
});
