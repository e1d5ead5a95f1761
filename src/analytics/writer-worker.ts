// The analytics writer thread: inserts the batches the main thread posts and
// prunes old entries, on its own SQLite connection, so the proxy's event loop
// never waits for a transaction. Progress is reported through shared memory,
// so the main thread can wait for it synchronously when it stops.
import { parentPort, workerData } from 'node:worker_threads';
import { yieldCpuToMainThread } from '../lib/worker-script.js';
import { openStore } from '../store/db.js';
import { transferablesOf, type EntryBatch } from './entry-batch.js';
import { GeoIpDatabase } from './geoip.js';
import { RetentionPruner } from './retention.js';
import { AnalyticsWriter } from './writer.js';
import { SETTLED, STOPPED, type ToWriter, type FromWriter, type WriterData } from './writer-protocol.js';

const { dataDir, progress, geoipFile } = workerData as WriterData;
const port = parentPort!;
yieldCpuToMainThread('idle');
const shared = new Int32Array(progress);
const db = openStore(dataDir);
const geoip = geoipFile === null ? null : new GeoIpDatabase(geoipFile, (problem) => send({ type: 'geoip-unreadable', problem }));
const writer = new AnalyticsWriter(db, geoip);
const pruner = new RetentionPruner(db, () => writer.contextsDeleted());

port.on('message', (message: ToWriter) => {
  if (message.type === 'write') write(message.batch);
  else if (message.type === 'prune') prune(message.now, message.retentionDays);
  else stop();
});
send({ type: 'ready' });

function write(batch: EntryBatch): void {
  let answer: FromWriter;
  try {
    writer.write(batch);
    answer = { type: 'written', batch };
  } catch (error) {
    answer = { type: 'failed', batch, error: String(error) };
  }
  // Settled before the answer is sent: the main thread, handling the answer, counts the batch as no longer in flight.
  Atomics.add(shared, SETTLED, batch.count);
  Atomics.notify(shared, SETTLED);
  port.postMessage(answer, transferablesOf(batch));
}

function prune(now: number, retentionDays: number): void {
  pruner.pruneAt(now, retentionDays).then(
    (pruned) => send({ type: 'pruned', ...pruned }),
    (error: unknown) => send({ type: 'prune-failed', error: String(error) }),
  );
}

function stop(): void {
  db.close();
  Atomics.store(shared, STOPPED, 1);
  Atomics.notify(shared, STOPPED);
  port.close();
}

function send(message: FromWriter): void {
  port.postMessage(message);
}
