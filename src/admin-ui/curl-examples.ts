// The `curl` examples on the pages that show a secret once (a new API key, a
// new Admin API Token): against the gateway's real base URL (public_url, or
// where the admin reached it) and, for a key, the first published backend it
// may call, found as the signup page finds it. That backend is the one the
// homepage and signup pages show anyone, or one requiring roles of the key's,
// which an admin who is not a superuser could only have given or kept within
// their own scopes (role-policy.ts): no other team's API is named here.
import type { FastifyRequest } from 'fastify';
import { exampleApi } from '../api-backends/example-url.js';
import type { AppContext } from '../context.js';
import { baseUrl } from '../lib/base-url.js';
import { shellQuote } from '../lib/shell-quote.js';

export interface ApiKeyExample {
  readonly command: string;
  /** The backend the command calls; null: none published takes the key yet, and the command calls the base URL. */
  readonly backendName: string | null;
}

export interface CurlExamples {
  apiKey(apiKey: string, roles: readonly string[]): ApiKeyExample;
  adminToken(token: string): string;
}

/** What the page's template calls: the published backends are looked at only by a page that shows a key. */
export function curlExamples(context: AppContext, request: FastifyRequest): CurlExamples {
  const base = baseUrl(context.config, request);
  return {
    apiKey(apiKey, roles) {
      const api = exampleApi(base, context.publisher.current, roles);
      const url = api?.url ?? new URL('/', base);
      return { command: `curl -H ${shellQuote(`X-Api-Key: ${apiKey}`)} ${shellQuote(url.href)}`, backendName: api?.backendName ?? null };
    },
    adminToken(token) {
      return `curl -H ${shellQuote(`X-Admin-Auth-Token: ${token}`)} ${shellQuote(new URL('/api-umbrella/v1/apis', base).href)}`;
    },
  };
}
