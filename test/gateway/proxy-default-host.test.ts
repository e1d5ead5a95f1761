// default_host (API Umbrella's hosts[].default, its test_default_host.rb):
// a request to a host no backend names goes to the default host's backends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoBackend, errorCode, send, startProxyFixture, type ProxyFixture } from './support.js';

let fx: ProxyFixture;
let plain: ProxyFixture;
const backends = (fixture: ProxyFixture) => [
  echoBackend(fixture.echo, { frontend_host: 'default.example', url_matches: [{ frontend_prefix: '/', backend_prefix: '/default/' }] }),
  echoBackend(fixture.echo, { frontend_host: 'other.example', url_matches: [{ frontend_prefix: '/', backend_prefix: '/other/' }] }),
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
  it("sends a host no backend names to the default host's backends; a named host keeps its own", async () => {
    expect((await pathAt(fx, 'other.example')).echoed.path).toBe('/other/info/');
    expect((await pathAt(fx, 'default.example')).echoed.path).toBe('/default/info/');
    expect((await pathAt(fx, 'unknown.example')).echoed.path).toBe('/default/info/');
  });

  it('is off by default: an unknown host is not found', async () => {
    const reply = await pathAt(plain, 'unknown.example');
    expect(reply.status).toBe(404);
    expect(errorCode(reply)).toBe('NOT_FOUND');
  });
});
