// API Umbrella's `health`, `status` and `stop` commands, run against a real
// `parasol serve` on a fixed port (health reads it from the config).
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync, existsSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/config.js';
import { parasol, spawnServe, type Result } from './run-parasol.js';

let dir: string;
let configPath: string;
let dataDir: string;
let port: number;

/** A port free a moment ago: health needs one the config names. */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port: free } = probe.address() as AddressInfo;
  probe.close();
  await once(probe, 'close');
  return free;
}

beforeEach(async () => {
  dir = tempDir();
  dataDir = join(dir, 'data');
  configPath = join(dir, 'parasol.yml');
  port = await freePort();
  writeFileSync(configPath, `data_dir: ${dataDir}\nlisten:\n  host: 127.0.0.1\n  port: ${port}\nlog_level: warn\n`);
});

const healthUrl = () => `http://127.0.0.1:${port}/api-umbrella/v1/health`;

describe('parasol health, status and stop', () => {
  it('say a gateway is not running, and stop has nothing to do', async () => {
    expect(await parasol(['status', '--config', configPath])).toEqual({ code: 3, stdout: `${JSON.stringify({ running: false, data_dir: dataDir })}\n`, stderr: '' });
    expect(await parasol(['health', '--config', configPath])).toEqual({
      code: 1,
      stdout: `${JSON.stringify({ status: 'red', url: healthUrl() })}\n`,
      stderr: `parasol: no answer from ${healthUrl()} (ECONNREFUSED)\n`,
    });
    expect(await parasol(['stop', '--config', configPath])).toEqual({ code: 0, stdout: `${JSON.stringify({ stopped: true, was_running: false, data_dir: dataDir })}\n`, stderr: '' });
  });

  it('health waits for a gateway that is starting; status names it; stop ends it and returns once the data_dir is free', async () => {
    // Asked before the gateway is started: connection errors are waited through.
    const waited = parasol(['health', '--wait-for-status', 'green', '--wait-timeout', '60', '--config', configPath], { timeoutMs: 70_000 });
    const { server } = spawnServe(configPath);
    try {
      await healthStatusAndStop(waited, server);
    } finally {
      server.kill('SIGKILL'); // Only when a check above failed: a stopped server has exited by now.
    }
  });

  it('health takes another server on the port for no answer, exit 1', async () => {
    const other = createHttpServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>hello</h1>')).listen(port, '127.0.0.1');
    await once(other, 'listening');
    try {
      expect(await parasol(['health', '--config', configPath])).toEqual({
        code: 1,
        stdout: `${JSON.stringify({ status: 'red', url: healthUrl() })}\n`,
        stderr: `parasol: ${healthUrl()} answered 200 text/html, not a health status\n`,
      });
    } finally {
      other.close();
    }
  });

  it('health refuses what API Umbrella refuses, and a port the system chooses, naming it', async () => {
    expect(await parasol(['health', '--wait-for-status', 'blue', '--config', configPath])).toMatchObject({
      code: 2,
      stderr: 'parasol: --wait-for-status: "blue" is not one of green, yellow, red\n',
    });
    expect(await parasol(['health', '--wait-for-status', 'green', '--wait-timeout', '5s', '--config', configPath])).toMatchObject({
      code: 2,
      stderr: 'parasol: --wait-timeout: "5s" is not a whole number of seconds\n',
    });
    expect(await parasol(['health', '--wait-timeout', '5', '--config', configPath])).toMatchObject({ code: 2, stderr: 'parasol: --wait-timeout is given with --wait-for-status\n' });
    expect(await parasol(['status', '--wait-timeout', '5', '--config', configPath])).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown option "--wait-timeout" for status') });
    expect(await parasol(['health', '--config', configPath], { env: { PARASOL_LISTEN_PORT: '0' } })).toMatchObject({
      code: 1,
      stderr: 'parasol: environment PARASOL_LISTEN_PORT: listen.port: 0 lets the system choose the port at start, so parasol health cannot know it; set a port\n',
    });
  });

  it('version and help are also words, as in API Umbrella', async () => {
    expect(await parasol(['version'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^parasol \d+\.\d+\.\d+/) });
    expect(await parasol(['help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('health [--wait-for-status S [--wait-timeout N]]') });
  });
});

async function healthStatusAndStop(waited: Promise<Result>, server: ChildProcess): Promise<void> {
  expect(await waited).toMatchObject({ code: 0, stdout: `${JSON.stringify({ status: 'green', url: healthUrl() })}\n` });
  expect(await parasol(['health', '--config', configPath])).toMatchObject({ code: 0, stdout: `${JSON.stringify({ status: 'green', url: healthUrl() })}\n` });

  expect(await parasol(['status', '--config', configPath])).toEqual({
    code: 0,
    stdout: `${JSON.stringify({ running: true, pid: server.pid, data_dir: dataDir })}\n`,
    stderr: '',
  });

  const exited = once(server, 'exit');
  const stopped = await parasol(['stop', '--config', configPath]);
  expect(stopped).toEqual({ code: 0, stdout: `${JSON.stringify({ stopped: true, was_running: true, pid: server.pid, data_dir: dataDir })}\n`, stderr: '' });
  // By then the lock is free and the pid file gone: a start right after would not be refused.
  expect(existsSync(join(dataDir, 'parasol.pid'))).toBe(false);
  expect(await exited).toEqual([0, null]);
  expect((await parasol(['status', '--config', configPath])).code).toBe(3);
}
