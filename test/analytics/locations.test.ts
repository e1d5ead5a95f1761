// Analytics › By Location: client IPs placed by a real GeoIP database (DB-IP
// Lite's country database, from npm) as the writer stores their requests, and
// the map.json levels of API Umbrella's test_map.rb over a store whose
// locations have states and cities, as a city database gives them.
import { copyFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GeoIpDatabase, locationOf, type IpLocation } from '../../src/analytics/geoip.js';
import { AnalyticsQueries } from '../../src/analytics/log-queries.js';
import { DEFAULT_RULES } from '../../src/analytics/query/filter-rules.js';
import { parseMapQuery, type MapQuery } from '../../src/analytics/query/map-region.js';
import { RetentionPruner } from '../../src/analytics/retention.js';
import { AnalyticsWriter } from '../../src/analytics/writer.js';
import type { Db } from '../../src/store/db.js';
import { tempDir } from '../helpers/config.js';
import { dbipCountryFile } from '../helpers/geoip.js';
import { DAY, entry, T0, tempStore } from './fixtures.js';
import { PAGE_DEFAULT_QUERY, shownDays, startAnalyticsFixture, type AnalyticsFixture } from './support.js';

const COUNTRY_DB = dbipCountryFile('dbip-country.mmdb');
const IPV6_ONLY_DB = dbipCountryFile('dbip-country-ipv6.mmdb');
const IPV4_ONLY_DB = dbipCountryFile('dbip-country-ipv4.mmdb');

describe('a GeoIP record', () => {
  it("reads MaxMind's layout: country, first subdivision, city and location", () => {
    const record = {
      country: { iso_code: 'US', names: { en: 'United States' } },
      subdivisions: [{ iso_code: 'CO', names: { en: 'Colorado' } }, { iso_code: 'XX' }],
      city: { names: { en: 'Golden', de: 'Golden' } },
      location: { latitude: 39.7146, longitude: -105.2433 },
    };
    expect(locationOf(record)).toEqual({ country: 'US', region: 'CO', region_name: 'Colorado', city: 'Golden', latitude: 39.7146, longitude: -105.2433 });
  });

  it("reads ip-location-db's flat layout, where the state is a name", () => {
    expect(locationOf({ country_code: 'ca', state1: 'Ontario', city: 'Toronto', latitude: 43.6949, longitude: -79.5323 })).toEqual({
      country: 'CA',
      region: 'Ontario',
      region_name: 'Ontario',
      city: 'Toronto',
      latitude: 43.6949,
      longitude: -79.5323,
    });
    expect(locationOf({ country_code: 'GB' })).toEqual({ country: 'GB', region: null, region_name: null, city: null, latitude: null, longitude: null });
  });

  it('places nothing without a country', () => {
    expect(locationOf(null)).toBeNull();
    expect(locationOf({ continent: { code: 'EU' } })).toBeNull();
    expect(locationOf({ country: { iso_code: '' } })).toBeNull();
  });
});

describe('GeoIpDatabase', () => {
  it('places IPv4, IPv4-mapped IPv6 and IPv6 addresses, and not private ones or non-addresses', () => {
    const geoip = new GeoIpDatabase(COUNTRY_DB, (problem) => expect.fail(problem));
    expect(geoip.locate('8.8.8.8')?.country).toBe('US');
    expect(geoip.locate('::ffff:81.2.69.160')?.country).toBe('GB');
    expect(geoip.locate('2001:4860:4860::8888')?.country).toEqual(expect.stringMatching(/^[A-Z]{2}$/));
    expect(geoip.locate('127.0.0.1')).toBeNull();
    expect(geoip.locate('10.1.2.3')).toBeNull();
    // The reader itself would walk these as bits into some country.
    for (const notAnAddress of ['not-an-ip', '8.8.8', '8.8.8.8:1234', '1.1.1.1.1', '', '::ffff:8.8.8']) expect(geoip.locate(notAnAddress)).toBeNull();
  });

  it('places no IPv6 address with an IPv4-only database (which would read its first 32 bits as an IPv4 address)', () => {
    const geoip = new GeoIpDatabase(IPV4_ONLY_DB, (problem) => expect.fail(problem));
    expect(geoip.locate('2a03:2880:f10c:83:face:b00c:0:25de')).toBeNull();
    expect(geoip.locate('8.8.8.8')?.country).toBe('US');
  });

  it('reads the file again once it changes, at most once a minute, and keeps the one it has when the new one is unreadable', () => {
    const file = join(tempDir('parasol-geoip-'), 'country.mmdb');
    copyFileSync(IPV6_ONLY_DB, file);
    let now = 0;
    const problems: string[] = [];
    const geoip = new GeoIpDatabase(file, (problem) => problems.push(problem), () => now);
    expect(geoip.locate('8.8.8.8')).toBeNull();

    copyFileSync(COUNTRY_DB, file);
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    now = 59_999;
    expect(geoip.locate('8.8.8.8')).toBeNull();
    now = 60_000;
    expect(geoip.locate('8.8.8.8')?.country).toBe('US');

    writeFileSync(file, 'half-written');
    utimesSync(file, new Date(), new Date(Date.now() + 10_000));
    now = 120_000;
    expect(geoip.locate('81.2.69.160')?.country).toBe('GB');
    expect(problems).toEqual([expect.stringMatching(/^analytics\.geoip_file: cannot read \S+country\.mmdb: not a MaxMind-format \(\.mmdb\) database: /)]);
  });

  it('places nothing, and says why, when the file is gone from the start', () => {
    const problems: string[] = [];
    const geoip = new GeoIpDatabase('/nonexistent/city.mmdb', (problem) => problems.push(problem));
    expect(geoip.locate('8.8.8.8')).toBeNull();
    expect(problems).toEqual(['analytics.geoip_file: cannot read /nonexistent/city.mmdb: no such file (ENOENT)']);
  });
});

describe('By Location through the gateway, with DB-IP Lite as analytics.geoip_file', () => {
  let fx: AnalyticsFixture;
  beforeAll(async () => {
    fx = await startAnalyticsFixture({ trusted_proxies: ['127.0.0.1'], analytics: { geoip_file: COUNTRY_DB } });
    const calls: [string, Record<string, string>][] = [
      ['/echo/a', { 'x-forwarded-for': '8.8.8.8' }],
      ['/echo/b', { 'x-forwarded-for': '8.8.4.4' }],
      ['/echo/c', { 'x-forwarded-for': '81.2.69.160' }],
      // Loopback: logged, placed nowhere.
      ['/echo/d', {}],
    ];
    for (const [path, headers] of calls) expect((await fx.call(`${path}?api_key=${fx.apiKey}`, headers)).status).toBe(200);
    await writtenByWriterThread(4);
  });

  /** Entries are placed by the writer thread (flush() writes on the main thread, which places nothing). */
  async function writtenByWriterThread(entries: number): Promise<void> {
    await vi.waitFor(
      async () => {
        if ((await fx.stats('/admin/stats/logs.json', { query: '[]' })).body.recordsTotal !== entries) throw new Error(`not ${entries} entries yet`);
      },
      { timeout: 2_000, interval: 50 },
    );
  }
  afterAll(() => fx.close());

  it('map.json lists countries by hits, as API Umbrella answers region=world', async () => {
    const { status, body } = await fx.stats('/admin/stats/map.json', { region: 'world' });
    expect(status).toBe(200);
    expect(body).toEqual({
      map_breadcrumbs: [],
      map_regions: [
        { c: [{ v: 'US', f: 'United States' }, { v: 2, f: '2' }] },
        { c: [{ v: 'GB', f: 'United Kingdom' }, { v: 1, f: '1' }] },
      ],
      region_field: 'request_ip_country',
      // The request from loopback, which no database places, is Unknown, as API Umbrella lists it: the hits add up.
      regions: [
        { id: 'US', name: 'United States', hits: 2 },
        { id: 'GB', name: 'United Kingdom', hits: 1 },
        { id: 'missing', name: 'Unknown', hits: 1 },
      ],
    });
    // Without region: the world.
    expect((await fx.stats('/admin/stats/map.json')).body.regions).toHaveLength(3);
  });

  it("map.json applies the view: filters on the rows; denied requests count without a query, as API Umbrella's, and the pages' default filter hides them", async () => {
    const onePath = await fx.stats('/admin/stats/map.json', { query: JSON.stringify([{ field: 'request_path', operator: 'equal', value: '/echo/c' }]) });
    expect(onePath.body.regions).toEqual([{ id: 'GB', name: 'United Kingdom', hits: 1 }]);
    expect((await fx.call('/echo/denied', { 'x-forwarded-for': '81.2.69.160' })).status).toBe(403);
    await writtenByWriterThread(5);
    expect((await fx.stats('/admin/stats/map.json')).body.regions).toContainEqual({ id: 'GB', name: 'United Kingdom', hits: 2 });
    expect((await fx.stats('/admin/stats/map.json', { query: JSON.stringify(DEFAULT_RULES) })).body.regions).toContainEqual({ id: 'GB', name: 'United Kingdom', hits: 1 });
  });

  it("a country database has no states or cities: the level below has only the country's hits as Unknown", async () => {
    const { body } = await fx.stats('/admin/stats/map.json', { region: 'US' });
    expect(body).toEqual({
      map_breadcrumbs: [{ region: 'world', name: 'World' }, { name: 'United States' }],
      map_regions: [],
      region_field: 'request_ip_region',
      regions: [{ id: 'missing', name: 'Unknown', hits: 2 }],
    });
    const page = await fx.page('/admin/analytics/locations?region=US');
    expect(page.text).toContain('No request in this view has a known state.');
  });

  it("logs.json gives each entry its IP's location, and Filter Logs filters and sorts on it", async () => {
    const paths = async (rules: unknown[], order?: string) =>
      (await fx.stats('/admin/stats/logs.json', { query: JSON.stringify(rules), ...(order ? { order } : {}) })).body.data.map((row: { request_path: string }) => row.request_path);
    const { body } = await fx.stats('/admin/stats/logs.json', { query: JSON.stringify([{ field: 'request_path', operator: 'equal', value: '/echo/a' }]) });
    expect(body.data[0]).toMatchObject({ request_ip: '8.8.8.8', request_ip_country: 'US', request_ip_region: null, request_ip_city: null });
    expect(await paths([{ field: 'request_ip_country', operator: 'equal', value: 'GB' }, { field: 'gatekeeper_denied_code', operator: 'is_null' }])).toEqual(['/echo/c']);
    expect(await paths([{ field: 'request_ip_country', operator: 'is_null' }])).toEqual(['/echo/d']);
    expect(await paths([{ field: 'request_ip_country', operator: 'is_not_null' }], 'request_ip_country:asc')).toEqual(['/echo/c', '/echo/denied', '/echo/a', '/echo/b']);
    expect(await paths([{ field: 'request_ip_country', operator: 'begins_with', value: 'U' }], 'request_ip_country:desc')).toEqual(['/echo/b', '/echo/a']);
    const page = await fx.page('/admin/analytics/logs');
    expect(page.text).toMatch(/<th[^>]*>\s*<a [^>]*>Country/);
  });

  it('map.csv has every location of the level', async () => {
    const csv = await fx.stats('/admin/stats/map.csv', { query: JSON.stringify(DEFAULT_RULES) });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="locations-world-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(csv.text).toBe('Location ID,Location,Region,Hits\nUS,United States,,2\nGB,United Kingdom,,1\nmissing,Unknown,,1\n');
    // A region named in any script: the file name keeps ASCII letters, digits and "-".
    const named = await fx.stats('/admin/stats/map.csv', { region: 'JP-東京都' });
    expect(named.status).toBe(200);
    expect(named.headers['content-disposition']).toMatch(/^attachment; filename="locations-JP-___-\d{4}-/);
  });

  it('answers 400 for a region that is not one', async () => {
    for (const region of ['USA', 'U1', '-CO', 'US-a\nb', 'US-']) {
      const { status, body } = await fx.stats('/admin/stats/map.json', { region });
      expect(status).toBe(400);
      expect(body.error).toBe('region must be world, a two-letter country code (US) or a country and region (US-CO)');
    }
    expect((await fx.page('/admin/analytics/locations?region=USA')).status).toBe(400);
  });

  it('the By Location page lists the countries with their share and a link to each', async () => {
    const page = await fx.page('/admin/analytics/locations');
    expect(page.status).toBe(200);
    const table = page.text.slice(page.text.indexOf('data-testid="locations-table"'));
    expect(table).toMatch(/<a href="\/admin\/analytics\/locations\?range=last_14_days&amp;region=US">United States<\/a> <span class="muted">US<\/span><\/td>\s*<td class="num">2<\/td>\s*<td class="num">50\.0%<\/td>/);
    expect(table).toContain('United Kingdom');
    // Unknown: a share of the hits, and no level to go down to.
    expect(table).toMatch(/<td>Unknown<\/td>\s*<td class="num">1<\/td>\s*<td class="num">25\.0%<\/td>/);
    expect(page.text).not.toContain('data-testid="geoip-missing"');
    expect(page.text).toContain(`href="/admin/stats/map.csv?${shownDays(14)}&amp;${PAGE_DEFAULT_QUERY}"`);
  });
});

describe('By Location levels (API Umbrella test_map.rb) over a store with states and cities', () => {
  const NOW = T0 + 3_600_000;
  let db: Db;
  let queries: AnalyticsQueries;

  const PLACES: Record<string, IpLocation> = {
    '192.0.2.1': { country: 'US', region: 'CO', region_name: 'Colorado', city: 'Golden', latitude: 39.7146, longitude: -105.2433 },
    '192.0.2.2': { country: 'US', region: 'CA', region_name: 'California', city: 'San Diego', latitude: 32.7157, longitude: -117.1611 },
    '192.0.2.3': { country: 'CA', region: 'ON', region_name: 'Ontario', city: 'Toronto', latitude: 43.6949, longitude: -79.5323 },
    '192.0.2.4': { country: 'CA', region: 'QC', region_name: 'Quebec', city: 'Montréal', latitude: 45.5009, longitude: -73.5877 },
    // Two Richmonds in one country are two cities, each at its own place; one city the database gives no coordinates.
    '192.0.2.5': { country: 'GB', region: 'ENG', region_name: 'England', city: 'London', latitude: 51.5072, longitude: -0.1276 },
    '192.0.2.6': { country: 'CA', region: 'BC', region_name: 'British Columbia', city: 'Richmond', latitude: 49.1666, longitude: -123.1336 },
    '192.0.2.7': { country: 'CA', region: 'QC', region_name: 'Quebec', city: 'Richmond', latitude: 45.6668, longitude: -72.1497 },
    '192.0.2.8': { country: 'GB', region: 'SCT', region_name: 'Scotland', city: 'Nowhere Known', latitude: null, longitude: null },
  };

  beforeAll(() => {
    db = tempStore();
    const hits: [string, number][] = [['192.0.2.1', 2], ['192.0.2.2', 1], ['192.0.2.3', 2], ['192.0.2.4', 1], ['198.51.100.9', 4], ['192.0.2.5', 7], ['192.0.2.6', 1], ['192.0.2.7', 1], ['192.0.2.8', 1]];
    new AnalyticsWriter(db).writeEntries(hits.flatMap(([ip, count]) => Array.from({ length: count }, () => entry({ request_ip: ip, request_path: `/from/${ip}` }))));
    const insert = db.prepare('INSERT INTO analytics_ip_locations VALUES (?, ?, ?, ?, ?, ?, ?)');
    for (const [ip, at] of Object.entries(PLACES)) insert.run(ip, at.country, at.region, at.region_name, at.city, at.latitude, at.longitude);
    queries = new AnalyticsQueries(db);
  });

  function map(region: string, params: Record<string, unknown> = {}): unknown {
    const parsed = parseMapQuery({ range: 'last_7_days', region, ...params }, NOW);
    if (!parsed.ok) throw new Error(parsed.error);
    return queries.locations(parsed.query satisfies MapQuery);
  }

  it('world: countries, then the hits of IPs placed nowhere as Unknown, on no map', () => {
    expect(map('world')).toMatchObject({
      region_field: 'request_ip_country',
      regions: [
        { id: 'GB', name: 'United Kingdom', hits: 8 },
        { id: 'CA', name: 'Canada', hits: 5 },
        { id: 'US', name: 'United States', hits: 3 },
        { id: 'missing', name: 'Unknown', hits: 4 },
      ],
      map_regions: [{ c: [{ v: 'GB', f: 'United Kingdom' }, { v: 8, f: '8' }] }, { c: [{ v: 'CA', f: 'Canada' }, { v: 5, f: '5' }] }, { c: [{ v: 'US', f: 'United States' }, { v: 3, f: '3' }] }],
      map_breadcrumbs: [],
    });
  });

  it('a country other than the United States: its cities, at their coordinates, a name in two provinces twice', () => {
    expect(map('CA')).toEqual({
      map_breadcrumbs: [{ region: 'world', name: 'World' }, { name: 'Canada' }],
      map_regions: [
        { c: [{ v: 43.6949 }, { v: -79.5323 }, { v: 'Toronto' }, { v: 2, f: '2' }] },
        { c: [{ v: 45.5009 }, { v: -73.5877 }, { v: 'Montréal' }, { v: 1, f: '1' }] },
        { c: [{ v: 49.1666 }, { v: -123.1336 }, { v: 'Richmond' }, { v: 1, f: '1' }] },
        { c: [{ v: 45.6668 }, { v: -72.1497 }, { v: 'Richmond' }, { v: 1, f: '1' }] },
      ],
      region_field: 'request_ip_city',
      regions: [
        { id: 'Toronto', name: 'Toronto', hits: 2, region: 'Ontario' },
        { id: 'Montréal', name: 'Montréal', hits: 1, region: 'Quebec' },
        { id: 'Richmond', name: 'Richmond', hits: 1, region: 'British Columbia' },
        { id: 'Richmond', name: 'Richmond', hits: 1, region: 'Quebec' },
      ],
    });
  });

  it('a city without coordinates is listed but not put on the map', () => {
    expect(map('GB')).toMatchObject({
      regions: [
        { id: 'London', hits: 7 },
        { id: 'Nowhere Known', hits: 1 },
      ],
      map_regions: [{ c: [{ v: 51.5072 }, { v: -0.1276 }, { v: 'London' }, { v: 7, f: '7' }] }],
    });
  });

  it('the United States: its states', () => {
    expect(map('us')).toEqual({
      map_breadcrumbs: [{ region: 'world', name: 'World' }, { name: 'United States' }],
      map_regions: [
        { c: [{ v: 'CO', f: 'Colorado' }, { v: 2, f: '2' }] },
        { c: [{ v: 'CA', f: 'California' }, { v: 1, f: '1' }] },
      ],
      region_field: 'request_ip_region',
      regions: [
        { id: 'US-CO', name: 'Colorado', hits: 2 },
        { id: 'US-CA', name: 'California', hits: 1 },
      ],
    });
  });

  it('a state: its cities, with the trail back to the country', () => {
    expect(map('US-CO')).toEqual({
      map_breadcrumbs: [{ region: 'world', name: 'World' }, { region: 'US', name: 'United States' }, { name: 'Colorado' }],
      map_regions: [{ c: [{ v: 39.7146 }, { v: -105.2433 }, { v: 'Golden' }, { v: 2, f: '2' }] }],
      region_field: 'request_ip_city',
      regions: [{ id: 'Golden', name: 'Golden', hits: 2, region: 'Colorado' }],
    });
    expect(map('us-co')).toEqual(map('US-CO'));
  });

  it("counts a level's IPs placed no further as Unknown: in a country without a city, in the United States without a state", () => {
    const store = tempStore();
    new AnalyticsWriter(store).writeEntries(['192.0.2.1', '192.0.2.20', '192.0.2.21', '192.0.2.21'].map((ip) => entry({ request_ip: ip })));
    const insert = store.prepare('INSERT INTO analytics_ip_locations (request_ip, country, region, city) VALUES (?, ?, ?, ?)');
    insert.run('192.0.2.1', 'US', 'CO', 'Golden');
    insert.run('192.0.2.20', 'US', null, null);
    insert.run('192.0.2.21', 'US', 'CO', null);
    const level = (region: string) => {
      const parsed = parseMapQuery({ range: 'last_7_days', region }, NOW);
      if (!parsed.ok) throw new Error(parsed.error);
      return new AnalyticsQueries(store).locations(parsed.query).regions;
    };
    expect(level('US')).toEqual([
      { id: 'US-CO', name: 'CO', hits: 3 },
      { id: 'missing', name: 'Unknown', hits: 1 },
    ]);
    expect(level('US-CO')).toEqual([
      { id: 'Golden', name: 'Golden', hits: 1 },
      { id: 'missing', name: 'Unknown', hits: 2 },
    ]);
  });

  it('a range of part days and a filter read the rows instead of the daily rollups, with the same sums', () => {
    const rows = map('world', { range: undefined, start_at: new Date(T0 - 60_000).toISOString(), end_at: new Date(T0 + 60_000).toISOString() });
    expect(rows).toEqual(map('world'));
    expect(map('CA', { query: JSON.stringify([{ field: 'request_path', operator: 'equal', value: '/from/192.0.2.4' }]) })).toMatchObject({ regions: [{ id: 'Montréal', hits: 1 }] });
  });

  it('pruning past retention drops the locations of IPs no longer in the rollups', async () => {
    const store = tempStore();
    const writer = new AnalyticsWriter(store);
    writer.writeEntries([entry({ request_ip: '192.0.2.1', request_at: T0 - 10 * DAY }), entry({ request_ip: '192.0.2.3', request_at: T0 })]);
    const insert = store.prepare('INSERT INTO analytics_ip_locations (request_ip, country) VALUES (?, ?)');
    insert.run('192.0.2.1', 'US');
    insert.run('192.0.2.3', 'CA');
    await new RetentionPruner(store, () => writer.contextsDeleted()).prune(T0 - DAY);
    expect(store.prepare('SELECT request_ip FROM analytics_ip_locations').pluck().all()).toEqual(['192.0.2.3']);
  });
});

describe('the writer places each new client IP once per batch, in the batch transaction', () => {
  it('stores the location of placed IPs, updates a changed one and skips the rest', () => {
    const db = tempStore();
    const geoip = new GeoIpDatabase(COUNTRY_DB, (problem) => expect.fail(problem));
    const writer = new AnalyticsWriter(db, geoip);
    writer.writeEntries([entry({ request_ip: '8.8.8.8' }), entry({ request_ip: '8.8.8.8' }), entry({ request_ip: '127.0.0.1' }), entry({ request_ip: '81.2.69.160' })]);
    const stored = () => db.prepare('SELECT request_ip, country FROM analytics_ip_locations ORDER BY request_ip').all();
    expect(stored()).toEqual([
      { request_ip: '8.8.8.8', country: 'US' },
      { request_ip: '81.2.69.160', country: 'GB' },
    ]);
    db.prepare("UPDATE analytics_ip_locations SET country = 'FR' WHERE request_ip = '8.8.8.8'").run();
    writer.writeEntries([entry({ request_ip: '8.8.8.8' })]);
    expect(stored()).toEqual([
      { request_ip: '8.8.8.8', country: 'US' },
      { request_ip: '81.2.69.160', country: 'GB' },
    ]);
  });
});
