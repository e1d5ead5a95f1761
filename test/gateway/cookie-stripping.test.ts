import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CookieStripper, PARASOL_COOKIES, upstreamCookie } from '../../src/gateway/cookie-stripping.js';

describe('CookieStripper', () => {
  const stripper = CookieStripper.compile(['^__utm.*$', '^_ga$'])!;

  it('takes out the cookies whose names match, case-insensitively and whole', () => {
    expect(stripper.strip('__utma=foo; moo=boo; __UTMZ=bar; _ga=1; __ga=2')).toBe('moo=boo; __ga=2');
    expect(stripper.strip('_GA=1; __utmb=x')).toBeNull();
  });

  it('gives back the same header when it takes nothing out', () => {
    const cookie = 'session=abc;  theme=dark';
    expect(stripper.strip(cookie)).toBe(cookie);
  });

  it('compiles each pattern on its own, as config check does', () => {
    const named = CookieStripper.compile(['^(?<x>a)$', '^(?<x>b)$'])!;
    expect(named.strip('a=1; b=2; c=3')).toBe('c=3');
    expect(CookieStripper.compile([])).toBeNull();
  });
});

describe('upstreamCookie', () => {
  const analytics = CookieStripper.compile(['^_ga$']);

  it("always takes out Parasol's own cookies, with or without strip_cookies", () => {
    expect(upstreamCookie('foo1=bar1; parasol_csrf=abc.def; foo2=bar2', null)).toBe('foo1=bar1; foo2=bar2');
    expect(upstreamCookie('parasol_admin_session=s; _ga=1; parasol_flash=f; keep=1', analytics)).toBe('keep=1');
    expect(upstreamCookie('parasol_csrf=abc.def', null)).toBeNull();
    expect(upstreamCookie('parasol_csrf=abc.def; _ga=1', analytics)).toBeNull();
  });

  it('keeps look-alike names and gives back the same header when nothing is taken out', () => {
    const cookie = 'parasol_csrfx=1;  my_parasol_csrf=2; Parasol_CSRF=3';
    expect(upstreamCookie(cookie, analytics)).toBe(cookie);
  });

  it('knows every cookie name Parasol sets', () => {
    const src = fileURLToPath(new URL('../../src', import.meta.url));
    const names = new Set<string>();
    for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts') || file.startsWith('gateway')) continue;
      for (const match of readFileSync(join(src, file), 'utf8').matchAll(/['"`](parasol_[a-z0-9_]+)['"`]/g)) names.add(match[1]!);
    }
    expect(names.size).toBeGreaterThan(0);
    expect([...names].filter((name) => !PARASOL_COOKIES.has(name))).toEqual([]);
  });
});
