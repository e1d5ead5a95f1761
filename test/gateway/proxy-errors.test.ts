import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoBackend, errorCode, send, startProxyFixture, type ProxyFixture } from './support.js';

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture();
  await fx.gw.publishBackend(echoBackend(fx.echo));
});
afterAll(() => fx.close());

describe('error formats over the wire', () => {
  it('answers JSON by default, with the CORS and nosniff headers', async () => {
    const reply = await send(fx.gw.url, '/echo/a');
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.headers['access-control-allow-origin']).toBe('*');
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(reply.headers['x-api-umbrella-request-id']).toMatch(/^[A-Za-z0-9]{20}$/);
  });

  it('answers XML for a .xml path even when format= and Accept ask for JSON', async () => {
    const reply = await send(fx.gw.url, '/echo/hello.xml?format=json', { headers: { accept: 'application/json' } });
    expect(reply.headers['content-type']).toBe('application/xml');
    expect(reply.text).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><response><error><code>API_KEY_MISSING</code><message>No api_key was supplied. Get one at ${fx.gw.url}/signup/</message></error></response>`,
    );
  });

  it('answers CSV for format=csv, with its header row', async () => {
    const reply = await send(fx.gw.url, '/echo/a?format=csv', { headers: { accept: 'application/xml' } });
    expect(reply.headers['content-type']).toBe('text/csv');
    expect(reply.text).toBe(`Error Code,Error Message\nAPI_KEY_MISSING,No api_key was supplied. Get one at ${fx.gw.url}/signup/\n`);
  });

  it('answers HTML or text/xml as Accept weighs them', async () => {
    const html = await send(fx.gw.url, '/echo/a', { headers: { accept: 'application/json;q=0.5, text/html' } });
    expect(html.headers['content-type']).toBe('text/html');
    expect(html.text).toBe(`<html><body><h1>API_KEY_MISSING</h1><p>No api_key was supplied. Get one at ${fx.gw.url}/signup/</p></body></html>`);
    const xml = await send(fx.gw.url, '/echo/a', { headers: { accept: 'application/*;q=0.5, text/*;q=0.6' } });
    expect(xml.headers['content-type']).toBe('text/xml');
  });

  it('escapes the markup characters a Host may hold in every format, and refuses a Host with others', async () => {
    const host = "a'c&d";
    const html = await send(fx.gw.url, '/echo/a.html', { headers: { host } });
    expect(html.text).toContain('http://a&#39;c&amp;d/signup/');
    const xml = await send(fx.gw.url, '/echo/a.xml', { headers: { host } });
    expect(xml.text).toContain('http://a&#39;c&amp;d/signup/');
    const json = await send(fx.gw.url, '/echo/a.json', { headers: { host } });
    expect(JSON.parse(json.text).error.message).toBe(`No api_key was supplied. Get one at http://${host}/signup/`);
    const hostile = await send(fx.gw.url, '/echo/a.html', { headers: { host: 'a<b>"c' } });
    expect(hostile.status).toBe(400);
    expect(hostile.text).not.toContain('<b>');
  });

  it('sends the headers of an error to HEAD without a body', async () => {
    const reply = await send(fx.gw.url, '/echo/a', { method: 'HEAD' });
    expect(reply.status).toBe(403);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.text).toBe('');
  });
});

describe('message URLs', () => {
  it('uses public_url and contact_url from the config', async () => {
    const local = await startProxyFixture({ config: { public_url: 'https://api.example.gov/', contact_url: 'https://example.gov/help' } });
    try {
      const { apiKey } = await local.gw.createUser({ email: 'off@example.com', enabled: false });
      await local.gw.publishBackend(echoBackend(local.echo));
      const missing = await send(local.gw.url, '/echo/a');
      expect(JSON.parse(missing.text).error.message).toBe('No api_key was supplied. Get one at https://api.example.gov/signup/');
      const disabled = await send(local.gw.url, '/echo/a', { headers: { 'X-Api-Key': apiKey } });
      expect(JSON.parse(disabled.text).error.message).toBe('The api_key supplied has been disabled. Contact us at https://example.gov/help for assistance');
    } finally {
      await local.close();
    }
  });
});

describe('require_https', () => {
  it('refuses plain HTTP with HTTPS_REQUIRED before checking the key', async () => {
    await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/secure/', backend_prefix: '/' }], settings: { require_https: true } }));
    const reply = await send(fx.gw.url, '/secure/a?b=1');
    expect(reply.status).toBe(400);
    const host = new URL(fx.gw.url).hostname;
    expect(JSON.parse(reply.text).error).toEqual({
      code: 'HTTPS_REQUIRED',
      message: `Requests must be made over HTTPS. Try accessing the API at: https://${host}/secure/a?b=1`,
    });
    const forwarded = await send(fx.gw.url, '/secure/a', { headers: { 'x-forwarded-proto': 'https', 'X-Api-Key': fx.apiKey } });
    expect(forwarded.status).toBe(200);
  });

  it("takes API Umbrella's modes: required_return_error requires HTTPS, optional does not", async () => {
    const backend = (prefix: string, mode: string) => echoBackend(fx.echo, { url_matches: [{ frontend_prefix: prefix, backend_prefix: '/' }], settings: { require_https: mode } });
    await fx.gw.publishBackend(backend('/au-required/', 'required_return_error'));
    await fx.gw.publishBackend(backend('/au-optional/', 'optional'));
    expect(errorCode(await send(fx.gw.url, '/au-required/a', { headers: { 'X-Api-Key': fx.apiKey } }))).toBe('HTTPS_REQUIRED');
    expect((await send(fx.gw.url, '/au-optional/a', { headers: { 'X-Api-Key': fx.apiKey } })).status).toBe(200);
    const refused = await fx.gw.adminApi('POST', '/apis', { api: backend('/au-unknown/', 'sometimes') });
    expect(refused.status).toBe(422);
    expect(refused.body.errors['settings.require_https']).toEqual(['is not included in the list']);
  });

  it('transition_return_error requires HTTPS of keys made from its start on; older keys and keyless requests may use HTTP', async () => {
    const backend = (prefix: string, start: string) =>
      echoBackend(fx.echo, {
        url_matches: [{ frontend_prefix: prefix, backend_prefix: '/' }],
        settings: { require_https: 'transition_return_error', require_https_transition_start_at: start, disable_api_key: true },
      });
    await fx.gw.publishBackend(backend('/https-since-2013/', '2013-02-01T01:27:00Z'));
    await fx.gw.publishBackend(backend('/https-from-2100/', '2100-01-01T00:00:00Z'));
    const newer = await send(fx.gw.url, '/https-since-2013/a?b=1', { headers: { 'X-Api-Key': fx.apiKey } });
    expect(newer.status).toBe(400);
    expect(JSON.parse(newer.text).error.code).toBe('HTTPS_REQUIRED');
    expect(JSON.parse(newer.text).error.message).toBe(`Requests must be made over HTTPS. Try accessing the API at: https://${new URL(fx.gw.url).hostname}/https-since-2013/a?b=1`);
    const overHttps = await send(fx.gw.url, '/https-since-2013/a', { headers: { 'x-forwarded-proto': 'https', 'X-Api-Key': fx.apiKey } });
    expect(overHttps.status).toBe(200);
    expect((await send(fx.gw.url, '/https-since-2013/a')).status).toBe(200);
    expect((await send(fx.gw.url, '/https-from-2100/a', { headers: { 'X-Api-Key': fx.apiKey } })).status).toBe(200);
  });
});
