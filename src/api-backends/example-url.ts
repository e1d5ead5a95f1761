// Where an example request with a key goes: the first published backend that
// key may call, at its first URL prefix on the gateway's base URL. The signup
// page, the homepage, the welcome email and the admin's new-key page show it.
import type { PublishedConfig } from '../publish/published-config.js';
import type { ApiBackend } from './model.js';
import { isWildcardHost } from './validate.js';

export interface ExampleApi {
  readonly url: URL;
  readonly backendName: string;
}

/**
 * `roles`: the key holder's (none for a fresh signup). Only a backend that
 * needs a key, and no role beyond these, makes a useful example.
 */
export function exampleApi(baseUrl: string, published: PublishedConfig, roles: readonly string[] = []): ExampleApi | null {
  const backend = published.apis.find((api) => callableWith(api, roles));
  return backend === undefined ? null : { url: backendUrl(baseUrl, backend), backendName: backend.name };
}

function callableWith(api: ApiBackend, roles: readonly string[]): boolean {
  return api.settings.disable_api_key !== true && api.settings.required_roles.every((role) => roles.includes(role)) && api.url_matches.length > 0;
}

function backendUrl(baseUrl: string, api: ApiBackend): URL {
  const url = new URL(api.url_matches[0]!.frontend_prefix, baseUrl);
  if (!isWildcardHost(api.frontend_host)) {
    if (api.frontend_host.includes(':')) url.host = api.frontend_host;
    else url.hostname = api.frontend_host;
  }
  return url;
}
