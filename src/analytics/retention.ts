// Deletes entries older than analytics.retention_days, a small batch at a
// time with the event loop free between batches, so the proxy never waits.
import type { Db } from '../store/db.js';
import type { Clock } from '../lib/clock.js';

const DAY_MS = 86_400_000;
const BATCH_SIZE = 2_000;

export class RetentionPruner {
  private readonly deleteBatch: (cutoff: number) => number;
  private readonly db: Db;
  private running: Promise<number> | null = null;

  constructor(
    db: Db,
    private readonly clock: Clock,
    private readonly retentionDays: number,
  ) {
    this.db = db;
    const statement = db.prepare(
      'DELETE FROM analytics_logs WHERE id IN (SELECT id FROM analytics_logs WHERE request_at < ? ORDER BY request_at LIMIT ?)',
    );
    this.deleteBatch = (cutoff) => statement.run(cutoff, BATCH_SIZE).changes;
  }

  /** Entries before this instant are past retention. */
  cutoff(): number {
    return this.clock.now() - this.retentionDays * DAY_MS;
  }

  /** Prunes until nothing is past retention; resolves to the number deleted. One run at a time. */
  prune(): Promise<number> {
    this.running ??= this.pruneInBatches().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async pruneInBatches(): Promise<number> {
    let total = 0;
    // The store may close between two batches when the server stops.
    while (this.db.open) {
      const deleted = this.deleteBatch(this.cutoff());
      total += deleted;
      if (deleted < BATCH_SIZE) return total;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return total;
  }
}
