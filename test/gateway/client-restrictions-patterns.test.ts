import { describe, expect, it } from 'vitest';
import { ClientRestrictions, originPattern, userRestrictions, WildcardPattern } from '../../src/gateway/client-restrictions.js';
import { AddressRanges, isAddressOrRange } from '../../src/lib/address-ranges.js';
import { DEFAULT_USER_SETTINGS } from '../../src/api-users/model.js';

const matches = (pattern: string, text: string) => new WildcardPattern(pattern).matches(text);

describe('referer patterns', () => {
  it('take * as any text and match the whole value, case-insensitively', () => {
    expect(matches('*.example.com/*', 'https://www.EXAMPLE.com/x')).toBe(true);
    expect(matches('*.example.com/*', 'https://www.example.com')).toBe(false);
    expect(matches('*.example.com/*', 'https://www.example.com.evil.test/x')).toBe(false);
    expect(matches('*', '')).toBe(true);
    expect(matches('https://*/a*b', 'https://x.test/a-and-b')).toBe(true);
    expect(matches('https://*/a*b', 'https://x.test/a-and-c')).toBe(false);
  });

  it('take regex metacharacters in a pattern literally', () => {
    const pattern = 'https://a.b/(x)+[y]{2}?^$|\\z';
    expect(matches(pattern, pattern)).toBe(true);
    expect(matches('https://a.b/', 'https://aXb/')).toBe(false);
    expect(matches('https://x.test/a+', 'https://x.test/aaa')).toBe(false);
    expect(matches('https://x.test/(a|b)', 'https://x.test/a')).toBe(false);
    expect(matches('https://x.test/?q', 'https://x.test/q')).toBe(false);
  });

  it('match exactly without a wildcard', () => {
    expect(matches('https://google.com/', 'https://google.com/')).toBe(true);
    expect(matches('https://google.com/', 'https://google.com/extra')).toBe(false);
  });

  it('answer at once on a crafted header that stalls a backtracking regular expression', () => {
    // /^.*a.*a.*a.*b$/i does not finish on this within minutes.
    expect(matches('*a*a*a*b', 'a'.repeat(16_000))).toBe(false);
    expect(matches('*://*.example.com/*', `${'://'.repeat(2_000)}${'.example.com'.repeat(800)}`)).toBe(false);
  });
});

describe('originPattern', () => {
  it('drops the path: everything from the first "/" after the host or port', () => {
    expect(originPattern('https://example.com/app/*')).toBe('https://example.com');
    expect(originPattern('*.example.com/*')).toBe('*.example.com');
    expect(originPattern('https://google.com/')).toBe('https://google.com');
    expect(originPattern('http://localhost:8080/a/b')).toBe('http://localhost:8080');
  });

  it('leaves a pattern without a path as it is', () => {
    expect(originPattern('*.example.com*')).toBe('*.example.com*');
    expect(originPattern('https://example.com')).toBe('https://example.com');
  });
});

describe('ClientRestrictions', () => {
  const client = (ip: string, headers: Record<string, string> = {}) => ({ ip, headers });

  it('is null when neither list is set', () => {
    expect(ClientRestrictions.compile({ allowed_ips: [], allowed_referers: [] })).toBeNull();
    expect(userRestrictions(DEFAULT_USER_SETTINGS)).toBeNull();
  });

  it('requires both the address and the referer when both lists are set', () => {
    const restrictions = ClientRestrictions.compile({ allowed_ips: ['10.0.0.0/8'], allowed_referers: ['https://app.test/*'] })!;
    expect(restrictions.admits(client('10.0.0.1', { referer: 'https://app.test/x' }))).toBe(true);
    expect(restrictions.admits(client('11.0.0.1', { referer: 'https://app.test/x' }))).toBe(false);
    expect(restrictions.admits(client('10.0.0.1', { referer: 'https://other.test/x' }))).toBe(false);
  });

  it('lets a stored entry that is not an address match nothing rather than everything', () => {
    const restrictions = ClientRestrictions.compile({ allowed_ips: ['not-an-ip'], allowed_referers: [] })!;
    expect(restrictions.admits(client('10.0.0.1'))).toBe(false);
  });

  it('compiles a user\'s settings once per settings object', () => {
    const settings = { ...DEFAULT_USER_SETTINGS, allowed_ips: ['10.0.0.0/8'] };
    expect(userRestrictions(settings)).toBe(userRestrictions(settings));
    expect(userRestrictions({ ...settings })).not.toBe(userRestrictions(settings));
  });
});

describe('AddressRanges', () => {
  it('accepts addresses and CIDR ranges of both families, and nothing else', () => {
    for (const entry of ['203.0.113.7', '10.0.0.0/8', '0.0.0.0/0', '2001:db8::/32', '::1', '::/0']) expect(isAddressOrRange(entry), entry).toBe(true);
    for (const entry of ['example.com', '10.0.0.300', '10.0.0.0/33', '2001:db8::/129', '10.0.0.0/', '10.0.0.0/8/8', '10.0.0.0/x', '']) {
      expect(isAddressOrRange(entry), entry).toBe(false);
    }
    expect(AddressRanges.compile(['10.0.0.0/8', 'nope'])).toBeNull();
  });

  it('answers for both families and for IPv4-mapped IPv6 addresses', () => {
    const ranges = AddressRanges.compile(['10.0.0.0/8', '2001:db8::/32', '198.51.100.7'])!;
    expect(ranges.has('10.255.0.1')).toBe(true);
    expect(ranges.has('::ffff:10.1.1.1')).toBe(true);
    expect(ranges.has('2001:db8:ffff::1')).toBe(true);
    expect(ranges.has('198.51.100.7')).toBe(true);
    expect(ranges.has('198.51.100.8')).toBe(false);
    expect(ranges.has('garbage')).toBe(false);
    expect(ranges.has(undefined)).toBe(false);
  });
});
