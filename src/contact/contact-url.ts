// Where "contact us" leads: the configured contact_url, or the built-in
// contact page under the given base URL (empty for a link within the site).
import type { Config } from '../config/schema.js';

export const CONTACT_PATH = '/contact/';

export function contactUrl(config: Pick<Config, 'contact_url'>, base: string): string {
  return config.contact_url ?? `${base}${CONTACT_PATH}`;
}
