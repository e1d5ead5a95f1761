// What an operator does on a fresh install, in a real browser, by the labels
// on the screen: first admin → API backend → Publish Changes → publish → an
// API key → a proxied call through Parasol to a real upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startServer, type RunningServer } from '../../src/serve.js';
import { testConfig } from '../helpers/config.js';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { launchBrowser, screenshot, type TestBrowser } from './helpers/browser.js';

const PASSWORD = 'correct horse battery staple';

let server: RunningServer;
let echo: EchoUpstream;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  echo = await startEchoUpstream();
  server = await startServer(testConfig());
  browser = await launchBrowser();
  page = await browser.newPage();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await echo?.close();
});

/** Opens a menu of the navigation and follows one of its items (an item may carry a counter). */
async function openMenu(menu: string, item: string): Promise<void> {
  await page.locator('summary', { hasText: menu }).click();
  await page.locator('details[open] a', { hasText: new RegExp(`^${item}\\b`) }).click();
}

describe('web admin journey', () => {
  it('creates the first admin and signs in', async () => {
    await page.goto(`${server.url}/admin/`);
    await expect(page.getByRole('heading', { name: 'Create the first admin account' }).isVisible()).resolves.toBe(true);
    await screenshot(page, '01-first-admin');
    await page.getByLabel('Email').fill('ops@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Password Confirmation').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('heading', { name: 'API Backends', exact: true }).waitFor();
    expect(await page.getByRole('status').textContent()).toContain('Your admin account is ready');
    await screenshot(page, '02-api-backends-empty');
  });

  it('adds an API backend pointing at the upstream, kept as a draft', async () => {
    await openMenu('Configuration', 'API Backends');
    await page.getByRole('button', { name: 'Add API Backend' }).first().click();
    await page.getByLabel('Name').fill('Echo API');
    await page.getByLabel('Backend Protocol').selectOption('http');
    await page.getByLabel('Host', { exact: true }).fill('127.0.0.1');
    await page.getByLabel('Port').fill(String(echo.port));
    await page.getByLabel('Frontend Host').fill('*');
    await page.getByLabel('Backend Host').fill('127.0.0.1');
    await page.getByLabel('Frontend Prefix').fill('echo/');
    await page.getByLabel('Backend Prefix').fill('/');
    await page.getByRole('button', { name: 'Save' }).click();

    // A validation error comes back next to its field, with what was typed kept.
    await page.getByText('must start with "/"').first().waitFor();
    expect(await page.getByLabel('Port').inputValue()).toBe(String(echo.port));
    await screenshot(page, '03-api-backend-form-error');

    await page.getByLabel('Frontend Prefix').fill('/echo/');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Added the API backend "Echo API"').waitFor();
    expect(await page.getByRole('cell', { name: 'Echo API' }).isVisible()).toBe(true);
    expect(await page.getByText('New, not published').isVisible()).toBe(true);
    expect(await page.getByTestId('pending-count').textContent()).toContain('1 unpublished change');
    await screenshot(page, '04-api-backends');

    // Not live before it is published.
    const before = await fetch(`${server.url}/echo/hello`);
    expect(before.status).not.toBe(200);
  });

  it('shows the change under Publish Changes with a diff, and publishes it', async () => {
    await openMenu('Configuration', 'Publish Changes');
    await page.getByRole('heading', { name: 'New API Backends' }).waitFor();
    const box = page.getByRole('checkbox', { name: 'Echo API' });
    expect(await box.isChecked()).toBe(true);
    await page.getByText('View Config Differences').click();
    expect(await page.locator('.diff .add').first().textContent()).toContain('+');
    await screenshot(page, '05-publish-changes');

    // One of Check all and Uncheck all at a time, as in API Umbrella.
    const checkAll = page.getByRole('link', { name: 'Check all', exact: true });
    const uncheckAll = page.getByRole('link', { name: 'Uncheck all', exact: true });
    expect([await checkAll.isVisible(), await uncheckAll.isVisible()]).toEqual([false, true]);
    await box.uncheck();
    expect([await checkAll.isVisible(), await uncheckAll.isVisible()]).toEqual([true, false]);
    expect(await page.getByRole('button', { name: 'Publish' }).isDisabled()).toBe(true);
    await page.getByRole('link', { name: 'Check all', exact: true }).click();
    expect(await page.getByRole('button', { name: 'Publish' }).isEnabled()).toBe(true);

    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Successfully published the configuration').waitFor();
    expect(await page.getByTestId('pending-count').textContent()).toContain('All changes published');
    expect(await page.getByRole('cell', { name: /1\s+Live/ }).isVisible()).toBe(true);
    await screenshot(page, '06-published');
  });

  let apiKey = '';

  it('adds an API user and shows the key once', async () => {
    await openMenu('Users', 'API Users');
    await screenshot(page, '07-api-users-empty');
    await page.getByRole('button', { name: 'Add API User' }).first().click();
    await page.getByLabel('Email', { exact: true }).fill('dev@example.com');
    await page.getByLabel('First Name').fill('Dana');
    await page.getByLabel('Last Name').fill('Developer');
    await page.getByRole('button', { name: 'Save' }).click();
    apiKey = await page.getByTestId('api-key').inputValue();
    expect(apiKey).toMatch(/^[A-Za-z0-9]{40}$/);
    await screenshot(page, '08-api-user-key');
  });

  it('shows rate limit rows only while Rate Limit is "Custom rate limits", as API Umbrella does, a new sub-setting\'s too', async () => {
    await openMenu('Users', 'API Users');
    await page.getByRole('button', { name: 'Add API User' }).first().click();
    const add = page.getByRole('button', { name: 'Add rate limit' });
    expect(await add.isVisible()).toBe(false);
    await page.getByLabel('Rate Limit', { exact: true }).selectOption('custom');
    await add.click();
    await page.getByLabel('Limit', { exact: true }).fill('5');
    await page.getByLabel('Rate Limit', { exact: true }).selectOption('');
    expect(await add.isVisible()).toBe(false);
    expect(await page.getByLabel('Limit', { exact: true }).isVisible()).toBe(false);
    // Hidden rows are not sent: the page never posts limits the operator cannot see.
    expect(await page.getByLabel('Limit', { exact: true }).isDisabled()).toBe(true);
    await page.getByLabel('Rate Limit', { exact: true }).selectOption('custom');
    expect(await page.getByLabel('Limit', { exact: true }).inputValue()).toBe('5');

    // Leaving the form with changes not saved asks first, as API Umbrella's admin does.
    const asked = new Promise<string>((resolve) => page.once('dialog', (dialog) => void dialog.accept().then(() => resolve(dialog.type()))));
    await openMenu('Configuration', 'API Backends');
    expect(await asked).toBe('beforeunload');
    await page.getByRole('link', { name: 'Echo API' }).click();
    await page.getByRole('button', { name: 'Add Sub-URL setting' }).click();
    const sub = page.locator('.sub-setting').last();
    expect(await sub.getByRole('button', { name: 'Add rate limit' }).isVisible()).toBe(false);
    await sub.getByLabel('Rate Limit', { exact: true }).selectOption('custom');
    expect(await sub.getByRole('button', { name: 'Add rate limit' }).isVisible()).toBe(true);
  });

  it('calls the proxied API through Parasol with the key, and sees it live', async () => {
    const response = await fetch(`${server.url}/echo/hello?x=1`, { headers: { 'X-Api-Key': apiKey } });
    expect(response.status).toBe(200);
    const echoed = (await response.json()) as { path: string; query: string };
    expect(echoed.path).toBe('/hello');
    expect(echoed.query).toBe('x=1');

    await openMenu('Configuration', 'API Backends');
    expect(await page.getByText('Published', { exact: true }).isVisible()).toBe(true);
  });

  it('adds a URL rewrite to the backend, publishes it, and the upstream gets the rewritten path', async () => {
    await page.getByRole('link', { name: 'Echo API' }).click();
    await page.getByRole('button', { name: 'Add URL rewrite' }).click();
    await page.getByLabel('Frontend Matcher').fill('/greeting/:name');
    await page.getByLabel('Backend Replacement').fill('/hello?to={{name}}');
    await screenshot(page, '09-api-backend-rewrite');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved the API backend "Echo API"').waitFor();
    await openMenu('Configuration', 'Publish Changes');
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Successfully published the configuration').waitFor();

    const response = await fetch(`${server.url}/echo/greeting/ada`, { headers: { 'X-Api-Key': apiKey } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { url: string }).url).toBe('/hello?to=ada');
  });

  it("regenerates the user's key with a day's overlap: after confirming, both keys work", async () => {
    await openMenu('Users', 'API Users');
    await page.getByRole('link', { name: 'dev@example.com' }).click();
    await page.getByLabel('When the current key stops working').selectOption('1d');
    await screenshot(page, '10-api-user-rotate-choice');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Regenerate key' }).click();
    const fresh = await page.getByTestId('api-key').inputValue();
    expect(fresh).not.toBe(apiKey);
    expect(await page.getByText('The previous key keeps working until').isVisible()).toBe(true);
    for (const key of [apiKey, fresh]) expect((await fetch(`${server.url}/echo/hello`, { headers: { 'X-Api-Key': key } })).status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'End it now' }).waitFor();
    await screenshot(page, '10-api-user-previous-key');
  });

  it("takes API Umbrella's admin addresses to Parasol's pages, the query kept", async () => {
    await page.goto(`${server.url}/admin/#/stats/logs?start_at=2026-11-01&end_at=2026-11-02&interval=hour`);
    await page.waitForURL(/\/admin\/analytics\/logs\?/);
    const url = new URL(page.url());
    expect([url.pathname, url.searchParams.get('start_at'), url.searchParams.get('interval')]).toEqual(['/admin/analytics/logs', '2026-11-01', 'hour']);
    await page.getByRole('heading', { name: 'Filter Logs' }).waitFor();
    await page.goto(`${server.url}/admin/#/config/publish`);
    await page.waitForURL(`${server.url}/admin/config/publish`);
  });

  it('renders every main page cleanly, also on a phone', async () => {
    await openMenu('Users', 'API Users');
    await screenshot(page, '11-api-users');
    await openMenu('Users', 'Admin Accounts');
    await screenshot(page, '12-admin-accounts');
    await page.locator('summary', { hasText: 'ops@example.com' }).click();
    await page.getByRole('link', { name: 'My Account' }).click();
    await page.getByRole('heading', { name: 'Admin API Token' }).waitFor();
    await screenshot(page, '13-my-account');

    const phone = await browser.newPage({ width: 390, height: 844 });
    await phone.context().addCookies(await page.context().cookies());
    await phone.goto(`${server.url}/admin/apis`);
    await screenshot(phone, '14-api-backends-phone');

    await page.locator('summary', { hasText: 'ops@example.com' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('status').textContent()).toContain('You have been signed out.');
    await screenshot(page, '15-sign-in');
  });
});
