// A developer in a real browser (Debian's Chromium): reads the homepage,
// signs up by the visible labels, reads the key from the page and calls a
// proxied echo backend with it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from 'undici';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { echoBackend } from '../signup/signup-app.js';
import { launchBrowser, screenshot, type TestBrowser } from './helpers/browser.js';

let gateway: TestGateway;
let upstream: EchoUpstream;
let browser: TestBrowser;

beforeAll(async () => {
  upstream = await startEchoUpstream();
  gateway = await startTestGateway({ site_name: 'Weather API' });
  await gateway.publishBackend(echoBackend(upstream, 'Weather', '/weather/'));
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  await upstream?.close();
});

it('goes from the homepage to a working key', async () => {
  const page = await browser.newPage();
  await page.goto(`${gateway.url}/`);
  await expect.poll(() => page.title()).toBe('Home · Weather API');
  await screenshot(page, 'homepage');
  await page.getByRole('button', { name: 'Sign up for an API key' }).click();

  await page.getByLabel('First name').fill('Ada');
  await page.getByLabel('Last name').fill('Lovelace');
  await page.getByLabel('Email').fill('ada@example.com');
  await page.getByLabel('Website').fill('https://ada.example.com');
  await page.getByLabel('How will you use the APIs?').fill('Forecasts for an analytical engine');
  await page.getByLabel('I have read and agree to the terms and conditions.', { exact: true }).check();
  await screenshot(page, 'signup-form');
  await page.getByRole('button', { name: 'Sign up', exact: true }).click();

  await expect.poll(() => page.getByText('Your API key for ada@example.com is:').isVisible()).toBe(true);
  const key = await page.getByLabel('Your API key').inputValue();
  expect(key).toMatch(/^[A-Za-z0-9]{40}$/);
  // parasol.js reveals the Copy buttons; without JavaScript they stay hidden.
  expect(await page.locator('button[data-copy="api-key"]').isVisible()).toBe(true);
  await screenshot(page, 'signup-created');

  const response = await request(`${gateway.url}/weather/forecast`, { headers: { 'x-api-key': key } });
  expect(response.statusCode).toBe(200);
  expect(((await response.body.json()) as { path: string }).path).toBe('/forecast');
});

it('shows the messages next to the fields and keeps what was typed', async () => {
  const page = await browser.newPage({ width: 420, height: 900 });
  await page.goto(`${gateway.url}/signup/`);
  await page.getByLabel('First name').fill('www.spam.example');
  await page.getByLabel('Email').fill('not-an-email');
  await page.getByRole('button', { name: 'Sign up', exact: true }).click();

  await expect.poll(() => page.getByText('Provide your last name.').isVisible()).toBe(true);
  expect(await page.getByText('First name is invalid.').isVisible()).toBe(true);
  expect(await page.getByText('Provide a valid email address.').isVisible()).toBe(true);
  expect(await page.getByText('Check the box to agree to the terms and conditions.').isVisible()).toBe(true);
  expect(await page.getByLabel('Email').inputValue()).toBe('not-an-email');
  await screenshot(page, 'signup-errors-mobile');
});
