// default_api_backend_settings.require_https: the require_https of backends
// that leave theirs empty, as API Umbrella's apiSettings.require_https is
// (its default: required_return_error).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { echoBackend, send, startProxyFixture, type ProxyFixture } from './support.js';

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture({ config: { default_api_backend_settings: { require_https: 'required_return_error', rate_limits: [] } } });
  const backend = (prefix: string, settings: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: prefix, backend_prefix: '/' }], settings, ...extra }));
  await backend('/inherits/', {}, { sub_settings: [{ http_method: 'any', regex: '^/open', settings: { require_https: 'optional' } }] });
  await backend('/own-optional/', { require_https: 'optional' });
});
afterAll(() => fx.close());

const get = (path: string) => send(fx.gw.url, path, { headers: { 'X-Api-Key': fx.apiKey } });

it('applies to a backend without its own, and to its sub-settings that leave theirs empty', async () => {
  const refused = await get('/inherits/x');
  expect(refused.status).toBe(400);
  expect(JSON.parse(refused.text)).toMatchObject({ error: { code: 'HTTPS_REQUIRED' } });
});

it("gives way to a backend's or a sub-setting's own", async () => {
  expect((await get('/own-optional/x')).status).toBe(200);
  expect((await get('/inherits/open/x')).status).toBe(200);
});
