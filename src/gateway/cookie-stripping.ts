// Request cookies that are the browser's business, not the backend's
// (analytics cookies such as Google's __utm* and _ga by default: the config's
// strip_cookies), are taken out of the Cookie header on its way upstream, as
// API Umbrella does. A request left with no cookie can be answered from the
// response cache. On the way back, strip_response_cookies drops a response's
// Set-Cookie headers when every cookie they set matches (all or nothing, as
// in API Umbrella), so that the response can be cached. Parasol's own cookies
// never go upstream, whatever strip_cookies says, as API Umbrella always
// strips its admin session and CSRF cookies; nor does an upstream (or a
// backend's response header settings) set them in the client's browser,
// whatever strip_response_cookies says: a session or CSRF secret chosen by a
// backend would be a fixation.

/**
 * The cookies Parasol's pages set: the admin session and flash messages
 * (Path=/admin) and the CSRF secret of the admin and signup forms (Path=/,
 * so browsers send it with API calls to the same host). A backend, perhaps
 * another team's, has no business with them.
 */
export const PARASOL_COOKIES: ReadonlySet<string> = new Set(['parasol_admin_session', 'parasol_csrf', 'parasol_flash']);

/** All of them begin so: a Cookie header without it (nearly every one) is passed on untouched. */
const PARASOL_PREFIX = 'parasol_';

/**
 * The Cookie header the upstream gets: Parasol's own cookies taken out, then
 * those strip_cookies names (`stripper`, null when it names none); null when
 * no cookie is left.
 */
export function upstreamCookie(cookie: string, stripper: CookieStripper | null): string | null {
  const foreign = cookie.includes(PARASOL_PREFIX) ? keptCookies(cookie, (name) => PARASOL_COOKIES.has(name)) : cookie;
  return foreign === null || stripper === null ? foreign : stripper.strip(foreign);
}

/**
 * Whether a Set-Cookie value sets one of Parasol's cookies, under the name a
 * browser sends it by: a nameless cookie ("=parasol_csrf=x", or
 * "parasol_csrf" without "=") goes out as its value alone, which reads as that
 * name. Only a value naming "parasol_" is parsed.
 */
export function setsParasolCookie(setCookie: string): boolean {
  if (!setCookie.includes(PARASOL_PREFIX)) return false;
  const pair = setCookie.split(';', 1)[0]!.trim();
  return PARASOL_COOKIES.has(nameOf(pair.startsWith('=') ? pair.slice(1) : pair));
}

export class CookieStripper {
  private constructor(private readonly names: readonly RegExp[]) {}

  /** null when no pattern is given: every cookie goes upstream. Patterns match cookie names, case-insensitively, each on its own (as config check compiled them). */
  static compile(patterns: readonly string[]): CookieStripper | null {
    if (patterns.length === 0) return null;
    return new CookieStripper(patterns.map((pattern) => new RegExp(pattern, 'i')));
  }

  /** The Cookie header without the stripped cookies (the same string when none is); null when none is left. */
  strip(cookie: string): string | null {
    return keptCookies(cookie, (name) => this.stripped(name));
  }

  /** Whether every one of these Set-Cookie values sets a cookie whose name matches. */
  stripsEvery(setCookies: readonly string[]): boolean {
    return setCookies.every((setCookie) => this.stripped(setCookieNameOf(setCookie)));
  }

  private stripped(name: string): boolean {
    return this.names.some((pattern) => pattern.test(name));
  }
}

/** The Cookie header without the cookies `stripped` names (the same string when it names none); null when none is left. */
function keptCookies(cookie: string, stripped: (name: string) => boolean): string | null {
  const pairs = cookie.split(/;\s*/);
  const kept = pairs.filter((pair) => pair.trim() !== '' && !stripped(nameOf(pair)));
  if (kept.length === pairs.length) return cookie;
  return kept.length === 0 ? null : kept.join('; ');
}

/** A Set-Cookie value without "=" in its first pair sets a cookie with an empty name (RFC 6265bis), which only a pattern for the empty name matches. */
function setCookieNameOf(setCookie: string): string {
  const pair = setCookie.split(';', 1)[0]!;
  return pair.includes('=') ? nameOf(pair) : '';
}

function nameOf(pair: string): string {
  const equals = pair.indexOf('=');
  return (equals < 0 ? pair : pair.slice(0, equals)).trim();
}
