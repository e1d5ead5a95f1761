// The built-in /contact/ page: where the "contact us at …" of error messages
// leads by default, with the configured address or an honest "none".
import { afterEach, describe, expect, it } from 'vitest';
import { startInjectedApp, type InjectedApp } from '../helpers/app.js';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { echoBackend } from '../signup/signup-app.js';

let running: InjectedApp | null = null;
let gateway: TestGateway | null = null;
let upstream: EchoUpstream | null = null;
afterEach(async () => {
  await running?.close();
  await gateway?.stop();
  await upstream?.close();
  running = gateway = upstream = null;
});

describe('GET /contact/', () => {
  it('gives the configured contact_email as a mailto link, escaped, with the security headers of every page', async () => {
    running = await startInjectedApp({ site_name: 'Weather <API>', contact_email: "ops+api&'co'@weather.example" });
    const response = await running.app.inject({ method: 'GET', url: '/contact/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    expect(response.body).toContain('<a href="mailto:ops+api&amp;&#39;co&#39;@weather.example">ops+api&amp;&#39;co&#39;@weather.example</a>');
    expect(response.body).toContain('Weather &lt;API&gt;');
    expect(response.body).not.toContain('Weather <API>');
    expect(response.body).toContain('<a href="/signup/">Sign up</a>');
  });

  it('says that no address has been published when contact_email is not set', async () => {
    running = await startInjectedApp();
    const response = await running.app.inject({ method: 'GET', url: '/contact/' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('have not published a contact address here');
    expect(response.body).not.toContain('mailto:');
  });

  it('redirects /contact to /contact/', async () => {
    running = await startInjectedApp();
    const response = await running.app.inject({ method: 'GET', url: '/contact' });
    expect(response.statusCode).toBe(301);
    expect(response.headers.location).toBe('/contact/');
  });
});

describe('the Contact link of the public pages', () => {
  it('goes to /contact/ from the homepage, the signup form and the contact page itself', async () => {
    running = await startInjectedApp();
    for (const url of ['/', '/signup/', '/contact/']) {
      const page = await running.app.inject({ method: 'GET', url });
      expect(page.body, url).toContain('<a href="/contact/">Contact</a>');
    }
  });

  it('goes to contact_url instead when one is configured', async () => {
    running = await startInjectedApp({ contact_url: 'https://help.example.com/?topic=api&lang=en' });
    for (const url of ['/', '/signup/']) {
      const page = await running.app.inject({ method: 'GET', url });
      expect(page.body, url).toContain('<a href="https://help.example.com/?topic=api&amp;lang=en">Contact</a>');
    }
  });
});

describe('the contact link in error messages', () => {
  it('leads to this page, even past a backend that takes every other path', async () => {
    upstream = await startEchoUpstream();
    gateway = await startTestGateway({ contact_email: 'ops@weather.example' });
    await gateway.publishBackend(echoBackend(upstream, 'Everything', '/'));
    const { apiKey } = await gateway.createUser({ enabled: false });
    const denied = await fetch(`${gateway.url}/anything`, { headers: { 'X-Api-Key': apiKey } });
    const { error } = (await denied.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('API_KEY_DISABLED');
    const contactUrl = /Contact us at (\S+) for assistance/.exec(error.message)![1]!;
    expect(contactUrl).toBe(`${gateway.url}/contact/`);
    const page = await fetch(contactUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('mailto:ops@weather.example');
    expect(upstream.requests).toHaveLength(0);
  });
});
