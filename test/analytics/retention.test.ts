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
    const pruner = new RetentionPruner(db, () => writer.contextsDeleted());
    const cutoff = retentionCutoff(T0, 10);

    expect(cutoff).toBe(midnight - 10 * DAY);
    await expect(pruner.prune(cutoff)).resolves.toBe(5_000);
    expect(db.prepare('SELECT request_id FROM analytics_logs ORDER BY request_at').pluck().all()).toEqual(['edge', 'new']);
    expect(db.prepare('SELECT DISTINCT day FROM analytics_ip_days ORDER BY day').pluck().all()).toEqual([midnight / DAY - 10, midnight / DAY]);
    expect(db.prepare('SELECT DISTINCT day FROM analytics_user_days ORDER BY day').pluck().all()).toEqual([midnight / DAY - 10, midnight / DAY]);
    await expect(pruner.prune(cutoff)).resolves.toBe(0);
    expect(storedCount(db)).toBe(2);
  });

  it('deletes the contexts no kept entry points at, and a client seen again afterwards gets a context of its own', async () => {
    const db = tempStore();
    const writer = new AnalyticsWriter(db);
    const midnight = T0 - (T0 % DAY);
    const old = { request_ip: '192.0.2.1', user_id: 'user-old', user_email: 'old@example.com' };
    writer.writeEntries([entry({ ...old, request_id: 'old', request_at: midnight - 11 * DAY }), entry({ request_id: 'kept', request_at: T0 })]);
    const contexts = () => db.prepare('SELECT user_id FROM analytics_contexts ORDER BY id').pluck().all();
    expect(contexts()).toEqual(['user-old', entry().user_id]);

    await new RetentionPruner(db, () => writer.contextsDeleted()).prune(retentionCutoff(T0, 10));
    expect(contexts()).toEqual([entry().user_id]);
    // The writer had the old client's context cached: it must not name the deleted row.
    writer.writeEntries([entry({ ...old, request_id: 'back', request_at: T0 })]);
    expect(db.prepare("SELECT request_ip, user_id, user_email FROM analytics_logs WHERE request_id = 'back'").get()).toEqual(old);
  });

  it("deletes an entry's custom dimensions with it, and keeps those of the entries it keeps", async () => {
    const db = tempStore();
    const writer = new AnalyticsWriter(db);
    const midnight = T0 - (T0 % DAY);
    // 60 entries: the dimensions ride on a 50-row insert's neighbours and on a lone row alike.
    writer.writeEntries(Array.from({ length: 60 }, (_, index) => entry({ request_id: `old-${index}`, request_at: midnight - 11 * DAY + index, response_custom1: index % 20 === 0 ? `dimension ${index}` : null })));
    writer.writeEntries([entry({ request_id: 'kept', request_at: T0, response_custom2: 'kept', response_custom3: 'too' })]);
    const dimensions = () => db.prepare('SELECT response_custom1, response_custom2, response_custom3 FROM analytics_request_dimensions ORDER BY request_row').raw().all();
    expect(dimensions()).toEqual([['dimension 0', null, null], ['dimension 20', null, null], ['dimension 40', null, null], [null, 'kept', 'too']]);
    expect(db.prepare("SELECT response_custom1 FROM analytics_logs WHERE request_id = 'old-40'").pluck().get()).toBe('dimension 40');
    await new RetentionPruner(db, () => writer.contextsDeleted()).prune(retentionCutoff(T0, 10));
    expect(dimensions()).toEqual([[null, 'kept', 'too']]);
  });

  it('counts back from the newest entry when the clock is further past it: a start with the clock 100 days ahead deletes nothing', async () => {
    const db = tempStore();
    const writer = new AnalyticsWriter(db);
    const midnight = T0 - (T0 % DAY);
    writer.writeEntries([entry({ request_id: 'old', request_at: midnight - 11 * DAY }), entry({ request_id: 'recent', request_at: T0 - DAY }), entry({ request_id: 'newest', request_at: T0 })]);
    const pruner = new RetentionPruner(db, () => writer.contextsDeleted());

    await expect(pruner.pruneAt(T0 + 100 * DAY, 10)).resolves.toEqual({ deleted: 1, heldBack: true });
    expect(db.prepare('SELECT request_id FROM analytics_logs ORDER BY request_at').pluck().all()).toEqual(['recent', 'newest']);
    // New entries (the clock put right, or traffic back after a long idle time) move the cutoff on again.
    writer.writeEntries([entry({ request_id: 'later', request_at: T0 + 20 * DAY })]);
    await expect(pruner.pruneAt(T0 + 20 * DAY, 10)).resolves.toEqual({ deleted: 2, heldBack: false });
    await expect(new RetentionPruner(tempStore(), () => {}).pruneAt(T0, 10)).resolves.toEqual({ deleted: 0, heldBack: false });
  });

  it('runs one pruning at a time and stops when the store closes', async () => {
    const db = tempStore();
    const writer = new AnalyticsWriter(db);
    writer.writeEntries(Array.from({ length: 4_500 }, (_, index) => entry({ request_at: index })));
    const pruner = new RetentionPruner(db, () => writer.contextsDeleted());
    const first = pruner.prune(T0);
    expect(pruner.prune(T0)).toBe(first);
    // The first batch ran synchronously; the store closes before the next one.
    db.close();
    await expect(first).resolves.toBe(2_000);
  });
});
