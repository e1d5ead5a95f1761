// The routing table's cost with 1,000 published backends: nanoseconds per
// match(host, path), over a mix of hits on exact and wildcard hosts and misses.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ApiBackend } from '../../src/api-backends/model.js';
import { EMPTY_SETTINGS } from '../../src/api-backends/model.js';
import { DEFAULT_RATE_LIMITS } from '../../src/config/schema.js';
import { compileRoutes } from '../../src/gateway/routes.js';
import { UpstreamPools } from '../../src/gateway/upstreams.js';

const PROXY_CONFIG = {
  connect_timeout_ms: 1000,
  response_timeout_ms: 1000,
  body_timeout_ms: 1000,
  keep_alive_timeout_ms: 1000,
  connections_per_server: 1,
  max_header_size: 32_768,
  client_body_timeout_ms: 1000,
  client_send_timeout_ms: 1000,
  client_keep_alive_timeout_ms: 1000,
  shutdown_timeout_ms: 0,
  gzip: true,
  upstream_tls_verify: true,
  upstream_ca_file: null,
  upstream_dns_refresh_ms: 30_000,
};

export function syntheticBackends(count: number): ApiBackend[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `b${index}`,
    name: `Backend ${index}`,
    sort_order: index,
    frontend_host: index % 10 === 0 ? `*.tenant${index % 7}.example.com` : `api${index % 40}.example.com`,
    backend_host: 'upstream.example',
    backend_protocol: 'http',
    balance_algorithm: 'round_robin',
    servers: [{ id: randomUUID(), host: '127.0.0.1', port: 10_000 + (index % 20) }],
    url_matches: [{ id: randomUUID(), frontend_prefix: `/service${index}/v${index % 3}/`, backend_prefix: '/' }],
    settings: EMPTY_SETTINGS,
    sub_settings: [],
    rewrites: [],
    created_at: '',
    updated_at: '',
    created_by: null,
    updated_by: null,
  }));
}

/** Median nanoseconds per lookup over `rounds` passes of 1,000,000 lookups. */
export async function measureLookup(backendCount = 1000, rounds = 5): Promise<number> {
  const pools = new UpstreamPools(PROXY_CONFIG);
  const table = compileRoutes({ version: 1, apis: syntheticBackends(backendCount) }, { rateLimits: DEFAULT_RATE_LIMITS, requireHttps: false }, pools);
  const probes = Array.from({ length: 1000 }, (_, index) => {
    const backend = index * 7 % backendCount;
    const host = backend % 10 === 0 ? `eu.tenant${backend % 7}.example.com` : `api${backend % 40}.example.com:8080`;
    const path = index % 5 === 0 ? `/nowhere/${index}` : `/service${backend}/v${backend % 3}/items/${index}?page=2`;
    return [host, path.split('?')[0]!] as const;
  });
  const perRound: number[] = [];
  let hits = 0;
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    for (let index = 0; index < 1_000_000; index++) {
      const [host, path] = probes[index % probes.length]!;
      if (table.match(host, path) !== null) hits++;
    }
    perRound.push(((performance.now() - started) * 1e6) / 1_000_000);
  }
  await pools.close();
  if (hits === 0) throw new Error('the lookup bench matched nothing');
  perRound.sort((a, b) => a - b);
  return perRound[Math.floor(rounds / 2)]!;
}
