// Writes batches of entries into analytics_logs and the daily rollups, one
// transaction per batch.
import type { Db } from '../store/db.js';
import { DailyRollups } from './daily-rollups.js';
import { FIELDS } from './fields.js';
import type { AnalyticsEntry } from './log-entry.js';

const COLUMNS = FIELDS.map((info) => info.name);

export class AnalyticsWriter {
  private readonly writeBatch: (batch: readonly AnalyticsEntry[]) => void;

  constructor(db: Db) {
    const insert = db.prepare(`INSERT INTO analytics_logs (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((name) => `@${name}`).join(', ')})`);
    const rollups = new DailyRollups(db);
    this.writeBatch = db.transaction((batch: readonly AnalyticsEntry[]) => {
      for (const entry of batch) insert.run(entry);
      rollups.add(batch);
    });
  }

  /** All or nothing: on an error no entry of the batch is stored. */
  write(batch: readonly AnalyticsEntry[]): void {
    if (batch.length > 0) this.writeBatch(batch);
  }
}
