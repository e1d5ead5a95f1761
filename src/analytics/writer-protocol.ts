// Messages between the main thread and the analytics writer thread.
import type { EntryBatch } from './entry-batch.js';
import type { Pruned } from './retention.js';

export interface WriterData {
  readonly dataDir: string;
  /** Int32 slots: SETTLED counts entries the writer has finished with (stored or failed); STOPPED is 1 once its store is closed. */
  readonly progress: SharedArrayBuffer;
  /** analytics.geoip_file, or null. */
  readonly geoipFile: string | null;
}

export const SETTLED = 0;
export const STOPPED = 1;

export type ToWriter = { type: 'write'; batch: EntryBatch } | { type: 'prune'; now: number; retentionDays: number } | { type: 'stop' };

export type FromWriter =
  | { type: 'ready' }
  /** A stored batch's typed arrays, moved back so the next batch reuses them instead of allocating. */
  | { type: 'written'; batch: EntryBatch }
  | { type: 'failed'; batch: EntryBatch; error: string }
  | ({ type: 'pruned' } & Pruned)
  | { type: 'prune-failed'; error: string }
  | { type: 'geoip-unreadable'; problem: string };
