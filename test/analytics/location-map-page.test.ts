// Analytics › By Location's map on the page, for a signed-in admin: a real
// gateway with DB-IP Lite as analytics.geoip_file, entries recorded through
// its analytics buffer and their IPs placed as a city database places them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbipCountryFile } from '../helpers/geoip.js';
import { entry } from './fixtures.js';
import { startAnalyticsFixture, type AnalyticsFixture } from './support.js';

let fx: AnalyticsFixture;

/** IP, country, state code and name, city, latitude, longitude, hits. */
const PLACES: [string, string, string | null, string | null, string, number | null, number | null, number][] = [
  ['192.0.2.1', 'US', 'CO', 'Colorado', 'Golden', 39.7146, -105.2433, 2],
  ['192.0.2.2', 'US', 'CA', 'California', 'San Diego', 32.7157, -117.1611, 1],
  ['192.0.2.3', 'CA', 'ON', 'Ontario', 'Toronto', 43.6949, -79.5323, 2],
  ['192.0.2.4', 'CA', 'QC', 'Quebec', 'Montréal', 45.5009, -73.5877, 1],
  ['192.0.2.5', 'GB', 'ENG', 'England', 'London', 51.5072, -0.1276, 7],
  ['192.0.2.6', 'SG', null, null, 'Singapore', 1.2897, 103.8501, 4],
  ['192.0.2.7', 'GB', 'SCT', 'Scotland', 'Nowhere Known', null, null, 1],
];

beforeAll(async () => {
  fx = await startAnalyticsFixture({ analytics: { geoip_file: dbipCountryFile('dbip-country.mmdb') } });
  const { context } = fx.gw;
  const now = Date.now();
  let second = 0;
  const place = context.db.prepare('INSERT INTO analytics_ip_locations VALUES (?, ?, ?, ?, ?, ?, ?)');
  for (const [ip, country, region, regionName, city, latitude, longitude, hits] of PLACES) {
    for (let count = 0; count < hits; count++) context.analytics.record(entry({ request_ip: ip, request_path: `/from/${ip}`, request_at: now - ++second * 1_000 }));
    place.run(ip, country, region, regionName, city, latitude, longitude);
  }
  context.analytics.flush();
});
afterAll(() => fx.close());

const level = (region: string) => `/admin/analytics/locations?range=last_14_days&amp;region=${region}`;

describe('Analytics › By Location draws a map above the table', () => {
  it('the world: every country, those with hits shaded and linked as their rows are, with a legend, under the pages’ CSP', async () => {
    const { status, text, headers } = await fx.page('/admin/analytics/locations');
    expect(status).toBe(200);
    const map = text.slice(text.indexOf('data-testid="location-map"'), text.indexOf('</figure>'));
    expect(text.indexOf('data-testid="location-map"')).toBeLessThan(text.indexOf('data-testid="locations-table"'));
    expect(map).toMatch(/<svg viewBox="0 0 960 \d+" role="img" aria-label="Map of hits per country: 4 countries with hits, the most in United Kingdom \(8 hits\)\."/);
    expect(map.match(/<path /g)!.length).toBeGreaterThanOrEqual(176);
    expect(map).toContain(`<a href="${level('GB')}" tabindex="-1"><path d="`);
    expect(map).toMatch(/class="area shade-5"><title>United Kingdom: 8 hits<\/title>/);
    // Countries without hits are not named: the page names only locations in the admin's view.
    expect(map).not.toContain('France');
    expect(map).toMatch(/<path d="M[^"]+" class="area shade-0"\/>/);
    // Singapore has no outline at 1:110m: a dot stands in for it.
    expect(map).toMatch(new RegExp(`<a href="${level('SG').replaceAll('?', '\\?')}" tabindex="-1"><circle [^>]+ class="marker shade-\\d"><title>Singapore: 4 hits</title>`));
    expect(map).toMatch(/data-testid="location-map-legend">\s*<span class="legend-title">Hits<\/span>/);
    // The table links the same levels.
    expect(text).toContain(`<a href="${level('GB')}">United Kingdom</a>`);
    // No inline style or script: the pages' Content-Security-Policy allows neither.
    expect(String(headers['content-security-policy'])).toMatch(/style-src 'self'.*script-src 'self'|script-src 'self'.*style-src 'self'/);
    expect(text).not.toMatch(/\sstyle=/);
    expect(text).not.toMatch(/<script(?![^>]*\ssrc=)/);
  });

  it('the United States: its states, those with hits linked to their level', async () => {
    const { text } = await fx.page('/admin/analytics/locations?region=US');
    expect(text).toContain('aria-label="Map of hits per state of the United States: 2 states with hits, the most in Colorado (2 hits)."');
    expect(text).toMatch(new RegExp(`<a href="${level('US-CO').replaceAll('?', '\\?')}" tabindex="-1"><path d="[^"]+" class="area shade-5"><title>Colorado: 2 hits</title>`));
    expect(text.match(/class="area shade-\d"/g)).toHaveLength(51);
  });

  it("another country: its outline with a dot per city, sized by hits", async () => {
    const { text } = await fx.page('/admin/analytics/locations?region=CA');
    expect(text).toContain('aria-label="Map of Canada: 2 cities as dots sized by hits, the most in Toronto (2 hits)."');
    expect(text).toMatch(/<path d="M[^"]+" class="area shade-0"><title>Canada<\/title><\/path>/);
    expect(text).toMatch(/<circle cx="[\d.]+" cy="[\d.]+" r="14" class="city"><title>Toronto, Ontario: 2 hits<\/title><\/circle>/);
    expect(text).toMatch(/<circle [^>]+ class="city"><title>Montréal, Quebec: 1 hit<\/title><\/circle>/);
  });

  it('a city without coordinates: listed, not drawn, and the map says so', async () => {
    const { text } = await fx.page('/admin/analytics/locations?region=GB');
    expect(text).toMatch(/<circle [^>]+ class="city"><title>London, England: 7 hits<\/title><\/circle>/);
    expect(text).toContain('1 location is only in the table (no place on this map)');
    expect(text).toMatch(/<td>Nowhere Known <span class="muted">Scotland<\/span><\/td>/);
  });

  it("a state: its outline and its cities", async () => {
    const { text } = await fx.page('/admin/analytics/locations?region=US-CO');
    expect(text).toMatch(/<path d="M[^"]+" class="area shade-0"><title>Colorado<\/title><\/path>/);
    expect(text).toMatch(/<circle [^>]+ class="city"><title>Golden, Colorado: 2 hits<\/title><\/circle>/);
  });

  it('no map where the view has no hits: the table says so', async () => {
    const nothing = encodeURIComponent(JSON.stringify([{ field: 'request_path', operator: 'equal', value: '/nowhere' }]));
    const { status, text } = await fx.page(`/admin/analytics/locations?query=${nothing}`);
    expect(status).toBe(200);
    expect(text).not.toContain('data-testid="location-map"');
    expect(text).toContain('No request in this view has a known country.');
  });
});
