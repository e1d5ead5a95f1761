import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderTemplate, type View } from '../../src/gateway/error-templates.js';
import { echoBackend, send, startProxyFixture, type ProxyFixture } from './support.js';

let fx: ProxyFixture;
let disabledKey: string;
beforeAll(async () => {
  fx = await startProxyFixture();
  disabledKey = (await fx.gw.createUser({ email: 'disabled@example.com', enabled: false })).apiKey;
});
afterAll(() => fx.close());

/** Publishes an echo backend under /<name>/ with these settings. */
async function backendAt(name: string, settings: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<void> {
  await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: `/${name}/`, backend_prefix: '/backend/' }], settings, ...extra }));
}

describe('error_data', () => {
  it('replaces a message, expanding the variables inside it, in the built-in bodies', async () => {
    await backendAt('message', { error_data: { api_key_missing: { message: 'Sign up first at {{signup_url}} ({{baseUrl}})' } } });
    const json = await send(fx.gw.url, '/message/a');
    expect(json.status).toBe(403);
    expect(JSON.parse(json.text)).toEqual({ error: { code: 'API_KEY_MISSING', message: `Sign up first at ${fx.gw.url}/signup/ (${fx.gw.url})` } });
    const xml = await send(fx.gw.url, '/message/a.xml');
    expect(xml.text).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><response><error><code>API_KEY_MISSING</code><message>Sign up first at ${fx.gw.url}/signup/ (${fx.gw.url})</message></error></response>`,
    );
  });

  it('sets the status from status_code, and keeps the built-in one when it is not a status', async () => {
    await backendAt('status', { error_data: { api_key_missing: { status_code: '401', code: 'KEY_NEEDED' }, api_key_invalid: { status_code: 'soon' } } });
    const missing = await send(fx.gw.url, '/status/a');
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.text).error.code).toBe('KEY_NEEDED');
    const invalid = await send(fx.gw.url, '/status/a', { headers: { 'X-Api-Key': 'nope' } });
    expect(invalid.status).toBe(403);
    expect(JSON.parse(invalid.text).error.code).toBe('API_KEY_INVALID');
  });

  it("takes each error's data as YAML (error_data_yaml_strings), as API Umbrella's admin API sends it", async () => {
    await backendAt('yaml', { error_data_yaml_strings: { api_key_missing: 'status_code: 401\nmessage: "Custom missing key message ({{shown}})"\nshown: true' } });
    const reply = await send(fx.gw.url, '/yaml/a');
    expect(reply.status).toBe(401);
    expect(JSON.parse(reply.text).error.message).toBe('Custom missing key message (true)');
  });

  it('takes a numeric status_code, as API Umbrella configs write it', async () => {
    await backendAt('numeric', { error_data: { api_key_missing: { status_code: 429 } } });
    expect((await send(fx.gw.url, '/numeric/a')).status).toBe(429);
  });

  it("keeps the backend's entries for a code a sub-setting only partly overrides", async () => {
    await backendAt(
      'partly',
      { error_data: { api_key_missing: { status_code: '401', message: 'backend message' } } },
      { sub_settings: [{ http_method: 'any', regex: '^/backend/special', settings: { error_data: { api_key_missing: { message: 'sub-setting message' } } } }] },
    );
    const reply = await send(fx.gw.url, '/partly/special');
    expect(reply.status).toBe(401);
    expect(JSON.parse(reply.text).error.message).toBe('sub-setting message');
  });

  it('uses common.contact_url in the default messages, itself rendered over base_url', async () => {
    await backendAt('common', { error_data: { common: { contact_url: '{{base_url}}/help/' } } });
    const reply = await send(fx.gw.url, '/common/a', { headers: { 'X-Api-Key': disabledKey } });
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.text).error.message).toBe(`The api_key supplied has been disabled. Contact us at ${fx.gw.url}/help/ for assistance`);
  });

  it("lets a sub-setting's error_data win over the backend's", async () => {
    await backendAt(
      'sub',
      { error_data: { api_key_missing: { message: 'backend message' } } },
      { sub_settings: [{ http_method: 'any', regex: '^/backend/special', settings: { error_data: { api_key_missing: { message: 'sub-setting message' } } } }] },
    );
    expect(JSON.parse((await send(fx.gw.url, '/sub/plain')).text).error.message).toBe('backend message');
    expect(JSON.parse((await send(fx.gw.url, '/sub/special')).text).error.message).toBe('sub-setting message');
  });
});

describe('error_templates', () => {
  it('renders a JSON template with every value JSON-quoted', async () => {
    await backendAt('json', {
      error_templates: { json: '\n  {"failure": {"code": {{code}}, "text": {{message}}, "contact": {{contactUrl}}, "status": {{status_code}}}}\n' },
      error_data: { api_key_missing: { message: 'Say "please" & <wait>' } },
    });
    const reply = await send(fx.gw.url, '/json/a');
    expect(reply.status).toBe(403);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.text.startsWith('{')).toBe(true);
    expect(JSON.parse(reply.text)).toEqual({
      failure: { code: 'API_KEY_MISSING', text: 'Say "please" & <wait>', contact: `${fx.gw.url}/contact/`, status: '403' },
    });
  });

  it('renders an XML template with markup escaped', async () => {
    await backendAt('xml', {
      error_templates: { xml: '  <?xml version="1.0"?><oops code="{{code}}">{{message}}</oops>  ' },
      error_data: { api_key_missing: { message: 'a <&> b' } },
    });
    const reply = await send(fx.gw.url, '/xml/a.xml');
    expect(reply.headers['content-type']).toBe('application/xml');
    expect(reply.text).toBe('<?xml version="1.0"?><oops code="API_KEY_MISSING">a &lt;&amp;&gt; b</oops>');
  });

  it('renders a CSV template with every value CSV-quoted', async () => {
    await backendAt('csv', {
      error_templates: { csv: 'code,message\n{{code}},{{message}}' },
      error_data: { api_key_missing: { message: 'say "hi", then go' } },
    });
    const reply = await send(fx.gw.url, '/csv/a?format=csv');
    expect(reply.headers['content-type']).toBe('text/csv');
    expect(reply.text).toBe('code,message\n"API_KEY_MISSING","say ""hi"", then go"');
  });

  it('keeps the built-in body for formats without a template', async () => {
    await backendAt('partial', { error_templates: { xml: '<x/>' } });
    const reply = await send(fx.gw.url, '/partial/a');
    expect(reply.text).toBe(JSON.stringify({ error: { code: 'API_KEY_MISSING', message: `No api_key was supplied. Get one at ${fx.gw.url}/signup/` } }));
  });

  // API Umbrella's test_invalid_templates.rb: what is not a known variable is sent as written.
  it('sends a tag naming no variable as written, beside the ones it knows', async () => {
    await backendAt('unknown', {
      error_data: { api_key_missing: { newvar: 'foo', message: 'new message' } },
      error_templates: { json: '{ "unknown": {{bogusvar}} }', html: '<p>{{ message }} {{bogusvar}} {{newvar}}</p>' },
    });
    const reply = await send(fx.gw.url, '/unknown/hello.json');
    expect(reply.status).toBe(403);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.text).toBe('{ "unknown": {{bogusvar}} }');
    expect((await send(fx.gw.url, '/unknown/hello.html')).text).toBe('<p>new message {{bogusvar}} foo</p>');
  });

  it('saves a template Mustache could not parse, and sends it as written', async () => {
    // Saved through the admin API, which answers 201 (backendAt throws otherwise).
    await backendAt('unparsable', { error_templates: { xml: '<invalid>{{oops}</invalid>', json: '{"error": {{#code}}{{code}}}' } });
    const xml = await send(fx.gw.url, '/unparsable/hello.xml');
    expect(xml.status).toBe(403);
    expect(xml.headers['content-type']).toBe('application/xml');
    expect(xml.text).toBe('<invalid>{{oops}</invalid>');
    // A section is no variable either; the tag after it is.
    expect((await send(fx.gw.url, '/unparsable/hello.json')).text).toBe('{"error": {{#code}}"API_KEY_MISSING"}');
  });

  it('leaves a tag naming no variable in an error_data value as written', async () => {
    await backendAt('data-unknown', { error_data: { api_key_missing: { message: 'Hi {{/x}} {{nobody}}, see {{signup_url}}' } } });
    const reply = await send(fx.gw.url, '/data-unknown/a');
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.text).error.message).toBe(`Hi {{/x}} {{nobody}}, see ${fx.gw.url}/signup/`);
  });

  it('does not read a Host header as a template', async () => {
    await backendAt('host', { error_templates: { html: '<p>{{message}}</p>' } });
    const reply = await send(fx.gw.url, '/host/a.html', { headers: { host: "x'&y" } });
    expect(reply.status).toBe(403);
    expect(reply.text).toBe('<p>No api_key was supplied. Get one at http://x&#39;&amp;y/signup/</p>');
    // Braces and markup are not host characters: such a Host never reaches a template.
    const braces = await send(fx.gw.url, '/host/a.html', { headers: { host: '{{#x}}<b>' } });
    expect(braces.status).toBe(400);
    expect(braces.text).not.toContain('<b>');
  });
});

describe('without error settings', () => {
  it('answers with the built-in bodies, and NOT_FOUND always does', async () => {
    await backendAt('plain', {});
    const reply = await send(fx.gw.url, '/plain/a.csv');
    expect(reply.status).toBe(403);
    expect(reply.text).toBe(`Error Code,Error Message\nAPI_KEY_MISSING,No api_key was supplied. Get one at ${fx.gw.url}/signup/\n`);
    const missing = await send(fx.gw.url, '/nowhere/a');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text).error.code).toBe('NOT_FOUND');
  });
});

describe('renderTemplate', () => {
  const view = Object.assign(Object.create(null) as View, { code: 'API_KEY_MISSING', message: 'has {{code}} in it' });
  const upper = (value: string) => value.toUpperCase();

  it('replaces each tag naming a variable, spaces around the name or not, escaped', () => {
    expect(renderTemplate('{{code}}/{{ code }}/{{  message}}', view, upper)).toBe('API_KEY_MISSING/API_KEY_MISSING/HAS {{CODE}} IN IT');
  });

  it('does not read a value it put in as a template', () => {
    expect(renderTemplate('{{message}}', view, (value) => value)).toBe('has {{code}} in it');
  });

  it('sends all else as written: unknown names, triple braces, sections, unclosed tags, inherited names', () => {
    for (const template of ['{{nobody}}', '{{{code}}}', '{{#code}}x{{/code}}', '{{code}', '{{code', '}}{{', '{{}}', '{{constructor}}', '{{toString}}']) {
      expect(renderTemplate(template, view, upper), template).toBe(template);
    }
    expect(renderTemplate('{{a}{{code}}', view, upper)).toBe('{{a}API_KEY_MISSING');
  });

  it('takes time linear in the template, however many braces it holds', () => {
    const braces = '{{'.repeat(200_000);
    const started = performance.now();
    expect(renderTemplate(`${braces}}${braces}`, view, upper)).toBe(`${braces}}${braces}`);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
