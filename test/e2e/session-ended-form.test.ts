// A record form sent after the admin's session ended is not saved; the
// browser keeps what was typed (in this tab, never a password) and the
// form's page offers it back after signing in again.
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

it('gives back what was typed in a form sent after the session ended, once its page is opened again', async () => {
  const page = await browser.newPage();
  const signIn = async () => {
    await page.getByLabel('Email').fill('ops@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname !== '/admin/login');
  };
  await page.goto(`${gw.url}/admin/login`);
  await signIn();
  await page.goto(`${gw.url}/admin/apis/new`);
  await page.getByLabel('Name', { exact: true }).fill('Typed for an hour');
  // The session ends while the form is open (idle timeout, or signed out elsewhere).
  gw.context.db.prepare('DELETE FROM admin_sessions').run();
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/admin/login');
  expect(await page.textContent('body')).toContain('what you were saving was not saved');
  await signIn();

  await page.goto(`${gw.url}/admin/apis/new`);
  await page.getByRole('button', { name: 'Restore what you typed' }).click();
  expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Typed for an hour');
  expect(gw.context.backends.list()).toHaveLength(0);

  // Offered once: the page opened again has nothing to give back.
  await page.goto(`${gw.url}/admin/apis/new`);
  expect(await page.getByRole('button', { name: 'Restore what you typed' }).count()).toBe(0);
});
