// The analytics writer thread: inserts the batches the main thread posts and
// prunes old entries, on its own SQLite connection, so the proxy's event loop
// never waits for a transaction. Progress is reported through shared memory,
// so the main thread can wait for it synchronously when it stops.
import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../store/db.js';
import { transferablesOf, type EntryBatch } from './entry-batch.js';
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
  if (message.type === 'write') write(message.batch);
  else if (message.type === 'prune') prune(message.cutoff);
  else stop();
});
send({ type: 'ready' });

function write(batch: EntryBatch): void {
  try {
    writer.write(batch);
  } catch (error) {
    port.postMessage({ type: 'failed', batch, error: String(error) } satisfies FromWriter, transferablesOf(batch));
  }
  Atomics.add(shared, SETTLED, batch.count);
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
 * On Linux a thread has its own scheduling policy. The writer takes
 * SCHED_IDLE (through util-linux's chrt, which every Debian/RPM system has):
 * it then runs only on CPU time nothing else wants, so the proxy never waits
 * for it, and a writer that falls behind fills the bounded buffer (whose
 * overflow is dropped and counted) instead of slowing requests. Without chrt
 * it takes the lowest nice value; elsewhere it keeps the normal priority.
 */
function yieldCpuToTheProxy(): void {
  let threadId: number;
  try {
    threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return; // Not Linux (or no /proc): normal priority.
  }
  if (!Number.isInteger(threadId)) return;
  try {
    execFileSync('chrt', ['--idle', '--pid', '0', String(threadId)], { stdio: 'ignore' });
  } catch {
    try {
      setPriority(threadId, 19);
    } catch {
      // Not allowed here: normal priority.
    }
  }
}

function send(message: FromWriter): void {
  port.postMessage(message);
}
