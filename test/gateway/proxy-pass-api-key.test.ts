// pass_api_key_header and pass_api_key_query_param, as API Umbrella's
// request_rewriting tests check them: the key the client used, wherever it
// came from, reaches the upstream in the one place the backend asked for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, echoBackend, send, startProxyFixture, type ProxyFixture } from './support.js';

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture();
  const backend = (prefix: string, settings: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: prefix, backend_prefix: '/' }], settings, ...extra }));
  await backend('/header/', { pass_api_key_header: true });
  await backend('/query/', { pass_api_key_query_param: true, append_query_string: 'added=1' });
  await backend('/own-query-key/', { pass_api_key_query_param: true, append_query_string: 'api_key=backend-own-key&added=1' });
  await backend('/own-key/', { pass_api_key_header: true, headers: [{ key: 'X-Api-Key', value: 'backend-own-key' }] });
  await backend('/open/', { pass_api_key_header: true, pass_api_key_query_param: true, disable_api_key: true });
  await backend('/mixed/', {}, { sub_settings: [{ http_method: 'any', regex: '^/passed', settings: { pass_api_key_query_param: true } }] });
});
afterAll(() => fx.close());

/** The client's three ways of giving its key. */
const WAYS = {
  header: (path: string) => send(fx.gw.url, path, { headers: { 'X-Api-Key': fx.apiKey } }),
  query: (path: string) => send(fx.gw.url, `${path}${path.includes('?') ? '&' : '?'}api_key=${fx.apiKey}`),
  'basic auth': (path: string) => send(fx.gw.url, path, { headers: { authorization: basicAuth(fx.apiKey) } }),
};

describe('pass_api_key_header', () => {
  it.each(Object.keys(WAYS))('sends the key given by %s as X-Api-Key, and nowhere else', async (way) => {
    const reply = await WAYS[way as keyof typeof WAYS]('/header/info/');
    expect(reply.status).toBe(200);
    expect(reply.echoed.headers['x-api-key']).toBe(fx.apiKey);
    expect(reply.echoed.query).toBe('');
    expect(reply.echoed.basicAuthUser).toBeNull();
    expect(reply.echoed.headers.authorization).toBeUndefined();
  });

  it("leaves a backend's own X-Api-Key header setting in place", async () => {
    const reply = await WAYS.header('/own-key/info/');
    expect(reply.echoed.headers['x-api-key']).toBe('backend-own-key');
  });
});

describe('pass_api_key_query_param', () => {
  it.each(Object.keys(WAYS))('sends the key given by %s as api_key, last, and nowhere else', async (way) => {
    const reply = await WAYS[way as keyof typeof WAYS]('/query/info/?ccc=foo&aaa=bar&b=test');
    expect(reply.status).toBe(200);
    expect(reply.echoed.query).toBe(`ccc=foo&aaa=bar&b=test&added=1&api_key=${fx.apiKey}`);
    expect(reply.echoed.headers['x-api-key']).toBeUndefined();
    expect(reply.echoed.headers.authorization).toBeUndefined();
  });

  it('replaces an invalid api_key in the query by the valid key from the header', async () => {
    const reply = await send(fx.gw.url, '/query/info/?api_key=foo', { headers: { 'X-Api-Key': fx.apiKey } });
    expect(reply.echoed.query).toBe(`added=1&api_key=${fx.apiKey}`);
  });

  it("sends once the api_key of the backend's append_query_string, in place of the client's", async () => {
    const reply = await WAYS.query('/own-query-key/info/?a=1');
    expect(reply.echoed.query).toBe('a=1&api_key=backend-own-key&added=1');
  });

  it('applies per sub-setting', async () => {
    expect((await WAYS.header('/mixed/passed/x')).echoed.query).toBe(`api_key=${fx.apiKey}`);
    expect((await WAYS.header('/mixed/other/x')).echoed.query).toBe('');
  });
});

it('passes nothing for a request without a key to a backend that needs none', async () => {
  const reply = await send(fx.gw.url, '/open/info/?x=1');
  expect(reply.status).toBe(200);
  expect(reply.echoed.query).toBe('x=1');
  expect(reply.echoed.headers['x-api-key']).toBeUndefined();
});
