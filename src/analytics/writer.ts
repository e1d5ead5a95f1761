// Writes batches of entries into analytics_logs and the daily rollups, one
// transaction per batch. Rows go in ROWS_PER_INSERT at a time with positional
// parameters, strings as their UTF-8 bytes (CAST to TEXT in SQL): about 2.4 µs
// an entry with the rollups, against 6-7 for one named-parameter insert per
// row of decoded strings, which matters because the writer shares the CPU
// with the proxy. SQLite's own insert and commit are most of it, binding a fifth.
import type { Db } from '../store/db.js';
import { DailyRollups } from './daily-rollups.js';
import { batchOf, NUMBER_FIELDS, PACKED_ORDER, readRowAsUtf8, type EntryBatch } from './entry-batch.js';
import type { AnalyticsEntry } from './log-entry.js';

const ROWS_PER_INSERT = 50;
const WIDTH = PACKED_ORDER.length;
/** Numbers bind as they are; every other column comes as UTF-8 bytes (or null) and is stored as TEXT. */
const PLACEHOLDERS = PACKED_ORDER.map((_, column) => (column < NUMBER_FIELDS.length ? '?' : 'CAST(? AS TEXT)')).join(', ');

export class AnalyticsWriter {
  private readonly writeBatch: (batch: EntryBatch) => void;

  constructor(db: Db) {
    const insert = (rows: number) =>
      db.prepare(`INSERT INTO analytics_logs (${PACKED_ORDER.join(', ')}) VALUES ${Array.from({ length: rows }, () => `(${PLACEHOLDERS})`).join(', ')}`);
    const many = insert(ROWS_PER_INSERT);
    const one = insert(1);
    const manyValues: unknown[] = new Array(ROWS_PER_INSERT * WIDTH);
    const oneValues: unknown[] = new Array(WIDTH);
    const rollups = new DailyRollups(db);
    this.writeBatch = db.transaction((batch: EntryBatch) => {
      const whole = batch.count - (batch.count % ROWS_PER_INSERT);
      for (let index = 0; index < whole; index++) {
        const slot = index % ROWS_PER_INSERT;
        readRowAsUtf8(batch, index, manyValues, slot * WIDTH);
        // As arguments, not one array: better-sqlite3 reads an array's items through V8's generic element lookup, which was a third of the binding.
        if (slot === ROWS_PER_INSERT - 1) many.run(...manyValues);
      }
      for (let index = whole; index < batch.count; index++) {
        readRowAsUtf8(batch, index, oneValues);
        one.run(...oneValues);
      }
      rollups.add(batch);
    });
  }

  /** All or nothing: on an error no entry of the batch is stored. */
  write(batch: EntryBatch): void {
    if (batch.count > 0) this.writeBatch(batch);
  }

  /** The same for entries not yet in a batch (tests, the seed script). */
  writeEntries(entries: readonly AnalyticsEntry[]): void {
    this.write(batchOf(entries));
  }
}
