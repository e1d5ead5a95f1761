// A backend's default_response_headers and override_response_headers, as in
// API Umbrella: defaults fill in headers the upstream did not send, overrides
// replace the upstream's of the same name (names compare case-insensitively).
import type { ApiSettings, HeaderSetting } from '../api-backends/model.js';
import { isHeaderValue } from '../lib/header-value.js';
import type { BodyHeaders } from './compression.js';
import { setsParasolCookie } from './cookie-stripping.js';
import { GATEWAY_OWNED_RESPONSE } from './headers.js';

export interface ResponseHeaderSettings {
  readonly defaults: readonly HeaderSetting[];
  readonly overrides: readonly HeaderSetting[];
  /** The overrides' names, lowercase: the upstream's headers of these names go. */
  readonly overridden: ReadonlySet<string>;
}

/** null when the settings set no response header, so a response costs one null check. */
export function compileResponseHeaders(settings: ApiSettings): ResponseHeaderSettings | null {
  // isHeaderValue: a value stored before it was checked on saving would fail every response; so for a Set-Cookie of Parasol's own cookies, refused on saving now.
  const allowed = (header: HeaderSetting) => {
    const lower = header.key.toLowerCase();
    return !GATEWAY_OWNED_RESPONSE.has(lower) && isHeaderValue(header.value) && !(lower === 'set-cookie' && setsParasolCookie(header.value));
  };
  const defaults = settings.default_response_headers.filter(allowed);
  const overrides = settings.override_response_headers.filter(allowed);
  if (defaults.length === 0 && overrides.length === 0) return null;
  return { defaults, overrides, overridden: new Set(overrides.map((header) => header.key.toLowerCase())) };
}

/**
 * `headers` (a flat [name, value, …] list) with the settings applied; what
 * they change about the body's type or caching is noted in `body`, so
 * compression decides on the headers the client will get.
 */
export function applyResponseHeaders(headers: string[], settings: ResponseHeaderSettings, body: BodyHeaders | null): string[] {
  const out: string[] = [];
  const present = new Set<string>();
  for (let index = 0; index < headers.length; index += 2) {
    const lower = headers[index]!.toLowerCase();
    if (settings.overridden.has(lower)) continue;
    present.add(lower);
    out.push(headers[index]!, headers[index + 1]!);
  }
  for (const name of settings.overridden) body?.forget(name);
  for (const header of settings.defaults) {
    const lower = header.key.toLowerCase();
    if (present.has(lower) || settings.overridden.has(lower)) continue;
    present.add(lower);
    push(out, header, lower, body);
  }
  for (const header of settings.overrides) push(out, header, header.key.toLowerCase(), body);
  return out;
}

function push(out: string[], header: HeaderSetting, lower: string, body: BodyHeaders | null): void {
  out.push(header.key, header.value);
  body?.note(lower, header.value);
}
