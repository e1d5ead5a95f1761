// Real sockets end to end: a key from the signup page (and from the JSON
// signup API) is accepted by the proxy at once, in each of the three ways the
// page shows, and the homepage gives way to a backend that claims "/".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { KEY_CREATOR_ROLE } from '../../src/api-users/model.js';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { csrfTokenIn, echoBackend, keyOnPage, VALID_SIGNUP } from './signup-app.js';

let gateway: TestGateway;
let upstream: EchoUpstream;

beforeAll(async () => {
  upstream = await startEchoUpstream();
  gateway = await startTestGateway();
  await gateway.publishBackend(echoBackend(upstream, 'Echo', '/echo/'));
});
afterAll(async () => {
  await gateway?.stop();
  await upstream?.close();
});

/** Signs up through the form over HTTP as a browser would; returns the page. */
async function signUpOverHttp(): Promise<string> {
  const form = await request(`${gateway.url}/signup/`);
  const cookie = String(form.headers['set-cookie']).split(';')[0]!;
  const body = new URLSearchParams({ ...VALID_SIGNUP, _csrf: csrfTokenIn(await form.body.text()) });
  const created = await request(`${gateway.url}/signup/`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: body.toString(),
  });
  expect(created.statusCode).toBe(200);
  return created.body.text();
}

function exampleOnPage(page: string, id: string): string {
  const value = new RegExp(`<input id="${id}"[^>]*value="([^"]*)"`).exec(page)?.[1];
  if (value === undefined) throw new Error(`no ${id} on the page`);
  return value.replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

describe('a key from the signup page', () => {
  it('is accepted by the proxy right away, in the header, as api_key and as the Basic username', async () => {
    const page = await signUpOverHttp();
    const key = keyOnPage(page)!;
    const echoed = async (path: string, headers: Record<string, string> = {}) => {
      const response = await request(`${gateway.url}${path}`, { headers });
      return { status: response.statusCode, body: (await response.body.json()) as { headers: Record<string, string>; query: string } };
    };

    const byHeader = await echoed('/echo/hello', { 'x-api-key': key });
    expect(byHeader.status).toBe(200);
    expect(byHeader.body.headers['x-api-user-id']).toBe(gateway.context.keyIndex.find(key)!.user.id);
    expect((await echoed(`/echo/hello?api_key=${key}`)).status).toBe(200);
    expect((await echoed('/echo/hello', { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` })).status).toBe(200);
  });

  it('shows examples that work as written against the published backend', async () => {
    const page = await signUpOverHttp();
    expect(page).toContain('for example to <strong>Echo</strong>');
    // curl 'URL?api_key=KEY' → the URL between the quotes.
    const url = /^curl '([^']+)'$/.exec(exampleOnPage(page, 'example-query'))![1]!;
    expect(url).toBe(`${gateway.url}/echo/?api_key=${keyOnPage(page)}`);
    const response = await request(url);
    expect(response.statusCode).toBe(200);
    await response.body.dump();
  });
});

it('a key from the JSON signup API is accepted by the proxy right away', async () => {
  const embedKey = (await gateway.createUser({ email: 'embed@example.com', roles: [KEY_CREATOR_ROLE] })).apiKey;
  const created = await request(`${gateway.url}/api-umbrella/v1/users.json`, {
    method: 'POST',
    headers: { 'x-api-key': embedKey, 'content-type': 'application/json' },
    body: JSON.stringify({ user: { ...VALID_SIGNUP, email: 'json@example.com' } }),
  });
  expect(created.statusCode).toBe(201);
  const { user } = (await created.body.json()) as { user: { api_key: string } };
  const proxied = await request(`${gateway.url}/echo/hi`, { headers: { 'x-api-key': user.api_key } });
  expect(proxied.statusCode).toBe(200);
  await proxied.body.dump();
});

it('serves the homepage at "/" only while no backend claims it', async () => {
  await gateway.publishBackend(echoBackend(upstream, 'Root', '/', { frontend_host: 'root.example.test', settings: { disable_api_key: true } }));
  const home = await request(`${gateway.url}/`);
  expect(home.statusCode).toBe(200);
  expect(await home.body.text()).toContain('Sign up for an API key');
  const claimed = await request(`${gateway.url}/`, { headers: { host: 'root.example.test' } });
  expect(claimed.statusCode).toBe(200);
  expect(((await claimed.body.json()) as { path: string }).path).toBe('/');
});
