// The search of the API Backends list, in the admin and the admin API, as
// API Umbrella's list searches: what an operator types to find a backend
// among hundreds, its id, its name or any address it answers on or sends to.
import type { ApiBackend } from './model.js';

/** Whether the backend's id, name, hosts, servers or URL prefixes contain `search`, ignoring case. */
export function backendMatches(api: ApiBackend, search: string): boolean {
  const needle = search.toLowerCase();
  return searchedTexts(api).some((text) => text.toLowerCase().includes(needle));
}

function searchedTexts(api: ApiBackend): string[] {
  return [
    api.id,
    api.name,
    api.frontend_host,
    api.backend_host,
    ...api.servers.map((server) => `${server.host}:${server.port}`),
    ...api.url_matches.flatMap((match) => [match.frontend_prefix, match.backend_prefix]),
  ];
}
