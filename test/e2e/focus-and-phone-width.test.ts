// What only a browser shows: a read-only input's focus ring (Pico's focus
// style leaves read-only inputs out), Filter Logs' filter rows at a phone's
// width, the Interval choice following the date range as it is changed, and
// a form sent after the session ended given back (kept in the tab, never a
// password) once its page is opened again after signing in.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { launchBrowser, type TestBrowser } from './helpers/browser.js';

const PASSWORD = 'correct horse battery staple';

let gw: TestGateway;
let browser: TestBrowser;

beforeAll(async () => {
  gw = await startTestGateway();
  await gw.context.admins.create({ email: 'ops@example.com', password: PASSWORD, superuser: true });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

async function signIn(page: Page): Promise<void> {
  await page.goto(`${gw.url}/admin/login`);
  await page.getByLabel('Email').fill('ops@example.com');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/admin/login');
}

it("rings a read-only input that has the keyboard's focus", async () => {
  const page = await browser.newPage();
  await signIn(page);
  await page.goto(`${gw.url}/admin/account`);
  const preview = page.locator('#token-preview');
  // Tab from the control just before it, as a keyboard user gets there.
  await page.locator('summary', { hasText: 'ops@example.com' }).focus();
  while (!(await preview.evaluate((input) => input.matches(':focus-visible')))) await page.keyboard.press('Tab');
  expect(await preview.evaluate((input) => input.ownerDocument.defaultView!.getComputedStyle(input).outlineStyle)).not.toBe('none');
});

it("fits Filter Logs' filter rows in a phone's width", async () => {
  const phone = await browser.newPage({ width: 375, height: 812 });
  await signIn(phone);
  await phone.goto(`${gw.url}/admin/analytics/logs`);
  await phone.getByRole('heading', { name: 'Filter Logs' }).waitFor();
  const { scrollWidth, clientWidth } = await phone.locator('html').evaluate((html) => ({ scrollWidth: html.scrollWidth, clientWidth: html.clientWidth }));
  expect(scrollWidth).toBe(clientWidth);
  const remove = await phone.getByTestId('remove-filter').first().boundingBox();
  expect(remove!.x + remove!.width).toBeLessThanOrEqual(clientWidth);
});

it('offers an interval disabled as too fine for the range again once the range changes', async () => {
  const page = await browser.newPage();
  await signIn(page);
  await page.goto(`${gw.url}/admin/analytics/logs?range=last_30_days`);
  const minute = page.locator('select[name="interval"] option[value="minute"]');
  expect(await minute.isDisabled()).toBe(true);
  await page.getByLabel('Date range').selectOption('today');
  expect(await minute.isDisabled()).toBe(false);
});

it('gives back what was typed in a form sent after the session ended, once its page is opened again', async () => {
  const page = await browser.newPage();
  await signIn(page);
  await page.goto(`${gw.url}/admin/apis/new`);
  await page.getByLabel('Name', { exact: true }).fill('Typed for an hour');
  // The session ends while the form is open (idle timeout, or signed out elsewhere).
  gw.context.db.prepare('DELETE FROM admin_sessions').run();
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/admin/login');
  expect(await page.textContent('body')).toContain('what you were saving was not saved');
  await signIn(page);

  await page.goto(`${gw.url}/admin/apis/new`);
  await page.getByRole('button', { name: 'Restore what you typed' }).click();
  expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Typed for an hour');
  expect(gw.context.backends.list()).toHaveLength(0);

  // Offered once: the page opened again has nothing to give back.
  await page.goto(`${gw.url}/admin/apis/new`);
  expect(await page.getByRole('button', { name: 'Restore what you typed' }).count()).toBe(0);
});
