import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { firstQueryValue, normalizePath, parseQueryAppend, parseRequestTarget, toOriginForm, upstreamQuery } from '../../src/gateway/request-url.js';

describe('normalizePath', () => {
  it('leaves ordinary paths alone', () => {
    expect(normalizePath('/a/b.json')).toBe('/a/b.json');
    expect(normalizePath('/a/.well-known/x')).toBe('/a/.well-known/x');
    expect(normalizePath('/a/..b/c')).toBe('/a/..b/c');
  });

  it('resolves "." and ".." segments, plain or percent-encoded in any case', () => {
    expect(normalizePath('/api/../admin')).toBe('/admin');
    expect(normalizePath('/api/%2e%2e/admin')).toBe('/admin');
    expect(normalizePath('/api/%2E%2e/x')).toBe('/x');
    expect(normalizePath('/api/.%2e/x')).toBe('/x');
    expect(normalizePath('/a/./b/%2e/c')).toBe('/a/b/c');
    expect(normalizePath('/a/b/..')).toBe('/a/');
    expect(normalizePath('/a/b/.')).toBe('/a/b/');
  });

  it('decodes escapes of unreserved characters and of "/", merges runs of "/", and keeps other escapes in capitals', () => {
    expect(normalizePath('/files/%61dmin/x')).toBe('/files/admin/x');
    expect(normalizePath('/files/admin%2fsecret.txt')).toBe('/files/admin/secret.txt');
    expect(normalizePath('/files//admin///x//')).toBe('/files/admin/x/');
    expect(normalizePath('//files/x')).toBe('/files/x');
    expect(normalizePath('/a/%7Euser/%2D%5F')).toBe('/a/~user/-_');
    expect(normalizePath('/a/%2f%2e%2e/b')).toBe('/b');
    expect(normalizePath('/caf%c3%a9/a%20b/%3f%23%25%3b')).toBe('/caf%C3%A9/a%20b/%3F%23%25%3B');
    // Decoded once: "%2561" is the text "%61", never an "a".
    expect(normalizePath('/files/%2561dmin')).toBe('/files/%2561dmin');
    // A broken escape is left for the gateway's 400.
    expect(normalizePath('/api/%zz/%4')).toBe('/api/%zz/%4');
  });

  it('refuses paths that climb above the root', () => {
    expect(normalizePath('/..')).toBeNull();
    expect(normalizePath('/a/%2F..%2F..')).toBeNull();
    expect(normalizePath('/a/../../etc/passwd')).toBeNull();
    expect(normalizePath('/%2e%2e/x')).toBeNull();
  });
});

describe('parseRequestTarget', () => {
  it('splits path and query', () => {
    expect(parseRequestTarget('/a/b?x=1&y')).toEqual({ path: '/a/b', query: 'x=1&y' });
    expect(parseRequestTarget('/a')).toEqual({ path: '/a', query: '' });
  });

  it('refuses absolute-form and asterisk targets', () => {
    expect(parseRequestTarget('http://evil.example/a')).toBeNull();
    expect(parseRequestTarget('*')).toBeNull();
  });
});

describe('toOriginForm', () => {
  const made = (url: string, host = 'sent.example') => {
    const request = { url, headers: { host } } as unknown as IncomingMessage;
    toOriginForm(request);
    return { url: request.url, host: request.headers.host };
  };

  it("makes an absolute-form target origin-form, the target's host replacing the Host header", () => {
    expect(made('http://api.example/a/b?c=d')).toEqual({ url: '/a/b?c=d', host: 'api.example' });
    expect(made('https://[::1]:8443/x')).toEqual({ url: '/x', host: '[::1]:8443' });
    expect(made('http://api.example?c=d')).toEqual({ url: '/?c=d', host: 'api.example' });
    expect(made('http://api.example')).toEqual({ url: '/', host: 'api.example' });
  });

  it('leaves origin-form and every other target as they are', () => {
    for (const url of ['/a?b', '*', 'api.example:443', 'http://user@api.example/a', 'http:///a', 'ftp://api.example/a', 'http://api.example#f']) {
      expect(made(url), url).toEqual({ url, host: 'sent.example' });
    }
  });
});

describe('firstQueryValue', () => {
  it('returns the first non-empty value, decoded, and ignores other names', () => {
    expect(firstQueryValue('foo_api_key=1&api_key=&api_key=abc%20d&api_key=later', 'api_key')).toBe('abc d');
    expect(firstQueryValue('format[]=xml&format=csv', 'format')).toBe('csv');
    expect(firstQueryValue('api_key', 'api_key')).toBeNull();
    expect(firstQueryValue('', 'api_key')).toBeNull();
  });

  it('keeps a value with broken escapes as sent', () => {
    expect(firstQueryValue('api_key=%zz', 'api_key')).toBe('%zz');
  });
});

describe('upstreamQuery', () => {
  it('removes every api_key parameter and keeps the rest in order', () => {
    expect(upstreamQuery('api_key=1&ccc=foo&api_key=&aaa=bar&api_key&b=test&api_key=x', null)).toBe('ccc=foo&aaa=bar&b=test');
    expect(upstreamQuery('search=api_key&foo_api_key=bar&api_key_foo=bar&x=api_key%3D1', null)).toBe(
      'search=api_key&foo_api_key=bar&api_key_foo=bar&x=api_key%3D1',
    );
    expect(upstreamQuery('api_key=only', null)).toBe('');
  });

  it('replaces client parameters named in append_query_string and appends it last', () => {
    const append = parseQueryAppend('b=2&c=3');
    expect(upstreamQuery('a=1&b=9&d=4&c=8', append)).toBe('a=1&d=4&b=2&c=3');
    expect(upstreamQuery('', append)).toBe('b=2&c=3');
    expect(parseQueryAppend('')).toBeNull();
    expect(parseQueryAppend('?x=1')?.text).toBe('x=1');
  });
});
