// Which responses the shared response cache may keep, and for how long: the
// rules of API Umbrella's Traffic Server. Only responses a backend marks as
// fresh are kept (Cache-Control max-age or s-maxage, a future Expires, or a
// Surrogate-Control max-age, which speaks to gateways alone and so outranks
// Cache-Control); nothing that sets a cookie or asks for credentials; a 301
// without a lifetime for an hour, Traffic Server's heuristic minimum.

import type { Clock } from '../lib/clock.js';

/** The statuses RFC 9111 lets a cache keep by default, less 206: ranges are not cached. */
const STORABLE_STATUSES: ReadonlySet<number> = new Set([200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]);
const PERMANENT_REDIRECT_SECONDS = 3600;

/** The upstream's headers that decide caching, noted while they are copied (one response at a time). */
export class CacheHeaders {
  cacheControl: string | undefined;
  surrogateControl: string | undefined;
  expires: string | undefined;
  date: string | undefined;
  age: string | undefined;
  vary: string | undefined;
  setsCookie = false;
  asksForCredentials = false;
  /** The upstream sent an X-Cache of its own (a cache behind it), which a miss passes on. */
  hasXCache = false;

  reset(): void {
    this.cacheControl = this.surrogateControl = this.expires = this.date = this.age = this.vary = undefined;
    this.setsCookie = this.asksForCredentials = this.hasXCache = false;
  }

  /** Notes a header by its lowercase name. */
  note(name: string, value: string): void {
    switch (name) {
      case 'cache-control':
        this.cacheControl = joined(this.cacheControl, value);
        break;
      case 'surrogate-control':
        this.surrogateControl = joined(this.surrogateControl, value);
        break;
      case 'expires':
        this.expires = value;
        break;
      case 'date':
        this.date = value;
        break;
      case 'age':
        this.age = value;
        break;
      case 'vary':
        this.vary = joined(this.vary, value);
        break;
      case 'set-cookie':
        this.setsCookie = true;
        break;
      case 'www-authenticate':
        this.asksForCredentials = true;
        break;
      case 'x-cache':
        this.hasXCache = true;
        break;
    }
  }
}

/** Header names CacheHeaders.note() looks at. */
export const CACHE_HEADER_NAMES: readonly string[] = ['cache-control', 'surrogate-control', 'expires', 'date', 'age', 'vary', 'set-cookie', 'www-authenticate', 'x-cache'];

/** Whether the response says anything of how long it stays fresh: most do not, and cost no more. */
export function mayBeFresh(status: number, headers: CacheHeaders): boolean {
  return headers.surrogateControl !== undefined || headers.cacheControl !== undefined || headers.expires !== undefined || status === 301;
}

/** Seconds the response stays fresh from when the upstream sent it; 0: it must not be kept. */
export function freshLifetime(status: number, headers: CacheHeaders, clock: Clock): number {
  if (!mayBeFresh(status, headers)) return 0;
  if (!STORABLE_STATUSES.has(status) || headers.setsCookie || headers.asksForCredentials || variesOnEverything(headers.vary)) return 0;
  // A Surrogate-Control with a lifetime (or no-store) decides alone, private in Cache-Control or not, as in API Umbrella; one without (content="ESI/1.0") says nothing here.
  const surrogate = directives(headers.surrogateControl);
  if (surrogate.has('no-store')) return 0;
  const surrogateMaxAge = surrogate.get('max-age');
  if (surrogateMaxAge !== undefined) return deltaSeconds(surrogateMaxAge);
  const control = directives(headers.cacheControl);
  if (control.has('no-store') || control.has('private') || control.has('no-cache')) return 0;
  const maxAge = control.get('s-maxage') ?? control.get('max-age');
  if (maxAge !== undefined) return deltaSeconds(maxAge);
  if (headers.expires !== undefined) return expiresLifetime(headers.expires, headers.date, clock.now());
  return heuristicLifetime(status);
}

function heuristicLifetime(status: number): number {
  return status === 301 ? PERMANENT_REDIRECT_SECONDS : 0;
}

/** The Age the upstream reported (a cache behind it), in seconds. */
export function upstreamAge(headers: CacheHeaders): number {
  return headers.age === undefined ? 0 : deltaSeconds(headers.age);
}

/** Vary's header names in lowercase, without Accept-Encoding: the gateway codes bodies for each client itself. */
export function varyNames(vary: string | undefined): readonly string[] {
  if (vary === undefined) return [];
  const names = vary.split(',').map((name) => name.trim().toLowerCase());
  return [...new Set(names)].filter((name) => name !== '' && name !== 'accept-encoding');
}

function variesOnEverything(vary: string | undefined): boolean {
  return vary !== undefined && vary.split(',').some((name) => name.trim() === '*');
}

/** Directive names in lowercase, with their values unquoted ('' for none). */
function directives(header: string | undefined): Map<string, string> {
  const found = new Map<string, string>();
  if (header === undefined) return found;
  for (const item of header.split(',')) {
    const equals = item.indexOf('=');
    const name = (equals < 0 ? item : item.slice(0, equals)).trim().toLowerCase();
    if (name === '' || found.has(name)) continue;
    found.set(name, equals < 0 ? '' : item.slice(equals + 1).trim().replace(/^"(.*)"$/, '$1'));
  }
  return found;
}

/** A delta-seconds value; anything else counts as 0, as RFC 9111 has a cache treat an invalid one. */
function deltaSeconds(value: string): number {
  return /^\d+$/.test(value.trim()) ? Math.min(Number(value.trim()), 2 ** 31) : 0;
}

/** Expires counts from the response's own Date when it has one, so a clock apart from ours does not matter. */
function expiresLifetime(expires: string, date: string | undefined, now: number): number {
  const end = Date.parse(expires);
  if (Number.isNaN(end)) return 0;
  const sent = date === undefined ? Number.NaN : Date.parse(date);
  return Math.max(0, Math.floor((end - (Number.isNaN(sent) ? now : sent)) / 1000));
}

function joined(before: string | undefined, value: string): string {
  return before === undefined ? value : `${before}, ${value}`;
}
