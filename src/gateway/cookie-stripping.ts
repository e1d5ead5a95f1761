// Request cookies that are the browser's business, not the backend's
// (analytics cookies such as Google's __utm* and _ga by default: the config's
// strip_cookies), are taken out of the Cookie header on its way upstream, as
// API Umbrella does. A request left with no cookie can be answered from the
// response cache.

export class CookieStripper {
  private constructor(private readonly names: RegExp) {}

  /** null when no pattern is given: every cookie goes upstream. Patterns match cookie names, case-insensitively. */
  static compile(patterns: readonly string[]): CookieStripper | null {
    if (patterns.length === 0) return null;
    return new CookieStripper(new RegExp(patterns.map((pattern) => `(?:${pattern})`).join('|'), 'i'));
  }

  /** The Cookie header without the stripped cookies; null when none is left. */
  strip(cookie: string): string | null {
    const kept = cookie.split(/;\s*/).filter((pair) => pair.trim() !== '' && !this.names.test(nameOf(pair)));
    return kept.length === 0 ? null : kept.join('; ');
  }
}

function nameOf(pair: string): string {
  const equals = pair.indexOf('=');
  return (equals < 0 ? pair : pair.slice(0, equals)).trim();
}
