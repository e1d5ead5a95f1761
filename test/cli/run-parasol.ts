// Runs the CLI as a user runs it: a child process, from the source.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { packagePath } from '../../src/lib/package-path.js';

const run = promisify(execFile);
// tsx by its file, not its name: a name is looked up from the working directory, which tests set elsewhere.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
export const NODE_ARGS = ['--import', TSX, packagePath('src', 'main.ts')];

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  readonly env?: Record<string, string>;
  /** Where ./data and config/parasol.yml would be looked for: a temp dir, so a command that wrongly ran on the defaults makes nothing in the checkout. */
  readonly cwd?: string;
  /** A command that should have refused but runs (serve) is killed after this and fails the test rather than hang it. */
  readonly timeoutMs?: number;
  /** Run as this user (and its group) instead: only root may. */
  readonly uid?: number;
}

export async function parasol(args: string[], { env = {}, cwd, timeoutMs = 20_000, uid }: RunOptions = {}): Promise<Result> {
  try {
    const user = uid === undefined ? {} : { uid, gid: uid };
    const { stdout, stderr } = await run(process.execPath, [...NODE_ARGS, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, cwd, timeout: timeoutMs, ...user });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number | string; signal: string | null; stdout: string; stderr: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** `parasol serve` in the background, with what it has logged so far. */
export function spawnServe(configPath: string, env: NodeJS.ProcessEnv = process.env): { server: ChildProcess; log: () => string } {
  const server = spawn(process.execPath, [...NODE_ARGS, 'serve', '--config', configPath], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let output = '';
  server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { server, log: () => output };
}

/** Another process's log has no event to wait on: it is read again every `everyMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 15_000, everyMs = 50): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting for the server');
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
