import type { Config } from '../config/schema.js';

/** public_url without trailing slashes, or null when it is not configured. */
export function configuredBaseUrl(config: Pick<Config, 'public_url'>): string | null {
  return config.public_url === null ? null : config.public_url.replace(/\/+$/, '');
}

/** The gateway's base URL: public_url when configured, else what the request came to. */
export function baseUrl(config: Pick<Config, 'public_url'>, request: { readonly protocol: string; readonly host: string }): string {
  return configuredBaseUrl(config) ?? `${request.protocol}://${request.host}`;
}

/**
 * Where mails send admins (password links): public_url, moved to the first
 * of admin.hosts when public_url names the APIs' host, where the admin does
 * not answer; null when public_url is not configured.
 */
export function adminBaseUrl(config: Pick<Config, 'public_url' | 'admin'>): string | null {
  const base = configuredBaseUrl(config);
  const [adminHost] = config.admin.hosts;
  if (base === null || adminHost === undefined) return base;
  const url = new URL(base);
  if (config.admin.hosts.includes(url.hostname.toLowerCase())) return base;
  url.hostname = adminHost;
  return url.href.replace(/\/+$/, '');
}
