// A gateway whose analytics.timezone is America/Denver (as API Umbrella's
// own tests run): its endpoints and pages put requests in local days and
// hours, and show local times, while instants stay UTC.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { entry } from './fixtures.js';
import { EVERYTHING, startAnalyticsFixture, type AnalyticsFixture } from './support.js';

/** Friday 2026-11-27, 20:00 MST: already Saturday in UTC. */
const NOW = Date.UTC(2026, 10, 28, 3);
/** 2026-11-26, 23:30 MST: the day before, locally, though the same UTC day as the next. */
const LATE_THURSDAY = Date.UTC(2026, 10, 27, 6, 30);
/** 2026-11-27, 00:30 MST. */
const EARLY_FRIDAY = Date.UTC(2026, 10, 27, 7, 30);
/** 2026-11-27, 19:00 MST. */
const FRIDAY_EVENING = Date.UTC(2026, 10, 28, 2);
/** 1:30 AM on 2026-11-01, first in MDT, then again an hour later in MST. */
const FIRST_ONE_THIRTY = Date.UTC(2026, 10, 1, 7, 30);
const SECOND_ONE_THIRTY = Date.UTC(2026, 10, 1, 8, 30);

let fx: AnalyticsFixture;

beforeAll(async () => {
  fx = await startAnalyticsFixture({ analytics: { timezone: 'America/Denver' } }, { clock: new ManualClock(NOW) });
  const { analytics } = fx.gw.context;
  analytics.record(entry({ request_id: 'late-thursday', request_at: LATE_THURSDAY, request_ip: '192.0.2.1', request_path: '/late-thursday' }));
  analytics.record(entry({ request_id: 'early-friday', request_at: EARLY_FRIDAY, request_ip: '192.0.2.2', request_path: '/early-friday' }));
  analytics.record(entry({ request_id: 'friday-evening', request_at: FRIDAY_EVENING, request_ip: '192.0.2.2', request_path: '/friday-evening' }));
  analytics.record(entry({ request_id: 'first-one-thirty', request_at: FIRST_ONE_THIRTY }));
  analytics.record(entry({ request_id: 'second-one-thirty', request_at: SECOND_ONE_THIRTY }));
  analytics.flush();
});
afterAll(() => fx.close());

describe('analytics.timezone America/Denver: the JSON endpoints', () => {
  it('cut days at local midnight: requests an hour apart across it fall in two days, as summary.json says', async () => {
    const { status, body } = await fx.stats('/admin/stats/summary.json', { ...EVERYTHING, start_at: '2026-11-26', end_at: '2026-11-27', interval: 'day' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ start_at: '2026-11-26T07:00:00.000Z', end_at: '2026-11-28T07:00:00.000Z', hits: 3 });
    expect(body.chart).toEqual([
      { start_at: Date.UTC(2026, 10, 26, 7), hits: 1 },
      { start_at: Date.UTC(2026, 10, 27, 7), hits: 2 },
    ]);
  });

  it('take Today and Yesterday from the local date, with top users and IPs of those local days', async () => {
    const today = await fx.stats('/admin/stats/summary.json', { ...EVERYTHING, range: 'today' });
    expect(today.body).toMatchObject({ hits: 2, unique_users: 1, top_users: [{ user_id: 'user-1', hits: 2, last_request_at: FRIDAY_EVENING }], top_ips: [{ request_ip: '192.0.2.2', hits: 2 }] });
    const yesterday = await fx.stats('/admin/stats/summary.json', { ...EVERYTHING, range: 'yesterday' });
    expect(yesterday.body).toMatchObject({ hits: 1, top_users: [{ hits: 1 }], top_ips: [{ request_ip: '192.0.2.1', hits: 1 }] });
  });

  it("label 25 hours on the day the clock goes back, the repeated one first as MDT, then as MST, as API Umbrella's search.json does", async () => {
    const { body } = await fx.stats('/admin/stats/search.json', { ...EVERYTHING, start_at: '2026-11-01', end_at: '2026-11-01', interval: 'hour' });
    expect(body.hits_over_time).toHaveLength(25);
    expect(body.hits_over_time.slice(1, 3)).toEqual([
      { c: [{ v: FIRST_ONE_THIRTY - 30 * 60_000, f: 'Sun, Nov 1, 2026 1:00AM MDT' }, { v: 1, f: '1' }] },
      { c: [{ v: SECOND_ONE_THIRTY - 30 * 60_000, f: 'Sun, Nov 1, 2026 1:00AM MST' }, { v: 1, f: '1' }] },
    ]);
  });

  it('keep instants as they are: request_at in epoch ms and ISO UTC, the CSV named by the local days', async () => {
    const json = await fx.stats('/admin/stats/logs.json', { ...EVERYTHING, range: 'today' });
    expect(json.body.data.map((row: { request_at: number }) => row.request_at)).toEqual([FRIDAY_EVENING, EARLY_FRIDAY]);
    const csv = await fx.stats('/admin/stats/logs.csv', { ...EVERYTHING, range: 'today' });
    expect(csv.headers['content-disposition']).toBe('attachment; filename="logs-2026-11-27-to-2026-11-27.csv"');
    expect(csv.text.split('\n')[1]).toMatch(/^2026-11-28T02:00:00\.000Z,/);
  });
});

describe('analytics.timezone America/Denver: the pages', () => {
  it('show request times on the local clock, say which zone, and show the range as local dates', async () => {
    const { status, text } = await fx.page(`/admin/analytics/logs?range=today&query=${encodeURIComponent('[]')}`);
    expect(status).toBe(200);
    expect(text).toContain('Times are America/Denver time.');
    expect(text).toContain('>2026-11-27 19:00 MST<');
    expect(text).toContain('>2026-11-27 00:30 MST<');
    expect(text).not.toContain('2026-11-28 02:00');
    expect(text).toContain('name="start_at" value="2026-11-27"');
    expect(text).toContain('name="end_at" value="2026-11-27"');
  });

  it('tell the two 1:30 AMs of the day the clock goes back apart, and chart its 25 hours', async () => {
    const { text } = await fx.page(`/admin/analytics/logs?start_at=2026-11-01&end_at=2026-11-01&interval=hour&query=${encodeURIComponent('[]')}`);
    expect(text).toContain('>2026-11-01 01:30 MDT<');
    expect(text).toContain('>2026-11-01 01:30 MST<');
    expect(text.match(/<rect /g)).toHaveLength(25);
  });

  it("show By Users' last request on the local clock", async () => {
    const { text } = await fx.page(`/admin/analytics/users?range=today&query=${encodeURIComponent('[]')}`);
    expect(text).toContain('<td class="nowrap">2026-11-27 19:00 MST</td>');
  });
});
