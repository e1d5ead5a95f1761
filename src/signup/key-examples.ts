// The three ways to pass an API key (X-Api-Key header, api_key parameter,
// HTTP Basic username), as ready-to-run requests for the signup success
// page, the homepage and the welcome email.
import { exampleApi } from '../api-backends/example-url.js';
import { shellQuote } from '../lib/shell-quote.js';
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

/** A fresh signup has no roles: the examples call a backend that needs none. */
export function keyExamples(baseUrl: string, apiKey: string, published: PublishedConfig): KeyExamples {
  const api = exampleApi(baseUrl, published);
  const url = api?.url ?? new URL(PLACEHOLDER_PATH, baseUrl);
  const withParameter = new URL(url);
  withParameter.searchParams.append('api_key', apiKey);
  return {
    url: url.href,
    backendName: api?.backendName ?? null,
    header: `curl -H ${shellQuote(`X-Api-Key: ${apiKey}`)} ${shellQuote(url.href)}`,
    query: `curl ${shellQuote(withParameter.href)}`,
    basic: `curl -u ${shellQuote(`${apiKey}:`)} ${shellQuote(url.href)}`,
  };
}
