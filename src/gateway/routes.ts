// A published config compiled for the hot path: one route per url_match,
// each pointing at its backend's compiled settings and upstream servers.
import { createHash } from 'node:crypto';
import { compareBackendOrder, type ApiBackend } from '../api-backends/model.js';
import type { PublishedConfig } from '../publish/published-config.js';
import { hostnameOf } from './request-url.js';
import { RoutingTable, type Routable } from './routing-table.js';
import { SettingsChooser, type BackendDefaults } from './settings.js';
import { isWildcardBackendHost, upstreamHostOf, type UpstreamHost } from './upstream-host.js';
import { originOf, UpstreamGroup, type UpstreamPools } from './upstreams.js';
import { UrlRewrites } from './url-rewrites.js';

export interface CompiledBackend {
  readonly id: string;
  readonly frontendHost: string;
  /** The Host sent upstream, from the client's Host (backend_host, the client's own when empty, a wildcard filled in). */
  readonly upstreamHost: UpstreamHost;
  /** Whether backend_host is a wildcard, so the Host sent depends on the client's. */
  readonly wildcardBackendHost: boolean;
  readonly settings: SettingsChooser;
  /** null: the backend rewrites nothing. */
  readonly rewrites: UrlRewrites | null;
  readonly upstreams: UpstreamGroup;
  /** Lowercased host names (no port) under which the backend names itself in a Location: its servers' and backend_host. */
  readonly ownHostnames: ReadonlySet<string>;
  /** What the response cache's keys for this backend start with: it, and where its requests go. */
  readonly cacheKeyPrefix: string;
}

export interface GatewayRoute extends Routable {
  readonly backend: CompiledBackend;
  readonly backendPrefix: string;
}

export type GatewayTable = RoutingTable<GatewayRoute>;

/** `defaultHost`: the config's default_host; `closedHosts`: admin.hosts, which serve no backend (see RoutingTable). */
export function compileRoutes(
  config: PublishedConfig,
  defaults: BackendDefaults,
  pools: UpstreamPools,
  defaultHost: string | null = null,
  closedHosts: readonly string[] = [],
): GatewayTable {
  const origins = new Set<string>();
  const defaultsKey = JSON.stringify(defaults);
  // Two backends may claim the same host and prefix: the first in the backends' order wins, whatever the published version's own order.
  const ordered = [...config.apis].sort(compareBackendOrder);
  const routes = ordered.flatMap((api, rank) => {
    for (const server of api.servers) origins.add(originOf(api.backend_protocol, server.host, server.port));
    const backend = compileBackend(api, defaults, defaultsKey, pools);
    return api.url_matches.map((match) => ({
      frontendHost: api.frontend_host,
      route: { backend, frontendPrefix: match.frontend_prefix, backendPrefix: match.backend_prefix, sortOrder: rank },
    }));
  });
  const table = new RoutingTable(routes, defaultHost, closedHosts);
  pools.retainOnly(origins);
  return table;
}

type PoolFreeParts = Omit<CompiledBackend, 'upstreams'>;

/**
 * What a backend object compiled to, but its upstreams, by the defaults it was
 * compiled with (as JSON: the gateway works them out of the config anew at
 * each publish and reload). A publish keeps the objects of the backends it
 * leaves as they are (publisher.ts), and the publisher outlives the apps a
 * reload builds, so only the backends a publish changes compile again, on the
 * thread the proxy shares (with 500 backends, 24–47 ms a publish became 2–3).
 * Upstream groups are made anew: cheap, and each app has pools of its own.
 */
const poolFreeParts = new WeakMap<ApiBackend, { readonly defaultsKey: string; readonly parts: PoolFreeParts }>();

/** A backend whose servers changed is a new object, so it gets upstream groups of its own. */
function compileBackend(api: ApiBackend, defaults: BackendDefaults, defaultsKey: string, pools: UpstreamPools): CompiledBackend {
  return { ...poolFreePartsOf(api, defaults, defaultsKey), upstreams: UpstreamGroup.forBackend(api, pools) };
}

function poolFreePartsOf(api: ApiBackend, defaults: BackendDefaults, defaultsKey: string): PoolFreeParts {
  const known = poolFreeParts.get(api);
  if (known !== undefined && known.defaultsKey === defaultsKey) return known.parts;
  const parts: PoolFreeParts = {
    id: api.id,
    frontendHost: api.frontend_host,
    upstreamHost: upstreamHostOf(api.frontend_host, api.backend_host),
    wildcardBackendHost: isWildcardBackendHost(api.backend_host),
    settings: SettingsChooser.compile(api, defaults),
    rewrites: UrlRewrites.compile(api.rewrites),
    ownHostnames: ownHostnames(api),
    cacheKeyPrefix: cacheKeyPrefix(api),
  };
  poolFreeParts.set(api, { defaultsKey, parts });
  return parts;
}

/**
 * Two backends never share a cached response, nor one backend before and
 * after a publish that changed it (its servers, Host, the headers or
 * credentials it sends, its rewrites…): what a publish changes is live at
 * once, for cached URLs too; the old entries age out.
 */
function cacheKeyPrefix(api: ApiBackend): string {
  return `${api.id} ${createHash('sha256').update(JSON.stringify(api)).digest('base64url').slice(0, 16)}\n`;
}

function ownHostnames(api: ApiBackend): Set<string> {
  const hostnames = api.servers.map((server) => server.host);
  // A wildcard backend_host names no one host: location.ts compares with the Host each request was sent.
  if (api.backend_host !== '' && !isWildcardBackendHost(api.backend_host)) hostnames.push(hostnameOf(api.backend_host));
  return new Set(hostnames.map((hostname) => hostname.toLowerCase()));
}
