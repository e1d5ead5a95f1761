// default_host (API Umbrella's hosts[].default, its test_default_host.rb):
// a request no backend of its own host matches goes to the default host's backends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoBackend, errorCode, send, startProxyFixture, type ProxyFixture } from './support.js';

let fx: ProxyFixture;
let plain: ProxyFixture;
const backends = (fixture: ProxyFixture) => [
  echoBackend(fixture.echo, { frontend_host: 'default.example', url_matches: [{ frontend_prefix: '/', backend_prefix: '/default/' }] }),
  echoBackend(fixture.echo, { frontend_host: 'other.example', url_matches: [{ frontend_prefix: '/', backend_prefix: '/other/' }] }),
  echoBackend(fixture.echo, { frontend_host: 'partial.example', url_matches: [{ frontend_prefix: '/v1/', backend_prefix: '/partial/' }] }),
];
beforeAll(async () => {
  fx = await startProxyFixture({ config: { default_host: 'default.example' } });
  plain = await startProxyFixture();
  for (const fixture of [fx, plain]) for (const backend of backends(fixture)) await fixture.gw.publishBackend(backend);
});
afterAll(async () => {
  await fx.close();
  await plain.close();
});

function pathAt(fixture: ProxyFixture, host: string) {
  return send(fixture.gw.url, '/info/', { headers: { host, 'X-Api-Key': fixture.apiKey } });
}

describe('default_host', () => {
  it("sends a request its own host's backends do not match to the default host's backends; a named host keeps its own matches", async () => {
    expect((await pathAt(fx, 'other.example')).echoed.path).toBe('/other/info/');
    expect((await pathAt(fx, 'default.example')).echoed.path).toBe('/default/info/');
    expect((await pathAt(fx, 'unknown.example')).echoed.path).toBe('/default/info/');
    expect((await pathAt(fx, 'partial.example')).echoed.path).toBe('/default/info/');
    const own = await send(fx.gw.url, '/v1/x', { headers: { host: 'partial.example', 'X-Api-Key': fx.apiKey } });
    expect(own.echoed.path).toBe('/partial/x');
  });

  it('is off by default: an unknown host is not found', async () => {
    const reply = await pathAt(plain, 'unknown.example');
    expect(reply.status).toBe(404);
    expect(errorCode(reply)).toBe('NOT_FOUND');
  });
});
