// Each rate-limit test publishes its backends on hosts of their own, so that
// their counters (bucketed per frontend_host) never meet.

/** Admin API input for a backend on `host`, served by the upstream on `upstreamPort`. */
export function backendOnHost(host: string, upstreamPort: number, settings: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: host,
    frontend_host: host,
    backend_host: 'upstream.example.test',
    servers: [{ host: '127.0.0.1', port: upstreamPort }],
    url_matches: [{ frontend_prefix: '/', backend_prefix: '/' }],
    settings,
    ...extra,
  };
}
