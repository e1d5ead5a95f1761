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

  it('renders unknown and prototype names as nothing, in the path and in the query', () => {
    expect(rules(['/x/:id', '/y/{{missing}}{{constructor}}{{id}}?x={{constructor}}{{toString}}{{id}}']).apply('GET', '/x/1')).toBe('/y/1?x=1');
  });

  it('never throws on a template that cannot render a value: the view itself, or a getter name', () => {
    expect(rules(['/x/:id', '/y/{{.}}']).apply('GET', '/x/1')).toBe('/y/');
    expect(rules(['/x/:id', '/y?q={{.}}{{__defineGetter__}}{{id}}']).apply('GET', '/x/1')).toBe('/y?q=1');
    // Unescaped, Mustache itself fails to render the view: the rule leaves the target as it was, as API Umbrella's does.
    expect(rules(['/x/:id', '/y/{{{.}}}'], ['/x/1', '/z']).apply('GET', '/x/1')).toBe('/z');
  });

  it('renders sections through Mustache, escaping captures in the query as plain tags are', () => {
    const sections = rules(['/x/:id?q=:q', '/y{{#id}}/{{id}}{{/id}}{{^missing}}/none{{/missing}}?q={{#q}}{{q}}{{/q}}']);
    expect(sections.apply('GET', '/x/1?q=a%20b%2Cc')).toBe('/y/1/none?q=a%20b,c');
    expect(rules(['/x/:id?q=:q', '/y/{{id}}?q={{q}}']).apply('GET', '/x/1?q=a%20b%2Cc')).toBe('/y/1?q=a%20b,c');
  });

  it('escapes a lone surrogate a replacement left in a capture instead of failing the request', () => {
    expect(rules(['abc', '\ud800', 'regex'], ['/p/:id', '/out?q={{id}}']).apply('GET', '/p/abc')).toBe('/out?q=%EF%BF%BD');
  });

  it('sends no "?" when the replacement\'s query renders empty', () => {
    expect(rules(['/x/:id', '/y/{{id}}?{{missing}}']).apply('GET', '/x/1')).toBe('/y/1');
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
