// The analytics writer thread: inserts the batches the main thread posts and
// prunes old entries, on its own SQLite connection, so the proxy's event loop
// never waits for a transaction. Progress is reported through shared memory,
// so the main thread can wait for it synchronously when it stops.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../store/db.js';
import type { AnalyticsEntry } from './log-entry.js';
import { RetentionPruner } from './retention.js';
import { AnalyticsWriter } from './writer.js';
import { SETTLED, STOPPED, type ToWriter, type FromWriter, type WriterData } from './writer-protocol.js';

const { dataDir, progress } = workerData as WriterData;
yieldCpuToTheProxy();
const shared = new Int32Array(progress);
const db = openStore(dataDir);
const writer = new AnalyticsWriter(db);
const pruner = new RetentionPruner(db);
const port = parentPort!;

port.on('message', (message: ToWriter) => {
  if (message.type === 'write') write(message.entries);
  else if (message.type === 'prune') prune(message.cutoff);
  else stop();
});
send({ type: 'ready' });

function write(entries: AnalyticsEntry[]): void {
  try {
    writer.write(entries);
  } catch (error) {
    send({ type: 'failed', entries, error: String(error) });
  }
  Atomics.add(shared, SETTLED, entries.length);
  Atomics.notify(shared, SETTLED);
}

function prune(cutoff: number): void {
  pruner.prune(cutoff).then(
    (deleted) => send({ type: 'pruned', deleted }),
    (error: unknown) => send({ type: 'prune-failed', error: String(error) }),
  );
}

function stop(): void {
  db.close();
  Atomics.store(shared, STOPPED, 1);
  Atomics.notify(shared, STOPPED);
  port.close();
}

/**
 * On Linux a thread has its own nice value: when the proxy and the writer
 * both want the CPU, the proxy wins, and a writer that falls behind fills the
 * bounded buffer (whose overflow is dropped and counted) instead of slowing
 * requests. With CPU to spare the writer runs at full speed. Elsewhere the
 * thread keeps the normal priority.
 */
function yieldCpuToTheProxy(): void {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(threadId)) setPriority(threadId, 10);
  } catch {
    // Not Linux (or no /proc): normal priority.
  }
}

function send(message: FromWriter): void {
  port.postMessage(message);
}
