import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startSignedIn, type AdminApp, type AdminClient } from '../admin-ui/helpers/admin-client.js';

describe("what only admins see stays out of caches (Cache-Control: no-store)", () => {
  let running: AdminApp;
  let client: AdminClient;
  let gw: TestGateway;
  beforeAll(async () => {
    ({ running, client } = await startSignedIn());
    gw = await startTestGateway();
  });
  afterAll(async () => {
    await running.close();
    await gw.stop();
  });

  it("marks a signed-in admin's pages and downloads, and the sign-in page, and leaves assets cacheable", async () => {
    for (const url of ['/admin/apis', '/admin/api_users', '/admin/analytics/logs', '/admin/stats/logs.csv?range=today']) {
      const page = await client.get(url);
      expect(page.statusCode, url).toBe(200);
      expect(page.headers['cache-control'], url).toBe('no-store');
    }
    // Linked by their content's version (asset-version.ts), assets are kept for good: so every page links each asset with it.
    const pages = [
      ...(await Promise.all(['/admin/apis', '/admin/analytics/logs'].map(async (url) => [url, (await client.get(url)).body] as const))),
      ...(await Promise.all(['/admin/login', '/signup/'].map(async (url) => [url, (await running.app.inject({ url })).body] as const))),
    ];
    for (const [url, body] of pages) {
      const links = [...body.matchAll(/(?:href|src)="(\/assets\/[^"]*)"/g)].map((match) => match[1]!);
      expect(links.length, url).toBeGreaterThan(0);
      for (const link of links) expect(link, url).toMatch(/\?v=[\w-]{10}$/);
    }
    const asset = await client.get('/assets/css/parasol.css?v=1');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    // The sign-in page's form carries a CSRF token: Back must not show a stale one, as in API Umbrella.
    const signedOut = await running.app.inject({ url: '/admin/login' });
    expect(signedOut.headers['cache-control']).toBe('no-store');
    expect((await running.app.inject({ url: '/signup/' })).headers['cache-control']).toBeUndefined();
  });

  it('marks every admin API answer, refusals included', async () => {
    const listed = await fetch(`${gw.url}/api-umbrella/v1/apis`, { headers: { 'X-Admin-Auth-Token': gw.adminToken } });
    expect([listed.status, listed.headers.get('cache-control')]).toEqual([200, 'no-store']);
    const refused = await fetch(`${gw.url}/api-umbrella/v1/apis`);
    expect([refused.status, refused.headers.get('cache-control')]).toEqual([401, 'no-store']);
    const stats = await fetch(`${gw.url}/admin/stats/logs.json?range=today`, { headers: { 'X-Admin-Auth-Token': gw.adminToken } });
    expect([stats.status, stats.headers.get('cache-control')]).toEqual([200, 'no-store']);
  });
});
