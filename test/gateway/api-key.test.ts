import { describe, expect, it } from 'vitest';
import { basicAuthUsername, extractApiKey } from '../../src/gateway/api-key.js';

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

describe('extractApiKey', () => {
  it('takes the X-Api-Key header first, then api_key, then the basic-auth username', () => {
    const all = { 'x-api-key': 'header-key', authorization: basic('basic-key:') };
    expect(extractApiKey(all, 'api_key=query-key')).toEqual({ key: 'header-key', source: 'header' });
    expect(extractApiKey({ authorization: basic('basic-key:') }, 'api_key=query-key')).toEqual({ key: 'query-key', source: 'query' });
    expect(extractApiKey({ authorization: basic('basic-key:') }, '')).toEqual({ key: 'basic-key', source: 'basic_auth' });
  });

  it('skips empty sources', () => {
    expect(extractApiKey({ 'x-api-key': '' }, 'api_key=&x=1')).toBeNull();
    expect(extractApiKey({ 'x-api-key': '', authorization: basic('k1234:') }, 'api_key=')).toEqual({ key: 'k1234', source: 'basic_auth' });
  });
});

describe('basicAuthUsername', () => {
  it('accepts any case of the scheme, extra spaces and a password', () => {
    expect(basicAuthUsername(`basIC ${Buffer.from('key:secret').toString('base64')}`)).toBe('key');
    expect(basicAuthUsername(`  Basic    ${Buffer.from('key:').toString('base64')}  `)).toBe('key');
    expect(basicAuthUsername(basic('key'))).toBe('key');
  });

  it('treats a key only in the password, other schemes and broken values as no key', () => {
    expect(basicAuthUsername(basic(':key'))).toBeNull();
    expect(basicAuthUsername('Digest username="key"')).toBeNull();
    expect(basicAuthUsername('Basic')).toBeNull();
    expect(basicAuthUsername('Basic !!notbase64!!')).toBeNull();
    expect(basicAuthUsername('Basic abcde')).toBeNull();
    expect(basicAuthUsername(`Basic ${Buffer.from([0xff, 0xfe, 0x00, 0x3a]).toString('base64')}`)).toBeNull();
    expect(basicAuthUsername(`Basic ${Buffer.from('a\u0001b:').toString('base64')}`)).toBeNull();
    expect(basicAuthUsername('foo bar')).toBeNull();
  });
});
