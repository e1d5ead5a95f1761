// The analytics views' form: the tabs, and the Interval choice against the
// date range (a chart takes at most a week of minutes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnalyticsFixture, type AnalyticsFixture } from './support.js';

let fx: AnalyticsFixture;

beforeAll(async () => {
  fx = await startAnalyticsFixture();
});
afterAll(() => fx.close());

/** The Interval select's options, each "value" or "value (disabled)", and the selected one. */
function intervalOptions(html: string): { options: string[]; selected: string | undefined } {
  const select = /<select name="interval"[^>]*>([\s\S]*?)<\/select>/.exec(html)![1]!;
  const options = [...select.matchAll(/<option value="(\w+)"([^>]*)>/g)];
  return {
    options: options.map(([, value, attributes]) => (attributes!.includes('disabled') ? `${value} (disabled)` : value!)),
    selected: options.find(([, , attributes]) => attributes!.includes('selected'))?.[1],
  };
}

describe('the Interval choice', () => {
  it('shows a range by its finest allowed interval, saying so, when the one asked for is too fine for it', async () => {
    for (const path of ['/admin/analytics/logs', '/admin/analytics/users', '/admin/analytics/locations', '/admin/analytics/drilldown']) {
      const { status, text } = await fx.page(`${path}?interval=minute&range=last_30_days`);
      expect(status, path).toBe(200);
      expect(text, path).toContain('data-testid="interval-notice">Minute would make more than 10,080 points over this date range: shown by hour instead.<');
      expect(intervalOptions(text).selected, path).toBe('hour');
    }
    const { text } = await fx.page('/admin/analytics/logs?interval=minute&range=last_30_days');
    expect(text.match(/<rect /g)).toHaveLength(30 * 24);
    // The view's links carry the interval shown.
    expect(text).toContain('href="/admin/analytics/users?range=last_30_days&amp;interval=hour"');
  });

  it('offers the intervals a range refuses disabled', async () => {
    expect(intervalOptions((await fx.page('/admin/analytics/logs?range=last_30_days')).text)).toEqual({
      options: ['minute (disabled)', 'hour', 'day', 'week', 'month'],
      selected: 'day',
    });
    // A year has fewer hours than a chart takes points: only Minute is ever refused, past a week.
    expect(intervalOptions((await fx.page('/admin/analytics/logs?range=custom&start_at=2025-01-01&end_at=2025-12-31&interval=hour')).text)).toEqual({
      options: ['minute (disabled)', 'hour', 'day', 'week', 'month'],
      selected: 'hour',
    });
    expect(intervalOptions((await fx.page('/admin/analytics/logs?range=custom&start_at=2025-01-01&end_at=2025-01-08')).text).options).toContain('minute (disabled)');
    // A page refused for another reason keeps the interval shown and the choice.
    const refused = await fx.page('/admin/analytics/logs?range=last_30_days&interval=minute&start=x');
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('data-testid="interval-notice"');
    expect(intervalOptions(refused.text)).toEqual({ options: ['minute (disabled)', 'hour', 'day', 'week', 'month'], selected: 'hour' });
    const week = await fx.page('/admin/analytics/logs?range=last_7_days&interval=minute');
    expect(week.text).not.toContain('data-testid="interval-notice"');
    expect(intervalOptions(week.text)).toEqual({ options: ['minute', 'hour', 'day', 'week', 'month'], selected: 'minute' });
  });

  it('keeps refusing it at the JSON and CSV endpoints, which a script asked', async () => {
    for (const path of ['/admin/stats/search.json', '/admin/stats/logs.csv']) {
      const { status, text } = await fx.stats(path, { interval: 'minute', start_at: '2026-01-01', end_at: '2026-01-30' });
      expect(status, path).toBe(400);
      expect(text, path).toContain('The interval minute is too short for this date range');
    }
  });
});

describe('the tabs', () => {
  it('link the current view to its own URL, not to "#"', async () => {
    const rules = encodeURIComponent(JSON.stringify([{ field: 'request_path', operator: 'begins_with', value: '/a' }]));
    const { text } = await fx.page(`/admin/analytics/users?range=last_7_days&query=${rules}&order=hits%3Aasc`);
    expect(text).not.toContain('href="#"');
    const current = /<a href="([^"]*)" aria-current="page">By Users<\/a>/.exec(text.slice(text.indexOf('class="analytics-tabs"')))![1]!.replaceAll('&amp;', '&');
    expect(current).toBe(`/admin/analytics/users?range=last_7_days&query=${rules}&order=hits%3Aasc`);
  });
});
