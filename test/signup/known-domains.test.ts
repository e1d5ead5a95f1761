// Which domains a signup API call's options may point a welcome email at.
import { describe, expect, it } from 'vitest';
import type { ApiBackend } from '../../src/api-backends/model.js';
import { isKnownDomain, knownApiUrl, knownContactUrl, knownDomains, knownEmailAddress } from '../../src/signup/known-domains.js';

const published = (...hosts: string[]) => ({ version: 1, apis: hosts.map((frontend_host) => ({ frontend_host }) as ApiBackend) });
const config = { public_url: 'https://api.weather.example', contact_url: null, contact_email: null, mailer: { from: 'Keys <keys@mail.example>' } } as Parameters<typeof knownDomains>[0];

describe('isKnownDomain', () => {
  const known = knownDomains(config, published('data.partner.example:8080', 'ours.cloudfront.net', '*.wild.example', '*', '127.0.0.1'));

  it.each([
    ['a known host', 'api.weather.example'],
    ['a parent domain of one', 'weather.example'],
    ['a subdomain of one', 'www.data.partner.example'],
    ['the domain of mailer.from', 'mail.example'],
    ['a frontend host without its port', 'data.partner.example'],
    ['the parent of a wildcard frontend host', 'wild.example'],
    ['a host under a wildcard frontend host', 'any.wild.example'],
    ['a known address literal', '127.0.0.1'],
    ['any case, with a trailing dot', 'API.Weather.Example.'],
  ])('takes %s', (_name, domain) => expect(isKnownDomain(known, domain)).toBe(true));

  it.each([
    ['an unknown domain', 'evil.example'],
    ['a sibling of a known host (without a public suffix list, not told from one under a shared suffix)', 'www.weather.example'],
    ['a name that only holds a known one', 'api.weather.example.evil'],
    ['a sibling under a shared suffix', 'theirs.cloudfront.net'],
    ['a single label above a known host', 'example'],
    ['a part of an address literal', '0.0.1'],
    ['a domain that only ends like a known one', 'notweather.example'],
    ['nothing', null],
  ])('refuses %s', (_name, domain) => expect(isKnownDomain(known, domain)).toBe(false));
});

describe('the option values', () => {
  const known = knownDomains(config, published('data.partner.example'));

  it('takes an address, an http(s) or mailto contact URL at a known domain, and an API URL on an API host', () => {
    expect(knownEmailAddress(known, ' test@weather.example ')).toBe('test@weather.example');
    expect(knownContactUrl(known, 'https://weather.example/contact-us')).toBe('https://weather.example/contact-us');
    expect(knownContactUrl(known, 'mailto:help@weather.example')).toBe('mailto:help@weather.example');
    expect(knownApiUrl(known, 'https://data.partner.example/x.json?api_key={{api_key}}')).toBe('https://data.partner.example/x.json?api_key={{api_key}}');
  });

  it('refuses the rest', () => {
    expect(knownEmailAddress(known, 'test@evil.example')).toBeNull();
    expect(knownEmailAddress(known, 'Evil <test@weather.example>')).toBeNull();
    expect(knownEmailAddress(known, ['test@weather.example'])).toBeNull();
    expect(knownContactUrl(known, 'javascript://weather.example/%0aalert(1)')).toBeNull();
    expect(knownContactUrl(known, 'mailto:help@evil.example')).toBeNull();
    expect(knownContactUrl(known, 'mailto:%zz')).toBeNull();
    // An API URL must be on a host an API is served on: a parent domain is not one.
    expect(knownApiUrl(known, 'https://weather.example/x.json')).toBeNull();
    expect(knownApiUrl(known, 'ftp://data.partner.example/x')).toBeNull();
  });
});
