// Request header settings whose values are Mustache templates, after API
// Umbrella's test/proxy/request_rewriting/test_sets_headers_dynamic_values.rb:
// rendered per request over the request's headers, escaped as API Umbrella's
// lustache escapes, and not sent when they render empty.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, echoBackend, send, startProxyFixture, type ProxyFixture, type Reply } from './support.js';

let fx: ProxyFixture;
const backend = (prefix: string, settings: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: prefix, backend_prefix: '/' }], settings, ...extra }));

beforeAll(async () => {
  fx = await startProxyFixture({ config: { strip_cookies: ['^_ga$'] } });
  await backend(
    '/dynamic/',
    {
      headers: [
        { key: 'X-Dynamic', value: '({{headers.x-dynamic-source}}-{{headers.x-dynamic-source}})' },
        { key: 'X-Dynamic-Missing', value: '{{headers.x-missing}}' },
        { key: 'X-Dynamic-Default-Absent', value: '{{#headers.x-missing}}{{headers.x-missing}}{{/headers.x-missing}}{{^headers.x-missing}}default{{/headers.x-missing}}' },
        { key: 'X-Dynamic-Default-Present', value: '{{#headers.x-dynamic-source}}{{headers.x-dynamic-source}}{{/headers.x-dynamic-source}}{{^headers.x-dynamic-source}}static{{/headers.x-dynamic-source}}' },
      ],
    },
    { sub_settings: [{ http_method: 'any', regex: '^/info/sub/', settings: { headers: [{ key: 'X-Dynamic-Sub', value: '{{headers.x-dynamic-source}}' }] } }] },
  );
  await backend('/escaping/', {
    headers: [
      { key: 'X-Escaped', value: '{{headers.x-source}}' },
      { key: 'X-Triple', value: '{{{headers.x-source}}}' },
      { key: 'X-Ampersand', value: '{{&headers.x-source}}' },
    ],
  });
  await backend('/view/', {
    pass_api_key_header: true,
    headers: [
      { key: 'X-Fixed', value: 'fixed-value' },
      { key: 'X-User', value: '{{headers.x-api-user-id}}|{{headers.x-api-key}}' },
      { key: 'X-Seen-Fixed', value: '{{headers.x-fixed}}' },
      { key: 'X-Later', value: 'later-value' },
      { key: 'X-Seen-Later', value: '{{headers.x-later}}' },
      { key: 'X-Cookie', value: '{{{headers.cookie}}}' },
      { key: 'X-Host', value: '{{headers.host}}' },
      { key: 'X-Underscored', value: '{{headers.x_under}}' },
      { key: 'X-Prototype', value: '{{headers.constructor}}{{constructor}}{{headers.__proto__}}' },
      { key: 'X-Replaced', value: '{{headers.x-nothing}}' },
    ],
  });
});
afterAll(() => fx.close());

/** The headers the upstream got beyond those every request carries. */
function dynamicHeaders(reply: Reply): Record<string, unknown> {
  expect(reply.status).toBe(200);
  return Object.fromEntries(Object.entries(reply.echoed.headers).filter(([name]) => name.startsWith('x-dynamic') || name === 'x-missing'));
}

const get = (path: string, headers: Record<string, string> = {}) => send(fx.gw.url, path, { headers: { 'X-Api-Key': fx.apiKey, ...headers } });

describe('dynamic header values (API Umbrella test_sets_headers_dynamic_values)', () => {
  it('renders variables and sections from the request headers; one that renders empty is not sent', async () => {
    expect(dynamicHeaders(await get('/dynamic/info/', { 'X-Dynamic-Source': 'dynamic' }))).toEqual({
      'x-dynamic': '(dynamic-dynamic)',
      'x-dynamic-source': 'dynamic',
      'x-dynamic-default-absent': 'default',
      'x-dynamic-default-present': 'dynamic',
    });
  });

  it('renders inverted sections for a missing header', async () => {
    expect(dynamicHeaders(await get('/dynamic/info/', { 'X-Missing': 'not-missing' }))).toEqual({
      'x-dynamic': '(-)',
      'x-missing': 'not-missing',
      'x-dynamic-missing': 'not-missing',
      'x-dynamic-default-absent': 'not-missing',
      'x-dynamic-default-present': 'static',
    });
  });

  it("renders a sub-setting's templates in place of the backend's", async () => {
    expect(dynamicHeaders(await get('/dynamic/info/sub/', { 'X-Dynamic-Source': 'dynamic' }))).toEqual({
      'x-dynamic-source': 'dynamic',
      'x-dynamic-sub': 'dynamic',
    });
  });
});

it("escapes {{name}} as API Umbrella's lustache does (& < > \" ' /, not ` or =), and {{{name}}} and {{&name}} not at all", async () => {
  const source = `<a href="/x?a=1&b='2'">\`=</a>`;
  const { echoed } = await get('/escaping/', { 'X-Source': source });
  expect(echoed.headers['x-escaped']).toBe('&lt;a href=&quot;&#x2F;x?a=1&amp;b=&#39;2&#39;&quot;&gt;`=&lt;&#x2F;a&gt;');
  expect(echoed.headers['x-triple']).toBe(source);
  expect(echoed.headers['x-ampersand']).toBe(source);
});

describe("the request's headers as a template sees them", () => {
  it('hold the user and key the gateway sends, not forged copies, and the fixed headers listed before the first template', async () => {
    const { echoed } = await get('/view/', { 'X-Api-User-Id': 'forged', 'X-Later': 'client-later' });
    expect(echoed.headers['x-user']).toBe(`${fx.userId}|${fx.apiKey}`);
    expect(echoed.headers['x-seen-fixed']).toBe('fixed-value');
    // As in API Umbrella, which read the headers once, at the first template.
    expect(echoed.headers['x-seen-later']).toBe('client-later');
    expect(echoed.headers['x-later']).toBe('later-value');
  });

  it('hold no key the client sent in Basic auth unless the backend is passed it', async () => {
    const { echoed } = await send(fx.gw.url, '/view/', { headers: { authorization: basicAuth(fx.apiKey) } });
    expect(echoed.headers['x-user']).toBe(`${fx.userId}|${fx.apiKey}`);
    expect(echoed.headers.authorization).toBeUndefined();
  });

  it("hold the cookies the backend gets: without Parasol's own or strip_cookies'", async () => {
    const { echoed } = await get('/view/', { Cookie: 'a=1; parasol_csrf=secret; _ga=2; b=3' });
    expect(echoed.headers['x-cookie']).toBe('a=1; b=3');
    expect(echoed.headers['x-host']).toBe(echoed.headers['x-forwarded-host']);
  });

  it('hold no header whose name has an underscore, and no prototype', async () => {
    const { echoed } = await get('/view/', { 'X_Under': 'dropped' });
    expect(echoed.headers['x-underscored']).toBeUndefined();
    expect(echoed.headers['x-prototype']).toBeUndefined();
  });

  it("replace the client's header of the same name even when they render empty", async () => {
    const { echoed } = await get('/view/', { 'X-Replaced': 'from-client' });
    expect(echoed.headers['x-replaced']).toBeUndefined();
  });
});

it('leaves out a stored template that cannot be parsed (saved before saving checked them), and the client header it names', async () => {
  const id = await backend('/unchecked-template/', { headers: [{ key: 'X-Good', value: '{{headers.x-source}}' }] });
  const db = fx.gw.context.db;
  const draft = JSON.parse(db.prepare('SELECT document FROM api_backends WHERE id = ?').pluck().get(id) as string);
  draft.settings.headers = [
    { key: 'X-Broken', value: '{{#headers.x-source}}never closed' },
    { key: 'X-Good', value: '{{headers.x-source}}' },
  ];
  db.prepare('UPDATE api_backends SET document = ? WHERE id = ?').run(JSON.stringify(draft), id);
  expect((await fx.gw.adminApi('POST', '/config/publish', { config: { apis: { [id]: { publish: '1' } } } })).status).toBe(201);
  const reply = await get('/unchecked-template/', { 'X-Source': 'value', 'X-Broken': 'from-client' });
  expect(reply.status).toBe(200);
  expect(reply.echoed.headers['x-good']).toBe('value');
  expect(reply.echoed.headers['x-broken']).toBeUndefined();
});

it('refuses a request header template that cannot be parsed when the backend is saved, naming the field; response headers are no templates', async () => {
  const refused = await fx.gw.adminApi('POST', '/apis', {
    api: echoBackend(fx.echo, {
      settings: { headers: [{ key: 'X-Fine', value: '{{headers.a}}' }, { key: 'X-Broken', value: '{{#headers.x}}open' }] },
      sub_settings: [{ http_method: 'any', regex: '^/', settings: { headers: [{ key: 'X-Sub', value: '{{oops' }] } }],
    }),
  });
  expect(refused.status).toBe(422);
  expect(Object.keys(refused.body.errors).sort()).toEqual(['settings.headers[1].value', 'sub_settings[0].settings.headers[0].value']);
  expect(refused.body.errors['settings.headers[1].value'][0]).toMatch(/^is not a valid template \(/);
  const responseHeader = await fx.gw.adminApi('POST', '/apis', { api: echoBackend(fx.echo, { settings: { default_response_headers: [{ key: 'X-Literal', value: '{{#x' }] } }) });
  expect(responseHeader.status).toBe(201);
});
