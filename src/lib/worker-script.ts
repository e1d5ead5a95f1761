// Worker threads of this package: starting one from its module whether the
// package runs compiled (dist/, plain JS) or from its TypeScript sources
// (tests, tsx), and, inside one, leaving the CPU to the main thread first.
import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

// This file is .ts exactly when the whole package runs from source.
const SOURCE = fileURLToPath(import.meta.url).endsWith('.ts');

/**
 * `moduleUrl` names the worker module as an import would, with `.js`
 * (`new URL('./reader-worker.js', import.meta.url)`). From source it is
 * TypeScript, which Node 20 workers load neither through execArgv nor
 * registered hooks; tsx's tsImport does, from a small eval'd loader.
 */
export function startWorker(moduleUrl: URL, options: WorkerOptions = {}): Worker {
  if (!SOURCE) return new Worker(moduleUrl, options);
  const source = new URL(moduleUrl.href.replace(/\.js$/, '.ts'));
  const loader = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(source.href)}, ${JSON.stringify(import.meta.url)}))`;
  return new Worker(loader, { ...options, eval: true });
}

/**
 * Called inside a worker; on Linux a thread has its own scheduling policy.
 * - `low` (nice 10): the main thread (the proxy) wins the CPU whenever both
 *   want it, while the worker still makes progress (an admin waits for its
 *   answers) and runs at full speed when there is CPU to spare.
 * - `idle` (SCHED_IDLE, set through util-linux's chrt, which every Debian and
 *   RPM system has; nice 19 without it): the worker runs only on CPU time
 *   nothing else wants, for work nobody waits on (the analytics writer).
 * Elsewhere the thread keeps the normal priority.
 */
export function yieldCpuToMainThread(level: 'low' | 'idle'): void {
  const threadId = ownThreadId();
  if (threadId === null) return;
  if (level === 'idle' && setIdlePolicy(threadId)) return;
  try {
    setPriority(threadId, level === 'idle' ? 19 : 10);
  } catch {
    // Not allowed here: normal priority.
  }
}

function ownThreadId(): number | null {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(threadId) ? threadId : null;
  } catch {
    return null; // Not Linux (or no /proc).
  }
}

function setIdlePolicy(threadId: number): boolean {
  try {
    execFileSync('chrt', ['--idle', '--pid', '0', String(threadId)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
