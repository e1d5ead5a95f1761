import { describe, expect, it } from 'vitest';
import { CookieStripper } from '../../src/gateway/cookie-stripping.js';

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
