// The admin journey continued in a real browser: after a proxied call, the
// operator opens Analytics › Filter Logs, sees the request, narrows the view
// with a filter (kept in the URL), downloads the CSV, looks By Users, drills
// down by path and by location.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { dbipCountryFile } from '../helpers/geoip.js';
import { launchBrowser, screenshot, type TestBrowser } from './helpers/browser.js';

const PASSWORD = 'correct horse battery staple';

let gw: TestGateway;
let echo: EchoUpstream;
let browser: TestBrowser;
let page: Page;
let apiKey: string;

beforeAll(async () => {
  echo = await startEchoUpstream();
  gw = await startTestGateway({ trusted_proxies: ['127.0.0.1'], analytics: { geoip_file: dbipCountryFile('dbip-country.mmdb') } });
  await gw.context.admins.create({ email: 'analyst@example.com', password: PASSWORD, superuser: true });
  await gw.publishBackend({
    name: 'Echo API',
    frontend_host: '*',
    backend_host: '127.0.0.1',
    servers: [{ host: '127.0.0.1', port: echo.port }],
    url_matches: [{ frontend_prefix: '/echo/', backend_prefix: '/' }],
  });
  ({ apiKey } = await gw.createUser({ email: 'dev@example.com' }));
  browser = await launchBrowser();
  page = await browser.newPage();
});

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await echo?.close();
});

describe('analytics journey', () => {
  it('finds a proxied request under Analytics › Filter Logs', async () => {
    expect((await fetch(`${gw.url}/echo/journey?city=Paris`, { headers: { 'X-Api-Key': apiKey, 'User-Agent': 'journey-agent/1' } })).status).toBe(200);
    expect((await fetch(`${gw.url}/echo/journey-denied`)).status).toBe(403);

    await page.goto(`${gw.url}/admin/login`);
    await page.getByLabel('Email').fill('analyst@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('summary', { hasText: 'Analytics' }).click();
    await page.getByRole('link', { name: 'Filter Logs', exact: true }).click();
    await page.getByRole('heading', { name: 'Filter Logs' }).waitFor();

    const table = page.getByTestId('log-table');
    expect(await table.getByRole('cell', { name: '/echo/journey', exact: true }).isVisible()).toBe(true);
    expect(await table.getByRole('cell', { name: 'dev@example.com' }).isVisible()).toBe(true);
    expect(await table.getByRole('cell', { name: 'journey-agent/1' }).isVisible()).toBe(true);
    // Denied requests are hidden by the default filter.
    expect(await table.getByText('/echo/journey-denied').count()).toBe(0);
    expect(await page.getByTestId('total-hits').textContent()).toBe('1');
    expect(await page.getByTestId('hits-chart').isVisible()).toBe(true);
    await screenshot(page, 'analytics-01-filter-logs');
  });

  it('shows denied requests once the default filter is removed, and keeps the view in the URL', async () => {
    await page.getByTestId('remove-filter').first().click();
    await page.getByTestId('log-table').getByRole('cell', { name: '/echo/journey-denied' }).waitFor();
    expect(await page.getByRole('cell', { name: 'api_key_missing' }).isVisible()).toBe(true);

    // A new filter from the form's blank row, the only one left; each row's controls are named by its number.
    await page.getByLabel('Filter 1 field', { exact: true }).selectOption('response_status');
    await page.getByLabel('Filter 1 operator', { exact: true }).selectOption('greater');
    await page.getByLabel('Filter 1 value', { exact: true }).fill('399');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/query=/);
    expect(await page.getByTestId('total-hits').textContent()).toBe('1');
    const bookmark = page.url();
    const copy = await browser.newPage();
    await copy.context().addCookies(await page.context().cookies());
    await copy.goto(bookmark);
    expect(await copy.getByTestId('total-hits').textContent()).toBe('1');
    await screenshot(page, 'analytics-02-filtered');

    // A bad filter comes back as a message next to the filters. The rule is the first row now; the last is blank again.
    await page.getByLabel('Filter 1 value', { exact: true }).fill('many');
    expect(await page.getByLabel('Filter 2 value', { exact: true }).inputValue()).toBe('');
    await page.getByRole('button', { name: 'Apply' }).click();
    expect(await page.getByTestId('query-error').textContent()).toContain('is not a number');
    await screenshot(page, 'analytics-03-error');
  });

  it('keeps only what applies in the URL: no dates with a preset range, the dates of a custom one', async () => {
    await page.goto(`${gw.url}/admin/analytics/logs`);
    await page.getByLabel('Date range').selectOption('today');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/range=today/);
    expect(new URL(page.url()).searchParams.has('start_at')).toBe(false);
    expect(new URL(page.url()).searchParams.has('end_at')).toBe(false);

    // Picking a date switches the range to custom, whose dates the URL keeps.
    const today = new Date().toISOString().slice(0, 10);
    await page.getByLabel('From', { exact: true }).fill(today);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/range=custom/);
    expect(new URL(page.url()).searchParams.get('start_at')).toBe(today);
    expect(await page.getByTestId('total-hits').textContent()).toBe('1');
  });

  it('downloads the view as CSV and lists hits By Users', async () => {
    await page.goto(`${gw.url}/admin/analytics/logs`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-csv').click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\n')[0]).toContain('request_at,request_id,request_method');
    expect(csv).toContain('/echo/journey');
    // What the page shows: its default filter hides the denied request in the download too.
    expect(csv).not.toContain('/echo/journey-denied');

    await page.getByRole('link', { name: 'By Users' }).click();
    await page.getByRole('heading', { name: 'By Users' }).waitFor();
    expect(await page.getByTestId('users-table').getByRole('cell', { name: 'dev@example.com' }).isVisible()).toBe(true);
    await screenshot(page, 'analytics-04-by-users');
  });

  it('drills down from the host to the path in API Drilldown', async () => {
    await page.getByRole('navigation', { name: 'Analytics views' }).getByRole('link', { name: 'API Drilldown' }).click();
    await page.getByRole('heading', { name: 'API Drilldown' }).waitFor();
    const host = `${new URL(gw.url).host}/`;
    await page.getByTestId('drilldown-table').getByRole('link', { name: host, exact: true }).click();
    await page.getByTestId('drilldown-table').getByRole('link', { name: `${host}echo/`, exact: true }).click();
    expect(await page.getByTestId('drilldown-table').getByRole('cell', { name: `${host}echo/journey`, exact: true }).isVisible()).toBe(true);
    expect((await page.getByTestId('drilldown-levels').textContent())!.replace(/\s+/g, ' ')).toContain(`All Hosts › ${new URL(gw.url).host} › echo`);
    await screenshot(page, 'analytics-05-drilldown');
  });

  it('finds a request from the United Kingdom By Location', async () => {
    expect((await fetch(`${gw.url}/echo/from-london`, { headers: { 'X-Api-Key': apiKey, 'X-Forwarded-For': '81.2.69.160' } })).status).toBe(200);
    // Placed by the writer thread within its flush interval (flush() would write it on the main thread, unplaced).
    await vi.waitFor(
      async () => {
        // The requests before it, from loopback, are placed nowhere (Unknown): wait for the country.
        const map = (await (await fetch(`${gw.url}/admin/stats/map.json`, { headers: { 'X-Admin-Auth-Token': gw.adminToken } })).json()) as { regions: { id: string }[] };
        if (!map.regions.some((region) => region.id === 'GB')) throw new Error('not placed yet');
      },
      { timeout: 2_000, interval: 50 },
    );
    // From the top menu, as from the tabs.
    await page.locator('summary', { hasText: 'Analytics' }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'By Location' }).click();
    await page.getByRole('heading', { name: 'By Location' }).waitFor();
    // The map shades the country and links it to its level, as the table's row does.
    const onMap = page.getByTestId('location-map-svg').locator('a', { has: page.locator('title', { hasText: 'United Kingdom' }) });
    expect(await onMap.getAttribute('href')).toBe(await page.getByTestId('locations-table').getByRole('link', { name: 'United Kingdom' }).getAttribute('href'));
    await screenshot(page, 'analytics-06-by-location-world');
    await onMap.click();
    await page.getByTestId('locations-table').getByText('No request in this view has a known city.').waitFor();
    expect((await page.getByTestId('location-levels').textContent())!.replace(/\s+/g, ' ').trim()).toBe('World › United Kingdom');
    expect(page.url()).toContain('region=GB');
    await screenshot(page, 'analytics-06-by-location');
  });
});
