// The three ways to pass an API key (X-Api-Key header, api_key parameter,
// HTTP Basic username), as ready-to-run requests for the signup success
// page, the homepage and the welcome email.
import type { ApiBackend } from '../api-backends/model.js';
import { isWildcardHost } from '../api-backends/validate.js';
import type { PublishedConfig } from '../publish/published-config.js';

export interface KeyExamples {
  /** The URL the examples call: a published backend a new key may reach, or a placeholder path. */
  readonly url: string;
  /** The backend the examples call, when there is one. */
  readonly backendName: string | null;
  readonly header: string;
  readonly query: string;
  readonly basic: string;
}

const PLACEHOLDER_PATH = '/your/api/path';


export function keyExamples(baseUrl: string, apiKey: string, published: PublishedConfig): KeyExamples {
  const backend = published.apis.find(openToNewKeys) ?? null;
  const url = backend === null ? new URL(PLACEHOLDER_PATH, baseUrl) : backendUrl(baseUrl, backend);
  const withParameter = new URL(url);
  withParameter.searchParams.append('api_key', apiKey);
  return {
    url: url.href,
    backendName: backend?.name ?? null,
    header: `curl -H ${shellQuote(`X-Api-Key: ${apiKey}`)} ${shellQuote(url.href)}`,
    query: `curl ${shellQuote(withParameter.href)}`,
    basic: `curl -u ${shellQuote(`${apiKey}:`)} ${shellQuote(url.href)}`,
  };
}

/** A fresh signup has no roles, so only a backend that needs neither more roles nor no key at all makes a useful example. */
function openToNewKeys(api: ApiBackend): boolean {
  return api.settings.disable_api_key !== true && api.settings.required_roles.length === 0 && api.url_matches.length > 0;
}

function backendUrl(baseUrl: string, api: ApiBackend): URL {
  const url = new URL(api.url_matches[0]!.frontend_prefix, baseUrl);
  if (!isWildcardHost(api.frontend_host)) {
    if (api.frontend_host.includes(':')) url.host = api.frontend_host;
    else url.hostname = api.frontend_host;
  }
  return url;
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
