import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entry } from './fixtures.js';
import { PAGE_DEFAULT_QUERY, shownDays, startAnalyticsFixture, type AnalyticsFixture } from './support.js';

let fx: AnalyticsFixture;
const XSS = '<script>alert("ua")</script>';

beforeAll(async () => {
  fx = await startAnalyticsFixture({ analytics: { max_buffer: 3, flush_interval_ms: 60_000 } });
  const { analytics } = fx.gw.context;
  analytics.record(entry({ request_at: Date.now(), request_user_agent: XSS, request_path: '/xss', user_email: 'viewer@example.com' }));
  analytics.record(entry({ request_at: Date.now(), request_path: '/denied', gatekeeper_denied_code: 'api_key_missing', user_id: null, user_email: null }));
  analytics.flush();
  // The buffer holds 3: the fourth is dropped and counted.
  for (let index = 0; index < 4; index++) analytics.record(entry({ request_at: Date.now() }));
});
afterAll(() => fx.close());

describe('Analytics › Filter Logs', () => {
  it('sends a visitor without a session to sign in', async () => {
    const response = await request(`${fx.gw.url}/admin/analytics/logs`);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/admin/login?next=%2Fadmin%2Fanalytics%2Flogs');
    await response.body.dump();
  });

  it('shows the last 14 days: chart, highlights, and the table without denied requests', async () => {
    const { status, text } = await fx.page('/admin/analytics/logs');
    expect(status).toBe(200);
    expect(text).toContain('<option value="last_14_days" selected>');
    expect(text.match(/<rect /g)).toHaveLength(14);
    expect(text).toMatch(/data-testid="total-hits">1</);
    expect(text).toContain('viewer@example.com');
    expect(text).not.toContain('/denied');
    expect(text).toContain(`href="/admin/stats/logs.csv?${shownDays(14)}&amp;${PAGE_DEFAULT_QUERY}"`);
  });

  it('says a page past the last entry is empty, and links back to the last page', async () => {
    const { status, text } = await fx.page('/admin/analytics/logs?start=100&length=50');
    expect(status).toBe(200);
    expect(text).toMatch(/data-testid="paging-summary">Past the last entry \(1 in all\)</);
    const previous = /href="([^"]*)"[^>]*>Previous</.exec(text)![1]!.replaceAll('&amp;', '&');
    expect(new URL(previous, fx.gw.url).searchParams.get('start')).toBeNull();
  });

  it('renders an XSS string in a user agent as text', async () => {
    const { text } = await fx.page('/admin/analytics/logs');
    expect(text).not.toContain(XSS);
    expect(text).toContain('&lt;script&gt;alert(&quot;ua&quot;)&lt;/script&gt;');
  });

  it('turns the filter form into a bookmarkable URL, and each filter can be removed', async () => {
    const form = await fx.page('/admin/analytics/logs?range=last_7_days&interval=hour&field=gatekeeper_denied_code&operator=is_null&value=&field=request_path&operator=begins_with&value=%2Fxs&field=&operator=equal&value=');
    expect(form.status).toBe(303);
    const location = String(form.headers.location);
    const params = new URL(location, fx.gw.url).searchParams;
    expect(params.get('range')).toBe('last_7_days');
    expect(JSON.parse(params.get('query')!)).toEqual([
      { field: 'gatekeeper_denied_code', operator: 'is_null', value: '' },
      { field: 'request_path', operator: 'begins_with', value: '/xs' },
    ]);
    const { text } = await fx.page(location);
    expect(text).toMatch(/data-testid="total-hits">1</);
    expect(text).toContain('value="/xs"');
    const removeLinks = [...text.matchAll(/href="([^"]+)" class="secondary" data-testid="remove-filter"/g)].map((match) => match[1]!.replaceAll('&amp;', '&'));
    expect(removeLinks).toHaveLength(2);
    const withoutDefault = await fx.page(removeLinks[0]!);
    expect(withoutDefault.text).toMatch(/data-testid="total-hits">1</);
    const everything = await fx.page('/admin/analytics/logs?query=%5B%5D');
    expect(everything.text).toMatch(/data-testid="total-hits">2</);
    expect(everything.text).toContain('/denied');
  });

  it("names each filter row's controls by the row's number, the blank row for a new filter too", async () => {
    const rules = [{ field: 'request_path', operator: 'begins_with', value: '/a' }, { field: 'response_status', operator: 'equal', value: '200' }];
    const { text } = await fx.page(`/admin/analytics/logs?query=${encodeURIComponent(JSON.stringify(rules))}`);
    const labels = [...text.matchAll(/aria-label="(Filter \d+ \w+|Remove filter \d+)"/g)].map((match) => match[1]);
    expect(labels).toEqual([
      'Filter 1 field', 'Filter 1 operator', 'Filter 1 value', 'Remove filter 1',
      'Filter 2 field', 'Filter 2 operator', 'Filter 2 value', 'Remove filter 2',
      'Filter 3 field', 'Filter 3 operator', 'Filter 3 value',
    ]);
    expect(text).not.toMatch(/aria-label="(Field|Operator|Value)"/);
  });

  it("offers API Umbrella's operators in each filter row, the negated and inclusive ones too", async () => {
    const { text } = await fx.page('/admin/analytics/logs');
    const row = text.slice(text.indexOf('aria-label="Filter 1 operator"'), text.indexOf('aria-label="Filter 1 value"'));
    const offered = [...row.matchAll(/<option value="(\w+)"[^>]*>([^<]+)</g)].map((match) => `${match[1]}: ${match[2]}`);
    expect(offered).toEqual([
      'equal: equals', 'not_equal: not equals', 'begins_with: begins with', 'not_begins_with: does not begin with',
      'contains: contains', 'not_contains: does not contain', 'is_null: is empty', 'is_not_null: is not empty',
      'less: &lt;', 'less_or_equal: ≤', 'greater: &gt;', 'greater_or_equal: ≥', 'between: between',
    ]);
  });

  it('keeps the filters of a bad API Umbrella style query in the form, to be fixed in place', async () => {
    const query = { condition: 'AND', rules: [{ id: 'request_path', operator: 'begins_with', value: '/kept' }, { id: 'response_time', operator: 'less', value: 'soon' }] };
    const { status, text } = await fx.page(`/admin/analytics/logs?query=${encodeURIComponent(JSON.stringify(query))}`);
    expect(status).toBe(400);
    expect(text).toContain('value="/kept"');
    expect(text).toContain('value="soon"');
  });

  it('keeps the sort order and page length when the filter form is applied', async () => {
    const { text } = await fx.page('/admin/analytics/logs?range=last_7_days&order=response_time%3Aasc&length=20');
    expect(text).toContain('<input type="hidden" name="order" value="response_time:asc">');
    expect(text).toContain('<input type="hidden" name="length" value="20">');
    const form = await fx.page('/admin/analytics/logs?range=last_7_days&order=response_time%3Aasc&length=20&field=request_path&operator=begins_with&value=%2Fxs');
    const params = new URL(String(form.headers.location), fx.gw.url).searchParams;
    expect([params.get('order'), params.get('length')]).toEqual(['response_time:asc', '20']);
  });

  it("drops the form's dates from the URL when a preset range is applied, and keeps them for a custom range", async () => {
    const form = '&interval=hour&search=xs&field=request_path&operator=begins_with&value=%2Fxs&field=&operator=equal&value=';
    const preset = await fx.page(`/admin/analytics/logs?range=today&start_at=2026-11-15&end_at=2026-11-28${form}`);
    expect(preset.status).toBe(303);
    const presetParams = new URL(String(preset.headers.location), fx.gw.url).searchParams;
    expect([...presetParams.keys()].sort()).toEqual(['interval', 'query', 'range', 'search']);
    expect(presetParams.get('range')).toBe('today');
    expect((await fx.page(String(preset.headers.location))).status).toBe(200);

    const custom = await fx.page(`/admin/analytics/logs?range=custom&start_at=2026-11-15&end_at=2026-11-28${form}`);
    const customParams = new URL(String(custom.headers.location), fx.gw.url).searchParams;
    expect([customParams.get('range'), customParams.get('start_at'), customParams.get('end_at')]).toEqual(['custom', '2026-11-15', '2026-11-28']);
    const { status, text } = await fx.page(String(custom.headers.location));
    expect(status).toBe(200);
    expect(text).toContain('<option value="custom" selected>');
    expect(text).toContain('name="start_at" value="2026-11-15"');
  });

  it.each(['/admin/analytics/logs', '/admin/analytics/users', '/admin/analytics/locations', '/admin/analytics/drilldown'])(
    'sends a link to %s with dates beside a preset range to the same view without them',
    async (path) => {
      const query = encodeURIComponent('[{"field":"request_path","operator":"begins_with","value":"/x"}]');
      const { status, headers } = await fx.page(`${path}?range=last_7_days&start_at=2026-11-15&end_at=2026-11-28&query=${query}&order=response_time%3Aasc&start=50`);
      expect(status).toBe(303);
      expect(headers.location).toBe(`${path}?range=last_7_days&query=${query}&order=response_time%3Aasc&start=50`);
    },
  );

  it('shows a bad filter as a message next to the filters with 400', async () => {
    const { status, text } = await fx.page(`/admin/analytics/logs?query=${encodeURIComponent('[{"field":"request_path","operator":"less","value":"1"}]')}`);
    expect(status).toBe(400);
    expect(text).toMatch(/data-testid="query-error">&quot;&lt;&quot; needs a number field; request_path is text</);
    expect(text).toContain('name="field"');
  });

  it('answers a filter whose field is an odd JSON object with the message, not a failure', async () => {
    const odd = [{ field: { toString: 1 }, operator: 'equal', value: { toString: 1 } }];
    const { status, text } = await fx.page(`/admin/analytics/logs?query=${encodeURIComponent(JSON.stringify(odd))}`);
    expect(status).toBe(400);
    expect(text).toContain('data-testid="query-error"');
  });

  it('shows how many entries were dropped because the buffer was full', async () => {
    const { text } = await fx.page('/admin/analytics/logs');
    expect(text).toMatch(/data-testid="dropped-entries">1 entry was dropped/);
  });
});

describe('Analytics › By Users', () => {
  it('lists hits and last request per API user, with a CSV link keeping the view', async () => {
    const { status, text } = await fx.page('/admin/analytics/users?range=last_7_days');
    expect(status).toBe(200);
    expect(text).toContain('viewer@example.com');
    expect(text).toContain(`href="/admin/stats/users.csv?${shownDays(7)}&amp;${PAGE_DEFAULT_QUERY}"`);
    expect(text).toContain('href="/admin/analytics/logs?range=last_7_days"');
  });
});

describe('Analytics › By Location', () => {
  it("is in the Analytics menu in the README's order, marked as the current page there", async () => {
    const { text } = await fx.page('/admin/analytics/locations');
    const menu = /<summary[^>]*>Analytics<\/summary>\s*<ul>([\s\S]*?)<\/ul>/.exec(text)![1]!;
    expect([...menu.matchAll(/<a href="([^"]+)"[^>]*>([^<]+)<\/a>/g)].map((link) => `${link[2]} ${link[1]}`)).toEqual([
      'Filter Logs /admin/analytics/logs',
      'By Users /admin/analytics/users',
      'By Location /admin/analytics/locations',
      'API Drilldown /admin/analytics/drilldown',
    ]);
    expect(menu).toContain('<a href="/admin/analytics/locations" aria-current="page">By Location</a>');
  });

  it('says that no GeoIP database is set, and keeps the view in the other tabs and the CSV link', async () => {
    const { status, text } = await fx.page('/admin/analytics/locations?range=last_7_days');
    expect(status).toBe(200);
    expect(text).toMatch(/data-testid="geoip-missing">No GeoIP database is set, so new requests are not placed: set <code>analytics\.geoip_file<\/code>/);
    expect(text).toContain('No request in this view has a known country.');
    expect(text).toContain('<strong aria-current="page">World</strong>');
    expect(text).toContain(`href="/admin/stats/map.csv?${shownDays(7)}&amp;${PAGE_DEFAULT_QUERY}"`);
    expect(text).toContain('href="/admin/analytics/users?range=last_7_days"');
  });

  it('keeps the level when the filter form is applied, but not in the links to the other tabs', async () => {
    const { text } = await fx.page('/admin/analytics/locations?range=last_7_days&region=US-CO');
    expect(text).toContain('<input type="hidden" name="region" value="US-CO">');
    expect(text).toContain('href="/admin/analytics/logs?range=last_7_days"');
    expect(text).toMatch(/<a href="\/admin\/analytics\/locations\?range=last_7_days">World<\/a>\s*› <a href="\/admin\/analytics\/locations\?range=last_7_days&amp;region=US">United States<\/a>\s*› <strong aria-current="page">CO<\/strong>/);
  });
});
