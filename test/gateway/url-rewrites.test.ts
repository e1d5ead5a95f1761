// The rewrite rules on their own: what the proxy tests cannot reach easily.
import { describe, expect, it } from 'vitest';
import type { UrlRewrite } from '../../src/api-backends/model.js';
import { rewriteError, UrlRewrites } from '../../src/gateway/url-rewrites.js';

const rules = (...list: [string, string, UrlRewrite['matcher_type']?, UrlRewrite['http_method']?][]) =>
  UrlRewrites.compile(list.map(([frontend_matcher, backend_replacement, matcher_type = 'route', http_method = 'any']) => ({ matcher_type, http_method, frontend_matcher, backend_replacement })))!;

describe('UrlRewrites', () => {
  it('is null for a backend without rules, or with none that compiles', () => {
    expect(UrlRewrites.compile([])).toBeNull();
    expect(UrlRewrites.compile([{ matcher_type: 'regex', http_method: 'any', frontend_matcher: '(', backend_replacement: '/' }])).toBeNull();
  });

  it('keeps a result a request line can carry: a leading slash, no raw space, # or non-ASCII', () => {
    expect(rules(['^/', '', 'regex']).apply('GET', '/a/b')).toBe('/a/b');
    expect(rules(['^/a', 'b c', 'regex']).apply('GET', '/a')).toBe('/b%20c');
    expect(rules(['/x/:name', '/y/{{name}}?q={{name}}']).apply('GET', '/x/%F0%9F%8C%82')).toBe('/y/%F0%9F%8C%82?q=%25F0%259F%258C%2582');
    expect(rules(['a', '\ud800#', 'regex']).apply('GET', '/a')).toBe('/%EF%BF%BD%23');
  });

  it('returns the same string when nothing matched', () => {
    const target = '/untouched?x=1';
    expect(rules(['/other', '/y'], ['zzz', 'y', 'regex']).apply('GET', target)).toBe(target);
  });

  it('renders unknown and prototype names as nothing', () => {
    expect(rules(['/x/:id', '/y/{{missing}}{{constructor}}{{id}}']).apply('GET', '/x/1')).toBe('/y/1');
  });

  it('compares methods as stored: "any" or upper case', () => {
    const post = rules(['/a', '/b', 'route', 'POST']);
    expect(post.apply('POST', '/a')).toBe('/b');
    expect(post.apply('GET', '/a')).toBe('/a');
  });
});

describe('rewriteError', () => {
  it('names what does not compile', () => {
    expect(rewriteError({ matcher_type: 'route', http_method: 'any', frontend_matcher: '/:1a', backend_replacement: '/' })).toMatch(/group/i);
    expect(rewriteError({ matcher_type: 'route', http_method: 'any', frontend_matcher: '/a', backend_replacement: '{{#a}}' })).toMatch(/unclosed/i);
    expect(rewriteError({ matcher_type: 'regex', http_method: 'any', frontend_matcher: 'a', backend_replacement: '{{#a}}' })).toBeNull();
  });
});
