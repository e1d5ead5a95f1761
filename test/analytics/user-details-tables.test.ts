// The API user's details in the admin's two tables of users, as API
// Umbrella's show them: Analytics › By Users (its
// app/components/stats/users/results-table.js: Email, First Name, Last
// Name, Signed Up, Hits, Last Request, Use Description), joined from
// api_users for the page's users, and Users › API Users
// (app/components/api-users/index-table.js). Over requests sent through a
// real gateway; a user's texts are theirs to write, so both tables must show
// markup as text.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatTime } from '../../src/lib/time-format.js';
import { textOf } from '../admin-ui/helpers/admin-client.js';
import { startAnalyticsFixture, type AnalyticsFixture } from './support.js';

const LONG_PURPOSE = `Forecasts for a farm dashboard.\nIt polls ${'each weather station '.repeat(10)}every hour.`;
const SHORT_PURPOSE = 'Forecasts for a farm dashboard. It polls each weather stati…';
const XSS_NAME = '<script>alert("first")</script>';
// Closes the title attribute the purpose is put in, if it were not escaped.
const XSS_PURPOSE = `"><img src=x onerror=alert(1)> ${'and more '.repeat(10)}`;

let fx: AnalyticsFixture;
let ada: { id: string; apiKey: string };
let mallory: { id: string; apiKey: string };
let gone: { id: string; apiKey: string };

beforeAll(async () => {
  fx = await startAnalyticsFixture();
  ada = await fx.gw.createUser({ email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', website: 'https://ada.example', use_description: LONG_PURPOSE, registration_source: 'web' });
  mallory = await fx.gw.createUser({ email: 'mallory@example.com', first_name: XSS_NAME, last_name: '<b>Bold</b>', use_description: XSS_PURPOSE, registration_source: '<i>signup</i>' });
  gone = await fx.gw.createUser({ email: 'gone@example.com', first_name: 'Gone', last_name: 'Away', registration_source: 'api' });
  const calls: [string, number][] = [
    [ada.apiKey, 3],
    [mallory.apiKey, 2],
    [gone.apiKey, 1],
  ];
  for (const [key, times] of calls) {
    for (let index = 0; index < times; index++) expect((await fx.call(`/echo/details?api_key=${key}`)).status).toBe(200);
  }
  await vi.waitFor(
    async () => {
      if ((await fx.stats('/admin/stats/logs.json', { length: '1' })).body.recordsTotal !== 6) throw new Error('not logged yet');
    },
    { timeout: 5_000, interval: 50 },
  );
  expect(fx.gw.context.users.delete(gone.id, null)).toBe(true);
});
afterAll(() => fx.close());

/** The cells of a page's table, each as its text, row by row. */
function tableRows(html: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)![1]!;
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) => [...row[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => textOf(cell[1]!).trim()));
}

function tableHeaders(html: string): string[] {
  return [...html.matchAll(/<th(?:\s[^>]*)?>([\s\S]*?)<\/th>/g)].map((header) => textOf(header[1]!).trim());
}

async function lastRequestOf(userId: string): Promise<string> {
  const { body } = await fx.stats('/admin/stats/logs.json', { length: '1', query: JSON.stringify([{ field: 'user_id', operator: 'equal', value: userId }]) });
  return formatTime(body.data[0].request_at as number);
}

function createdAtOf(userId: string): string {
  return formatTime(fx.gw.context.users.get(userId)!.created_at);
}

describe('Analytics › By Users', () => {
  it("shows API Umbrella's columns, the details from the user's account; a user deleted since has the email logged and nothing else", async () => {
    const { status, text } = await fx.page('/admin/analytics/users');
    expect(status).toBe(200);
    expect(tableHeaders(text)).toEqual(['Email', 'First Name', 'Last Name', 'Signed Up', 'Hits ▼', 'Last Request', 'Use Description', 'User ID']);
    expect(tableRows(text)).toEqual([
      ['ada@example.com', 'Ada', 'Lovelace', createdAtOf(ada.id), '3', await lastRequestOf(ada.id), SHORT_PURPOSE, ada.id],
      ['mallory@example.com', XSS_NAME, '<b>Bold</b>', createdAtOf(mallory.id), '2', await lastRequestOf(mallory.id), expect.stringMatching(/^"><img src=x onerror=alert\(1\)> and more .*…$/), mallory.id],
      ['gone@example.com', '', '', '', '1', await lastRequestOf(gone.id), '', gone.id],
    ]);
  });

  it("shortens a long use description, the whole of it in the cell's title", async () => {
    const { text } = await fx.page('/admin/analytics/users');
    expect(text).toContain(`<td title="${LONG_PURPOSE}">${SHORT_PURPOSE}</td>`);
  });
});

describe('Users › API Users', () => {
  it("shows API Umbrella's columns, then roles and status, the purpose shortened with the whole of it in the cell's title", async () => {
    const { status, text } = await fx.page('/admin/api_users?order=email:asc');
    expect(status).toBe(200);
    expect(tableHeaders(text)).toEqual(['Email ▲', 'First Name', 'Last Name', 'Purpose', 'Created', 'Registration Source', 'API Key', 'Roles', 'Status']);
    const adaRow = tableRows(text).find((row) => row[0] === 'ada@example.com');
    expect(adaRow).toEqual(['ada@example.com', 'Ada', 'Lovelace', SHORT_PURPOSE, createdAtOf(ada.id), 'web', `${ada.apiKey.slice(0, 6)}...`, '', 'Enabled']);
    expect(text).toContain(`<td title="${LONG_PURPOSE}">${SHORT_PURPOSE}</td>`);
  });
});

describe('a first name, last name, purpose and registration source holding markup', () => {
  it.each(['/admin/analytics/users', '/admin/api_users'])('are text on %s, in the cells and in the title', async (path) => {
    const { status, text } = await fx.page(path);
    expect(status).toBe(200);
    expect(text).not.toContain(XSS_NAME);
    expect(text).not.toContain('<img src=x');
    expect(text).not.toContain('<b>Bold');
    expect(text).toContain('&lt;script&gt;alert(&quot;first&quot;)&lt;/script&gt;');
    expect(text).toContain('title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt; and more');
    const row = tableRows(text).find((cells) => cells[0] === 'mallory@example.com')!;
    expect(row.slice(1, 3)).toEqual([XSS_NAME, '<b>Bold</b>']);
  });

  it('shows the registration source as text in API Users', async () => {
    const { text } = await fx.page('/admin/api_users');
    expect(text).not.toContain('<i>signup');
    expect(text).toContain('<td>&lt;i&gt;signup&lt;/i&gt;</td>');
  });
});
