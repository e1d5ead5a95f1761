// allowed_ips and allowed_referers, as API Umbrella enforces them: compiled
// once (a backend's at publish, a user's on first use of that user record),
// so an unrestricted request pays a null check and nothing else.
import type { IncomingHttpHeaders } from 'node:http';
import type { ApiUserSettings } from '../api-users/model.js';
import { AddressRanges, isAddressOrRange } from '../lib/address-ranges.js';

/** The two lists, as backend settings and user settings both hold them. */
export interface RestrictionLists {
  readonly allowed_ips: readonly string[];
  readonly allowed_referers: readonly string[];
}

/** What a restriction looks at: the client IP (through trusted_proxies) and the request headers. */
export interface ClientView {
  readonly ip: string;
  readonly headers: IncomingHttpHeaders;
}

export class ClientRestrictions {
  private constructor(
    private readonly ips: AddressRanges | null,
    private readonly referers: readonly WildcardPattern[] | null,
    private readonly origins: readonly WildcardPattern[] | null,
  ) {}

  /** null when both lists are empty: nothing to check. */
  static compile(lists: RestrictionLists): ClientRestrictions | null {
    const ips = lists.allowed_ips;
    const referers = lists.allowed_referers;
    if (ips.length === 0 && referers.length === 0) return null;
    return new ClientRestrictions(
      // Validation refuses bad entries at save; one stored before that matches nothing, as in API Umbrella.
      ips.length === 0 ? null : AddressRanges.compile(ips.filter(isAddressOrRange))!,
      referers.length === 0 ? null : referers.map((pattern) => new WildcardPattern(pattern)),
      referers.length === 0 ? null : referers.map((pattern) => new WildcardPattern(originPattern(pattern))),
    );
  }

  /**
   * The client IP must be in one of the ranges; the Referer must match one
   * pattern, or else the Origin the pattern's origin form (browsers and
   * privacy tools drop or rewrite the Referer but keep the Origin).
   */
  admits(client: ClientView): boolean {
    if (this.ips !== null && !this.ips.has(client.ip)) return false;
    if (this.referers === null) return true;
    const { referer, origin } = client.headers;
    return matchesOne(referer, this.referers) || matchesOne(origin, this.origins!);
  }
}

const compiledForUsers = new WeakMap<ApiUserSettings, ClientRestrictions>();

/**
 * A user's restrictions, compiled on the first request with this settings
 * object and kept with it: the key index replaces the object when the user
 * changes, and users without lists never reach the cache.
 */
export function userRestrictions(settings: ApiUserSettings): ClientRestrictions | null {
  if (settings.allowed_ips.length === 0 && settings.allowed_referers.length === 0) return null;
  let compiled = compiledForUsers.get(settings);
  if (compiled === undefined) {
    compiled = ClientRestrictions.compile(settings)!;
    compiledForUsers.set(settings, compiled);
  }
  return compiled;
}

/**
 * A referer pattern: `*` is any text (none too), everything else literal,
 * the whole value, any case ("*.example.com/*" matches
 * "https://www.EXAMPLE.com/x"). Matched by a scan that never backtracks
 * further than the last `*`, so at worst header length × pattern length
 * steps: a regular expression with several `.*` can take seconds (or hours)
 * on a crafted 16 KB Referer, holding the proxy's event loop.
 */
export class WildcardPattern {
  private readonly pattern: string;

  constructor(pattern: string) {
    this.pattern = pattern.toLowerCase();
  }

  matches(text: string): boolean {
    return this.matchesLowercase(text.toLowerCase());
  }

  /** As matches(), for text already in lowercase: a header is lowered once, not once per pattern. */
  matchesLowercase(value: string): boolean {
    const { pattern } = this;
    let at = 0;
    let from = 0;
    let lastStar = -1;
    let resumeAt = 0;
    while (at < value.length) {
      if (from < pattern.length && pattern.charCodeAt(from) === STAR) {
        lastStar = from++;
        resumeAt = at;
      } else if (from < pattern.length && pattern.charCodeAt(from) === value.charCodeAt(at)) {
        from++;
        at++;
      } else if (lastStar >= 0) {
        // Let the last * take one more character and try the rest of the pattern again from there.
        from = lastStar + 1;
        at = ++resumeAt;
      } else {
        return false;
      }
    }
    while (from < pattern.length && pattern.charCodeAt(from) === STAR) from++;
    return from === pattern.length;
  }
}

const STAR = 0x2a;

/**
 * The pattern without its path, to match an Origin (which has none): cut at
 * the first "/" that follows a letter or digit, the end of the host or port.
 * "https://example.com/app/*" → "https://example.com". API Umbrella cuts at
 * the last such "/", which leaves "/app" and so never matches an Origin.
 */
export function originPattern(pattern: string): string {
  return pattern.replace(/^(.*?[A-Za-z0-9])\/.*$/s, '$1');
}

function matchesOne(value: string | undefined, patterns: readonly WildcardPattern[]): boolean {
  if (value === undefined) return false;
  const lowercase = value.toLowerCase();
  for (const pattern of patterns) if (pattern.matchesLowercase(lowercase)) return true;
  return false;
}
