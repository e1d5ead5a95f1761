// A backend's URL rewrites, through the proxy to a real echo upstream, case
// by case as API Umbrella's request_rewriting tests check them: route
// patterns with path and query captures, regex replacements, the order of
// rules and their HTTP methods.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoBackend, rewriteStoredDocuments, send, startProxyFixture, type ProxyFixture } from './support.js';

const rule = (frontend_matcher: string, backend_replacement: string, matcher_type = 'route', http_method = 'any') => ({
  matcher_type,
  http_method,
  frontend_matcher,
  backend_replacement,
});

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture();
  await fx.gw.publishBackend(
    echoBackend(fx.echo, {
      url_matches: [
        { frontend_prefix: '/rw/info/prefix/', backend_prefix: '/info/replacement/' },
        { frontend_prefix: '/rw/', backend_prefix: '/' },
      ],
      rewrites: [
        rule('/info/*wildcard/:category/:id.:ext?foo=:foo&bar=:bar', '/info/?wildcard={{wildcard}}&category={{category}}&id={{id}}&format={{ext}}&foo={{foo}}&bar={{bar}}'),
        rule('/info/no-query-string-route', '/info/matched-no-query-string-route'),
        rule('/info/named-path/:dir/:id', '/info/matched-named-path?dir={{dir}}&id={{id}}'),
        rule('/info/named-path-ext.:ext', '/info/matched-named-path-ext?extension={{ext}}'),
        rule('/info/named-arg?foo=:foo', '/info/matched-named-arg?bar={{foo}}'),
        rule('/info/named-args?foo=:foo&bar=:bar', '/info/matched-named-args?bar={{bar}}&foo={{foo}}'),
        rule('/info/:path/*wildcard/encoding-test?foo=:foo&bar=:bar&add_path=:add_path', '/info/{{path}}/{{wildcard}}/{{add_path}}/matched-encoding-test?bar={{bar}}&foo={{foo}}&path={{path}}&wildcard={{wildcard}}&add_path={{add_path}}'),
        rule('/info/args?foo=1&bar=2', '/info/matched-args'),
        rule('/info/*before/wildcard/*after', '/info/{{after}}/matched-wildcard/{{before}}?before={{before}}&after={{after}}'),
        rule('/info/with-trailing-slash/?query=foo', '/info/matched-with-trailing-slash-query'),
        rule('/info/with-trailing-slash/', '/info/matched-with-trailing-slash'),
        rule('/info/without-trailing-slash', '/info/matched-without-trailing-slash'),
        rule('/info/replacement/', '/info/second-replacement/'),
        rule('^/info/\\?foo=bar$', '/info/?foo=moo', 'regex'),
        rule('state=([A-Z]+)', 'region=US-$1', 'regex'),
        rule('/info/route/*after?region=:region', '/info/after-route/{{after}}?region={{region}}'),
        rule('post_only=before', 'post_only=after', 'regex', 'POST'),
        rule('/info/space/:name', '/info/with space/{{name}}#not-a-fragment'),
        rule('dollars', '$$1 ${1} $0 $&', 'regex'),
      ],
    }),
  );
  await fx.gw.publishBackend(
    echoBackend(fx.echo, {
      url_matches: [{ frontend_prefix: '/appending/', backend_prefix: '/' }],
      settings: { append_query_string: 'appended=1' },
      rewrites: [rule('appended=1', 'appended=rewritten', 'regex')],
    }),
  );
});
afterAll(() => fx.close());

const get = (path: string, init: { method?: string } = {}) => send(fx.gw.url, `/rw${path}${path.includes('?') ? '&' : '?'}api_key=${fx.apiKey}`, init);
const query = (text: string) => Object.fromEntries(new URLSearchParams(text));

describe('route rewrites', () => {
  it('captures path segments, wildcards, an extension and query parameters into the replacement', async () => {
    const reply = await get('/info/aaa/zzz/cat/10.json?bar=hello&foo=goodbye');
    expect(reply.status).toBe(200);
    expect(query(reply.echoed.query)).toEqual({ wildcard: 'aaa/zzz', category: 'cat', id: '10', format: 'json', foo: 'goodbye', bar: 'hello' });
  });

  it('replaces the whole target: a replacement without a query drops the request query', async () => {
    const reply = await get('/info/no-query-string-route?bar=hello&foo=goodbye');
    expect(reply.echoed.url).toBe('/info/matched-no-query-string-route');
  });

  it('matches query parameters that must equal a value in any order', async () => {
    expect((await get('/info/args?foo=1&bar=2')).echoed.url).toBe('/info/matched-args');
    expect((await get('/info/args?bar=2&foo=1')).echoed.url).toBe('/info/matched-args');
  });

  it.each([
    ['an extra parameter', '/info/args?foo=1&bar=2&aaa=3', '/info/args?foo=1&bar=2&aaa=3'],
    ['a repeated parameter', '/info/args?foo=1&bar=2&bar=3', '/info/args?foo=1&bar=2&bar=3'],
    ['a missing parameter', '/info/args?foo=1', '/info/args?foo=1'],
    ['a missing captured parameter', '/info/named-args?foo=1', '/info/named-args?foo=1'],
    ['an extra parameter beside captures', '/info/named-args?foo=1&bar=2&aaa=3', '/info/named-args?foo=1&bar=2&aaa=3'],
    ['an extra path segment', '/info/named-path/foo/bar/10', '/info/named-path/foo/bar/10'],
  ])('leaves the target alone for %s', async (_case, path, upstream) => {
    expect((await get(path)).echoed.url).toBe(upstream);
  });

  it('captures a query parameter, a repeated one joined by commas', async () => {
    expect((await get('/info/named-arg?foo=hello')).echoed.url).toBe('/info/matched-named-arg?bar=hello');
    expect((await get('/info/named-arg?foo=hello3&foo=hello1&foo=hello2')).echoed.url).toBe('/info/matched-named-arg?bar=hello3,hello1,hello2');
  });

  it('captures query parameters in any order', async () => {
    expect((await get('/info/named-args?foo=1&bar=2')).echoed.url).toBe('/info/matched-named-args?bar=2&foo=1');
    expect((await get('/info/named-args?bar=2&foo=1')).echoed.url).toBe('/info/matched-named-args?bar=2&foo=1');
  });

  it('keeps path captures as sent and escapes every capture that goes into the query', async () => {
    const reply = await get('/info/a/b/c/d/encoding-test?foo=hello+space+test&bar=1%262*3%254%2F5&add_path=x%2Fy%2Fz');
    expect(reply.echoed.url).toBe('/info/a/b/c/d/x/y/z/matched-encoding-test?bar=1%262*3%254%2F5&foo=hello%20space%20test&path=a&wildcard=b%2Fc%2Fd&add_path=x%2Fy%2Fz');
    expect(query(reply.echoed.query)).toEqual({ foo: 'hello space test', bar: '1&2*3%4/5', path: 'a', wildcard: 'b/c/d', add_path: 'x/y/z' });
  });

  it('captures named path segments and a file extension', async () => {
    expect((await get('/info/named-path/foo/10')).echoed.url).toBe('/info/matched-named-path?dir=foo&id=10');
    expect((await get('/info/named-path-ext.json')).echoed.url).toBe('/info/matched-named-path-ext?extension=json');
  });

  it('captures two wildcards', async () => {
    expect((await get('/info/a/b/c/wildcard/d/e/')).echoed.url).toBe('/info/d/e/matched-wildcard/a/b/c?before=a%2Fb%2Fc&after=d%2Fe');
  });

  it.each([
    ['/info/with-trailing-slash/', '/info/matched-with-trailing-slash'],
    ['/info/with-trailing-slash', '/info/matched-with-trailing-slash'],
    ['/info/with-trailing-slash/?query=foo', '/info/matched-with-trailing-slash-query'],
    ['/info/with-trailing-slash?query=foo', '/info/matched-with-trailing-slash-query'],
    ['/info/without-trailing-slash/', '/info/matched-without-trailing-slash'],
    ['/info/without-trailing-slash', '/info/matched-without-trailing-slash'],
  ])('ignores a trailing slash: %s', async (path, upstream) => {
    expect((await get(path)).echoed.path).toBe(upstream);
  });

  it('percent-encodes what a request line cannot carry', async () => {
    expect((await get('/info/space/caf%C3%A9')).echoed.url).toBe('/info/with%20space/caf%C3%A9%23not-a-fragment');
  });
});

describe('regex rewrites', () => {
  it('replaces only what matched', async () => {
    expect(query((await get('/info/?state=CO')).echoed.query)).toEqual({ region: 'US-CO' });
  });

  it('replaces every match, in the path and the query', async () => {
    const reply = await get('/info/state=CO/?state=CO');
    expect(reply.echoed.path).toBe('/info/region=US-CO/');
    expect(query(reply.echoed.query)).toEqual({ region: 'US-CO' });
  });

  it('matches case-insensitively', async () => {
    expect(query((await get('/info/?STATE=CO')).echoed.query)).toEqual({ region: 'US-CO' });
  });

  it("reads nginx's replacement syntax, not JavaScript's", async () => {
    expect((await get('/info/dollars')).echoed.path).toBe('/info/$1%20%20dollars%20$&');
  });
});

describe('order and methods', () => {
  it('sees the target after api_key is removed', async () => {
    expect((await get('/info/?foo=bar')).echoed.url).toBe('/info/?foo=moo');
  });

  it('sees the query after append_query_string', async () => {
    const reply = await send(fx.gw.url, `/appending/x?a=b&api_key=${fx.apiKey}`);
    expect(reply.echoed.url).toBe('/x?a=b&appended=rewritten');
  });

  it('sees the target after the URL prefix is replaced', async () => {
    expect((await get('/info/prefix/')).echoed.path).toBe('/info/second-replacement/');
  });

  it('chains rules in order', async () => {
    expect((await get('/info/route/hello?state=CO')).echoed.url).toBe('/info/after-route/hello?region=US-CO');
  });

  it('applies a rule only to its HTTP method', async () => {
    expect((await get('/info/?post_only=before')).echoed.url).toBe('/info/?post_only=before');
    expect((await get('/info/?post_only=before', { method: 'POST' })).echoed.url).toBe('/info/?post_only=after');
  });
});

describe('stored backends', () => {
  it('from before rewrites existed serve, compare and publish as backends without any', async () => {
    const id = await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/before-rewrites/', backend_prefix: '/' }] }));
    const strip = (document: string) => document.replaceAll(/,?"rewrites":\[\]/g, '');
    const draft = rewriteStoredDocuments(fx.gw, id, strip);
    expect(draft).toContain('"rewrites":[]');
    expect(strip(draft)).not.toContain('"rewrites"');

    expect((await fx.gw.adminApi('GET', '/config/pending_changes')).body.config.apis.modified).toEqual([]);
    expect((await fx.gw.adminApi('GET', `/apis/${id}`)).body.api.rewrites).toEqual([]);
    expect((await fx.gw.adminApi('PUT', `/apis/${id}`, { api: { name: 'Renamed' } })).status).toBe(204);
    expect((await fx.gw.adminApi('POST', '/config/publish', { config: { apis: { [id]: { publish: '1' } } } })).status).toBe(201);
    expect((await send(fx.gw.url, `/before-rewrites/x?api_key=${fx.apiKey}`)).echoed.url).toBe('/x');
  });

  it('leave out a stored rule that does not compile, and apply the others', async () => {
    const id = await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/unchecked-rewrites/', backend_prefix: '/' }] }));
    const db = fx.gw.context.db;
    const draft = JSON.parse(db.prepare('SELECT document FROM api_backends WHERE id = ?').pluck().get(id) as string);
    draft.rewrites = [rule('(', '/never', 'regex'), rule('/x', '/y')];
    db.prepare('UPDATE api_backends SET document = ? WHERE id = ?').run(JSON.stringify(draft), id);
    expect((await fx.gw.adminApi('POST', '/config/publish', { config: { apis: { [id]: { publish: '1' } } } })).status).toBe(201);
    expect((await send(fx.gw.url, `/unchecked-rewrites/x?api_key=${fx.apiKey}`)).echoed.url).toBe('/y');
  });
});
