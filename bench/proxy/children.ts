// Parent-side handles on the bench's child processes.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { LoadOptions, LoadResult, Ready, Usage, UsageReport } from './protocol.js';

export interface ServerChild {
  readonly port: number;
  readonly url: string;
  readonly apiKey: string | undefined;
  readonly keys: readonly string[];
  /** A Parasol with C's variants: the unlimited user's key. */
  readonly unlimitedApiKey: string | undefined;
  readonly dataDir: string | undefined;
  /** Sends a message and waits for the child's answer: its next message holding `answerKey`. */
  ask<T>(message: unknown, answerKey: string): Promise<T>;
  stop(): Promise<void>;
}

const script = (name: string) => new URL(`./${name}`, import.meta.url).pathname;

function forkTs(name: string, args: readonly string[]): ChildProcess {
  // BENCH_PARASOL_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles Parasol's own process.
  const extra = name === 'parasol.ts' && process.env.BENCH_PARASOL_NODE_ARGS ? process.env.BENCH_PARASOL_NODE_ARGS.split(' ') : [];
  // --no-memory-reducer as `npm start` runs Parasol (bench/HISTORY.md, "2026-11-27, night"), and the other processes alike.
  return fork(script(name), args, { execArgv: ['--no-memory-reducer', '--import', 'tsx', ...extra], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

export async function startServerChild(name: 'upstream.ts' | 'reference-proxy.ts' | 'parasol.ts', args: readonly string[] = []): Promise<ServerChild> {
  const child = forkTs(name, args);
  const message = await firstMessage<Ready>(child, name);
  const { port, apiKey, keys = [], unlimitedApiKey, dataDir } = message.ready;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    apiKey,
    keys,
    unlimitedApiKey,
    dataDir,
    ask<T>(request: unknown, answerKey: string): Promise<T> {
      return new Promise((resolve) => {
        const onMessage = (message: Record<string, unknown>) => {
          if (!(answerKey in message)) return;
          child.off('message', onMessage);
          resolve(message as T);
        };
        child.on('message', onMessage);
        child.send(request as object);
      });
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs one load in its own process and returns what it measured. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const child = forkTs('load.ts', [JSON.stringify(options)]);
  const exited = once(child, 'exit');
  const result = await firstMessage<LoadResult>(child, 'the load generator');
  await exited;
  return result;
}

/** The child's first message; an error when it exits without one (a crash would otherwise hang the bench). */
async function firstMessage<T>(child: ChildProcess, name: string): Promise<T> {
  const [message] = (await Promise.race([once(child, 'message'), once(child, 'exit').then(() => Promise.reject(new Error(`${name} exited`)))])) as [T];
  return message;
}

export async function usageOf(server: ServerChild): Promise<Usage> {
  return (await server.ask<UsageReport>({ usage: true }, 'usage')).usage;
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** The value a fraction `q` of the way through the sorted values, interpolated between neighbours. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const position = q * (sorted.length - 1);
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  return sorted[below]! + (position - below) * (sorted[above]! - sorted[below]!);
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
