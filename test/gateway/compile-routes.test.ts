// Compiling a published config again after a publish or a reload: only the
// backends that changed compile again, on the thread the proxy shares.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiBackendRepository } from '../../src/api-backends/repository.js';
import { EMPTY_SETTINGS, type ApiBackend, type ApiBackendConfig } from '../../src/api-backends/model.js';
import type { Config } from '../../src/config/schema.js';
import { compileRoutes, type CompiledBackend, type GatewayTable } from '../../src/gateway/routes.js';
import { backendDefaultsOf } from '../../src/gateway/settings.js';
import { UpstreamPools } from '../../src/gateway/upstreams.js';
import type { PublishedConfig } from '../../src/publish/published-config.js';
import { Publisher } from '../../src/publish/publisher.js';
import { openStore } from '../../src/store/db.js';
import { tempDir, testConfig } from '../helpers/config.js';

const config = testConfig();
const openPools: UpstreamPools[] = [];
afterAll(() => Promise.all(openPools.map((pools) => pools.close())));

function newPools(): UpstreamPools {
  const pools = new UpstreamPools(config.proxy);
  openPools.push(pools);
  return pools;
}

function backendConfig(name: string, port: number): ApiBackendConfig {
  return {
    name,
    frontend_host: 'api.example.com',
    backend_host: '',
    backend_protocol: 'http',
    balance_algorithm: 'round_robin',
    servers: [{ id: randomUUID(), host: '127.0.0.1', port }],
    url_matches: [{ id: randomUUID(), frontend_prefix: `/${name}/`, backend_prefix: '/' }],
    settings: { ...EMPTY_SETTINGS, headers: [{ id: randomUUID(), key: 'X-Backend', value: name }] },
    sub_settings: [{ id: randomUUID(), http_method: 'any', regex: '^/slow', settings: { ...EMPTY_SETTINGS, rate_limit_mode: 'unlimited' } }],
    rewrites: [],
  };
}

let backends: ApiBackendRepository;
let publisher: Publisher;
let ids: string[];

/** Four backends, published; the second and third share a server, as backends often share an origin. */
beforeEach(() => {
  const db = openStore(join(tempDir('parasol-compile-routes-'), 'data'));
  backends = new ApiBackendRepository(db);
  publisher = new Publisher(db, backends);
  ids = [backendConfig('one', 9001), backendConfig('two', 9002), backendConfig('three', 9002), backendConfig('four', 9004)].map(
    (api) => backends.create(api, 'test').id,
  );
  publisher.publish(ids, 'test');
});

function compile(published: PublishedConfig, pools: UpstreamPools, from: Config = config): GatewayTable {
  return compileRoutes(published, backendDefaultsOf(from.default_api_backend_settings), pools, from.default_host, from.admin.hosts);
}

/** Each backend's compiled form in the table, by id. */
function compiledOf(table: GatewayTable, published: PublishedConfig): Map<string, CompiledBackend> {
  return new Map(published.apis.map((api) => [api.id, table.match(api.frontend_host, api.url_matches[0]!.frontend_prefix)!.backend]));
}

/** Publishes a change to one backend's draft. */
function publishChanged(id: string, change: (api: ApiBackendConfig) => ApiBackendConfig): void {
  const { sort_order, created_at, updated_at, created_by, updated_by, ...draft } = backends.get(id)!;
  backends.update(id, change(draft), 'test');
  expect(publisher.publish([id], 'test')).not.toBeNull();
}

const others = (changed: string) => ids.filter((id) => id !== changed);

describe('compileRoutes after a publish', () => {
  it('keeps the compiled settings of every backend the publish left as it was, and compiles the changed one', () => {
    const pools = newPools();
    const before = compiledOf(compile(publisher.current, pools), publisher.current);
    publishChanged(ids[1]!, (api) => ({ ...api, settings: { ...api.settings, headers: [{ id: randomUUID(), key: 'X-Backend', value: 'two again' }] } }));
    const after = compiledOf(compile(publisher.current, pools), publisher.current);
    for (const id of others(ids[1]!)) expect(after.get(id)!.settings).toBe(before.get(id)!.settings);
    expect(after.get(ids[1]!)!.settings).not.toBe(before.get(ids[1]!)!.settings);
    expect(after.get(ids[1]!)!.settings.choose('GET', '/', '').headers.map((header) => header.value)).toEqual(['two again']);
  });

  it('gives a backend whose servers changed upstream groups of its own, on the pools the others still share', () => {
    const pools = newPools();
    const before = compiledOf(compile(publisher.current, pools), publisher.current);
    publishChanged(ids[2]!, (api) => ({ ...api, servers: [{ id: randomUUID(), host: '127.0.0.1', port: 9003 }] }));
    const after = compiledOf(compile(publisher.current, pools), publisher.current);
    const serverOf = (id: string) => after.get(id)!.upstreams.pick('192.0.2.1', 0);
    expect(after.get(ids[2]!)!.upstreams).not.toBe(before.get(ids[2]!)!.upstreams);
    expect(serverOf(ids[2]!).origin).toBe('http://127.0.0.1:9003');
    expect(serverOf(ids[2]!)).toBe(pools.server('http://127.0.0.1:9003'));
    expect(serverOf(ids[1]!)).toBe(pools.server('http://127.0.0.1:9002'));
    expect(after.get(ids[1]!)!.settings).toBe(before.get(ids[1]!)!.settings);
  });

  it('compiles every backend again when the backend defaults change', () => {
    const pools = newPools();
    const before = compiledOf(compile(publisher.current, pools), publisher.current);
    const httpsOnly = testConfig({ default_api_backend_settings: { require_https: 'required_return_error' } });
    const after = compiledOf(compile(publisher.current, pools, httpsOnly), publisher.current);
    for (const id of ids) {
      expect(after.get(id)!.settings).not.toBe(before.get(id)!.settings);
      expect(after.get(id)!.settings.choose('GET', '/', '').requireHttps).toBe(true);
    }
    const back = compiledOf(compile(publisher.current, pools), publisher.current);
    for (const id of ids) expect(back.get(id)!.settings.choose('GET', '/', '').requireHttps).toBe(false);
  });
});

describe('compileRoutes in the app a reload builds', () => {
  it('takes the live backends’ compiled settings when the defaults are the same, with upstreams on its own pools', () => {
    const running = newPools();
    const before = compiledOf(compile(publisher.current, running), publisher.current);
    const reloaded = newPools();
    const after = compiledOf(compile(publisher.current, reloaded, testConfig({ site_name: 'Reloaded' })), publisher.current);
    for (const id of ids) {
      expect(after.get(id)!.settings).toBe(before.get(id)!.settings);
      expect(after.get(id)!.upstreams).not.toBe(before.get(id)!.upstreams);
    }
    expect(after.get(ids[0]!)!.upstreams.pick('192.0.2.1', 0)).toBe(reloaded.server('http://127.0.0.1:9001'));
  });
});
