// Deletes entries older than analytics.retention_days, a small batch at a
// time with the event loop free between batches. The cutoff is a UTC
// midnight, so rows and daily rollups go together; the locations of IPs no
// longer in the rollups go with them, and so do the contexts (who called and
// how) that no kept request points at.
import type { Db } from '../store/db.js';
import { DAY_MS } from '../lib/iso-instant.js';
import { dayOf } from './daily-rollups.js';

const BATCH_SIZE = 2_000;

/** Entries before this instant (a UTC midnight) are past retention. */
export function retentionCutoff(now: number, retentionDays: number): number {
  return dayOf(now - retentionDays * DAY_MS) * DAY_MS;
}

/** What a prune did; heldBack: the clock is further past the newest entry than retention, so the cutoff counted back from that entry. */
export interface Pruned {
  readonly deleted: number;
  readonly heldBack: boolean;
}

export class RetentionPruner {
  private readonly newestAt: () => number | null;
  private readonly deleteRows: (cutoff: number) => number;
  private readonly deleteDaysBefore: (cutoffDay: number) => void;
  private running: Promise<number> | null = null;

  /** onContextsDeleted: the writer must stop naming the deleted contexts (AnalyticsWriter.contextsDeleted). */
  constructor(
    private readonly db: Db,
    onContextsDeleted: () => void,
  ) {
    const newest = db.prepare('SELECT MAX(request_at) FROM analytics_requests').pluck();
    this.newestAt = () => newest.get() as number | null;
    const rows = db.prepare('DELETE FROM analytics_requests WHERE id IN (SELECT id FROM analytics_requests WHERE request_at < ? ORDER BY request_at LIMIT ?)');
    const contexts = db.prepare('DELETE FROM analytics_contexts WHERE last_day < ?');
    const users = db.prepare('DELETE FROM analytics_user_days WHERE denied IN (0, 1) AND day < ?');
    const ips = db.prepare('DELETE FROM analytics_ip_days WHERE denied IN (0, 1) AND day < ?');
    const locations = db.prepare('DELETE FROM analytics_ip_locations WHERE request_ip NOT IN (SELECT request_ip FROM analytics_ip_days)');
    this.deleteRows = (cutoff) => rows.run(cutoff, BATCH_SIZE).changes;
    this.deleteDaysBefore = (cutoffDay) => {
      // At once, with no batch written in between that could name a deleted context from the writer's cache.
      if (contexts.run(cutoffDay).changes > 0) onContextsDeleted();
      users.run(cutoffDay);
      // The cutoff moves a day at a time: most runs delete no rollup, and then no location can have lost its last one.
      if (ips.run(cutoffDay).changes > 0) locations.run();
    };
  }

  /**
   * Deletes what is past retention at `now`, counted back from the newest
   * entry when the clock is further past it: a start with the clock far ahead
   * (a bad RTC, NTP not yet synchronised) would otherwise delete every entry.
   * An idle gateway keeps its last retention_days of entries until new ones
   * are written.
   */
  async pruneAt(now: number, retentionDays: number): Promise<Pruned> {
    const newest = this.newestAt();
    const cutoff = retentionCutoff(newest === null ? now : Math.min(now, newest), retentionDays);
    return { deleted: await this.prune(cutoff), heldBack: cutoff < retentionCutoff(now, retentionDays) };
  }

  /** Deletes everything before `cutoff`; resolves to the number of entries deleted. One run at a time. */
  prune(cutoff: number): Promise<number> {
    this.running ??= this.pruneInBatches(cutoff).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async pruneInBatches(cutoff: number): Promise<number> {
    let total = 0;
    // The store may close between two batches when the server stops.
    while (this.db.open) {
      const deleted = this.deleteRows(cutoff);
      total += deleted;
      if (deleted < BATCH_SIZE) {
        this.deleteDaysBefore(dayOf(cutoff));
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    return total;
  }
}
