// POST /admin/stats/logs.json and .csv, as API Umbrella's logs table posts
// its DataTables parameters: the GET's parameters as form fields or a JSON
// object. A token needs no CSRF token; a session's POST does, as every form's.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpAdminClient } from '../admin-ui/helpers/http-client.js';
import { entry } from './fixtures.js';
import { startAnalyticsFixture, type AnalyticsFixture } from './support.js';

let fx: AnalyticsFixture;
const PASSWORD = 'correct horse battery staple';
/** User u1's entries, fastest first, second page of three. */
const VIEW = { query: JSON.stringify([{ field: 'user_id', operator: 'equal', value: 'u1' }]), order: 'response_time:asc', start: '2', length: '3', draw: '4' };

beforeAll(async () => {
  fx = await startAnalyticsFixture();
  const now = Date.now();
  for (let index = 0; index < 30; index++) {
    fx.gw.context.analytics.record(entry({ request_id: `p${index}`, request_at: now - index * 1_000, response_time: index, user_id: `u${index % 3}`, user_email: `u${index % 3}@example.com` }));
  }
  fx.gw.context.analytics.flush();
  await fx.gw.context.admins.create({ email: 'browser@example.com', password: PASSWORD, superuser: true });
});
afterAll(() => fx.close());

/** POST with the admin token; `url` may carry parameters of its own. */
async function postAsToken(url: string, body: string, contentType: string) {
  const response = await request(`${fx.gw.url}${url}`, { method: 'POST', body, headers: { 'X-Admin-Auth-Token': fx.gw.adminToken, 'content-type': contentType } });
  return { status: response.statusCode, type: String(response.headers['content-type']), text: await response.body.text() };
}
const postForm = (url: string, fields: Record<string, string>) => postAsToken(url, new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded');
const postJson = (url: string, body: unknown) => postAsToken(url, JSON.stringify(body), 'application/json');

describe('POST /admin/stats/logs.json with an admin token', () => {
  it('answers form fields as the GET answers the same parameters, without a CSRF token', async () => {
    const asked = await fx.stats('/admin/stats/logs.json', VIEW);
    expect(asked.body).toMatchObject({ draw: 4, recordsTotal: 10 });
    expect(asked.body.data.map((row: { response_time: number }) => row.response_time)).toEqual([7, 10, 13]);
    const posted = await postForm('/admin/stats/logs.json', VIEW);
    expect(posted.status).toBe(200);
    expect(posted.type).toMatch(/^application\/json/);
    expect(JSON.parse(posted.text)).toEqual(asked.body);
  });

  it('takes a JSON object, with numbers and the rules as JSON values', async () => {
    const posted = await postJson('/admin/stats/logs.json', { ...VIEW, query: JSON.parse(VIEW.query), start: 2, length: 3, draw: 4 });
    expect(posted.status).toBe(200);
    expect(JSON.parse(posted.text)).toEqual((await fx.stats('/admin/stats/logs.json', VIEW)).body);
  });

  it("reads the URL's parameters too, the body's over them", async () => {
    const posted = await postForm('/admin/stats/logs.json?length=1&order=response_time%3Adesc', { query: VIEW.query, length: '2' });
    expect(JSON.parse(posted.text).data.map((row: { response_time: number }) => row.response_time)).toEqual([28, 25]);
  });

  it('downloads the CSV the GET downloads', async () => {
    const posted = await postForm('/admin/stats/logs.csv', { query: VIEW.query });
    expect(posted.status).toBe(200);
    expect(posted.type).toMatch(/^text\/csv/);
    expect(posted.text).toBe((await fx.stats('/admin/stats/logs.csv', { query: VIEW.query })).text);
    expect(posted.text.trim().split('\n')).toHaveLength(11);
  });

  it('answers a body that is no fields, or no JSON, with a JSON 400', async () => {
    for (const [body, type] of [['[1]', 'application/json'], ['{"query":', 'application/json']]) {
      const posted = await postAsToken('/admin/stats/logs.json', body!, type!);
      expect(posted.status, body).toBe(400);
      expect(JSON.parse(posted.text).error).toEqual(expect.any(String));
    }
    expect(JSON.parse((await postJson('/admin/stats/logs.json', { length: 0 })).text).error).toMatch(/^length must be a whole number/);
  });

  it('answers without an admin a JSON 401', async () => {
    const response = await request(`${fx.gw.url}/admin/stats/logs.json`, { method: 'POST', body: 'length=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(response.statusCode).toBe(401);
    expect(await response.body.json()).toEqual({ error: 'You need to sign in or sign up before continuing.' });
  });
});

describe('POST /admin/stats/logs.json with the web session', () => {
  it("needs the page's CSRF token, and answers JSON without it", async () => {
    const browser = new HttpAdminClient(fx.gw.url);
    expect((await browser.signIn('browser@example.com', PASSWORD)).status).toBe(303);
    await browser.get('/admin/analytics/logs');
    const refused = await browser.post('/admin/stats/logs.json', { ...VIEW, _csrf: '' });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(refused.body)).toEqual({ error: 'Invalid csrf token' });
    const posted = await browser.post('/admin/stats/logs.json', VIEW);
    expect(posted.status).toBe(200);
    expect(JSON.parse(posted.body)).toMatchObject({ draw: 4, recordsTotal: 10 });
  });
});

describe("API Umbrella's stats paths without an extension", () => {
  it('answer JSON, or CSV with format=csv, as /admin/stats/logs(.:format) does there', async () => {
    const json = await fx.stats('/admin/stats/logs', VIEW);
    expect(json.status).toBe(200);
    expect(json.body).toEqual((await fx.stats('/admin/stats/logs.json', VIEW)).body);
    const csv = await fx.stats('/admin/stats/logs', { ...VIEW, format: 'csv' });
    expect([csv.status, csv.headers['content-type']]).toEqual([200, 'text/csv; charset=utf-8']);
    expect(csv.text).toBe((await fx.stats('/admin/stats/logs.csv', VIEW)).text);
    const posted = await postForm('/admin/stats/logs', { ...VIEW, format: 'csv' });
    expect(posted.text).toBe(csv.text);
    for (const path of ['/admin/stats/users', '/admin/stats/map', '/admin/stats/search']) expect((await fx.stats(path)).status, path).toBe(200);
    expect((await fx.stats('/admin/stats/search', { format: 'csv' })).status).toBe(400);
  });
});
