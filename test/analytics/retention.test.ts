import { describe, expect, it } from 'vitest';
import { retentionCutoff, RetentionPruner } from '../../src/analytics/retention.js';
import { AnalyticsWriter } from '../../src/analytics/writer.js';
import { DAY, entry, storedCount, T0, tempStore } from './fixtures.js';

describe('analytics retention', () => {
  it('deletes entries and daily rollups from before the retention window, in batches, keeping the rest', async () => {
    const db = tempStore();
    const writer = new AnalyticsWriter(db);
    const midnight = T0 - (T0 % DAY);
    // 5,000 old entries: more than one batch.
    writer.writeEntries(Array.from({ length: 5_000 }, (_, index) => entry({ request_at: midnight - 11 * DAY + index, request_ip: `10.0.${index % 50}.1` })));
    writer.writeEntries([entry({ request_id: 'edge', request_at: midnight - 10 * DAY }), entry({ request_id: 'new', request_at: T0 })]);
    const pruner = new RetentionPruner(db);
    const cutoff = retentionCutoff(T0, 10);

    expect(cutoff).toBe(midnight - 10 * DAY);
    await expect(pruner.prune(cutoff)).resolves.toBe(5_000);
    expect(db.prepare('SELECT request_id FROM analytics_logs ORDER BY request_at').pluck().all()).toEqual(['edge', 'new']);
    expect(db.prepare('SELECT DISTINCT day FROM analytics_ip_days ORDER BY day').pluck().all()).toEqual([midnight / DAY - 10, midnight / DAY]);
    expect(db.prepare('SELECT DISTINCT day FROM analytics_user_days ORDER BY day').pluck().all()).toEqual([midnight / DAY - 10, midnight / DAY]);
    await expect(pruner.prune(cutoff)).resolves.toBe(0);
    expect(storedCount(db)).toBe(2);
  });

  it('runs one pruning at a time and stops when the store closes', async () => {
    const db = tempStore();
    new AnalyticsWriter(db).writeEntries(Array.from({ length: 4_500 }, (_, index) => entry({ request_at: index })));
    const pruner = new RetentionPruner(db);
    const first = pruner.prune(T0);
    expect(pruner.prune(T0)).toBe(first);
    // The first batch ran synchronously; the store closes before the next one.
    db.close();
    await expect(first).resolves.toBe(2_000);
  });
});
