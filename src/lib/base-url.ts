import type { Config } from '../config/schema.js';

/** public_url without trailing slashes, or null when it is not configured. */
export function configuredBaseUrl(config: Pick<Config, 'public_url'>): string | null {
  return config.public_url === null ? null : config.public_url.replace(/\/+$/, '');
}

/** The gateway's base URL: public_url when configured, else what the request came to. */
export function baseUrl(config: Pick<Config, 'public_url'>, request: { readonly protocol: string; readonly host: string }): string {
  return configuredBaseUrl(config) ?? `${request.protocol}://${request.host}`;
}
