// A superuser hands one team its corner of the gateway, in a real browser:
// an API scope, an admin group granting backends, analytics and admin
// accounts within it, an admin in that group — who then sees only that,
// cannot step outside it, and adds a colleague to the team.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startServer, type RunningServer } from '../../src/serve.js';
import { testConfig } from '../helpers/config.js';
import { launchBrowser, screenshot, type TestBrowser } from './helpers/browser.js';

const PASSWORD = 'correct horse battery staple';

let server: RunningServer;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  server = await startServer(testConfig());
  await server.context.admins.create({ email: 'root@example.com', password: PASSWORD, superuser: true });
  browser = await launchBrowser();
  page = await browser.newPage();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function openMenu(menu: string, item: string): Promise<void> {
  await page.locator('summary', { hasText: menu }).click();
  await page.locator('details[open] a', { hasText: new RegExp(`^${item}\\b`) }).click();
}

async function signIn(email: string): Promise<void> {
  await page.goto(`${server.url}/admin/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** On the Add Admin form: fills it in for an admin in `group` and saves. */
async function saveNewAdmin(email: string, group: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Password Confirmation').fill(PASSWORD);
  await page.getByLabel(group).check();
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText(`Added the admin ${email}`).waitFor();
}

describe('admin groups journey', () => {
  it('a superuser adds an API scope, an admin group within it, and an admin in the group', async () => {
    await signIn('root@example.com');
    await page.getByRole('heading', { name: 'API Backends', exact: true }).waitFor();

    await openMenu('Users', 'API Scopes');
    await page.getByRole('button', { name: 'Add API Scope' }).first().click();
    await page.getByLabel('Name').fill('Weather');
    await page.getByLabel('Host').fill('api.example.com');
    await page.getByLabel('Path Prefix').fill('/weather/');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Added the API scope “Weather”').waitFor();

    await openMenu('Users', 'Admin Groups');
    await page.getByRole('button', { name: 'Add Admin Group' }).first().click();
    await page.getByLabel('Name').fill('Weather team');
    await page.getByLabel('Weather').check();
    await page.getByLabel('API Backend Configuration - View & Manage').check();
    await page.getByLabel('Analytics').check();
    await page.getByLabel('Admin Accounts - View').check();
    await page.getByLabel('Admin Accounts - Manage').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Added the admin group “Weather team”').waitFor();
    await screenshot(page, '20-admin-groups');

    await openMenu('Users', 'Admin Accounts');
    await page.getByRole('button', { name: 'Add Admin' }).first().click();
    await saveNewAdmin('weather@example.com', 'Weather team');
    expect(await page.getByRole('row', { name: /weather@example\.com/ }).textContent()).toContain('Weather team');

    await page.locator('summary', { hasText: 'root@example.com' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  it('the team admin sees only what the group grants, and cannot save a backend outside the scope', async () => {
    await signIn('weather@example.com');
    await page.getByRole('heading', { name: 'API Backends', exact: true }).waitFor();
    const menus = await page.locator('nav[aria-label="Main"] summary').allTextContents();
    expect(menus.map((text) => text.trim())).toEqual(['Configuration', 'Analytics', 'Users', 'weather@example.com']);

    await page.getByRole('button', { name: 'Add API Backend' }).first().click();
    await page.getByLabel('Name').fill('Forecasts');
    await page.getByLabel('Host', { exact: true }).fill('10.0.0.1');
    await page.getByLabel('Port').fill('80');
    await page.getByLabel('Frontend Host').fill('api.example.com');
    await page.getByLabel('Backend Host').fill('10.0.0.1');
    await page.getByLabel('Frontend Prefix').fill('/traffic/');
    await page.getByLabel('Backend Prefix').fill('/');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('is outside your API scopes').first().waitFor();
    expect(await page.getByLabel('Name').inputValue()).toBe('Forecasts');
    await screenshot(page, '21-admin-groups-outside-scope');

    await page.getByLabel('Frontend Prefix').fill('/weather/forecasts/');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Added the API backend "Forecasts"').waitFor();

    await page.goto(`${server.url}/admin/api_users`);
    await page.getByRole('heading', { name: 'Not authorized' }).waitFor();
    expect(await page.getByText('- api.example.com/weather/').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Back to the admin' }).isVisible()).toBe(true);
    await screenshot(page, '22-admin-groups-not-authorized');
  });

  it('the team admin adds a colleague to the team, and can make no superuser', async () => {
    await openMenu('Users', 'Admin Accounts');
    // The superuser is listed by nobody in the team's scope: only the team admin's own row.
    expect(await page.getByRole('row', { name: /root@example\.com/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Add Admin' }).first().click();
    expect(await page.getByLabel('Superuser').count()).toBe(0);
    await saveNewAdmin('forecaster@example.com', 'Weather team');
    const row = page.getByRole('row', { name: /forecaster@example\.com/ });
    expect(await row.textContent()).toContain('Weather team');
    expect(await row.getByRole('button', { name: 'Edit' }).isVisible()).toBe(true);
    await screenshot(page, '23-admin-groups-team-admin-adds-admin');
  });
});
