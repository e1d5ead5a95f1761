import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backendConfig } from '../helpers/scoped-backends.js';
import { AdminClient, createAdmin, expectTwoPagesPager, startAdminApp, startSignedIn, textOf, type AdminApp } from './helpers/admin-client.js';

let running: AdminApp;
let client: AdminClient;

beforeEach(async () => {
  ({ running, client } = await startSignedIn());
});
afterEach(() => running.close());

const BASIC = {
  name: 'Weather',
  backend_protocol: 'http',
  balance_algorithm: 'least_conn',
  'servers[0][host]': '10.0.0.5',
  'servers[0][port]': '8080',
  frontend_host: 'api.example.com',
  backend_host: 'weather.internal',
  'url_matches[0][frontend_prefix]': '/weather/',
  'url_matches[0][backend_prefix]': '/v2/',
};

async function addBackend(fields: Record<string, string> = BASIC) {
  await client.get('/admin/apis/new');
  return client.post('/admin/apis', fields);
}

describe('API Backends', () => {
  it('starts with an empty state that says what to do next', async () => {
    const page = await client.get('/admin/apis');
    const text = textOf(page.body);
    expect(text).toContain('No API backends yet');
    expect(text).toContain('Add API Backend');
  });

  it('shows the form with API Umbrella\'s sections and labels', async () => {
    const text = textOf((await client.get('/admin/apis/new')).body);
    for (const label of [
      'Name', 'Backend', 'Backend Protocol', 'Host', 'Port', 'Balance Algorithm', 'Frontend Host', 'Backend Host', 'Matching URL Prefixes',
      'Frontend Prefix', 'Backend Prefix', 'Global Request Settings', 'API Key Checks', 'Required Roles', 'Append Query String Parameters',
      'Set Request Headers', 'HTTP Basic Authentication', 'Rate Limit', 'Sub-URL Request Settings', 'URL Rewrites', 'Save',
    ]) {
      expect(text).toContain(label);
    }
  });

  it("starts a new backend's Frontend Host at the host the admin came by, without its port, as API Umbrella's form does", async () => {
    const frontendHost = (body: string) => /<input[^>]*name="frontend_host"[^>]*value="([^"]*)"/.exec(body)?.[1];
    expect(frontendHost((await client.get('/admin/apis/new', { host: 'API.Example.com:8080' })).body)).toBe('api.example.com');
    expect(frontendHost((await client.get('/admin/apis/new', { host: '[::1]:8080' })).body)).toBe('');
  });

  it("starts a new backend's Frontend Host empty on an admin host (admin.hosts), where no backend is served", async () => {
    const onAdminHost = await startAdminApp({ admin: { hosts: ['localhost'] } });
    try {
      await createAdmin(onAdminHost.context);
      const admin = new AdminClient(onAdminHost.app);
      await admin.signIn();
      const page = await admin.get('/admin/apis/new');
      expect(page.statusCode).toBe(200);
      expect(/<input[^>]*name="frontend_host"[^>]*value="([^"]*)"/.exec(page.body)?.[1]).toBe('');
    } finally {
      await onAdminHost.close();
    }
  });

  it('saves every section of the form as the API shape, as a draft', async () => {
    const response = await addBackend({
      ...BASIC,
      'servers[1][host]': '10.0.0.6',
      'servers[1][port]': '8081',
      'servers[2][host]': '',
      'servers[2][port]': '',
      'settings[disable_api_key]': 'false',
      'settings[pass_api_key_header]': 'true',
      'settings[required_roles]': 'read, beta',
      'settings[append_query_string]': 'format=json',
      'settings[headers]': 'X-One: 1\nX-Two: two words',
      'settings[default_response_headers]': 'Cache-Control: max-age=60',
      'settings[override_response_headers]': 'Access-Control-Allow-Origin: *\nX-Frame-Options: DENY',
      'settings[http_basic_auth]': 'user:secret',
      'settings[rate_limit_mode]': 'custom',
      'settings[rate_limits][0][duration_value]': '1',
      'settings[rate_limits][0][duration_unit]': 'minutes',
      'settings[rate_limits][0][limit_by]': 'ip',
      'settings[rate_limits][0][limit]': '60',
      'settings[rate_limits][0][response_headers]': '1',
      'sub_settings[k3x][http_method]': 'POST',
      'sub_settings[k3x][regex]': '^/upload',
      'sub_settings[k3x][settings][required_roles]': 'writer',
      'sub_settings[k3x][settings][required_roles_override]': '1',
      'sub_settings[k3x][settings][rate_limit_mode]': 'unlimited',
      'rewrites[0][matcher_type]': 'route',
      'rewrites[0][http_method]': 'GET',
      'rewrites[0][frontend_matcher]': ' /city/:name ',
      'rewrites[0][backend_replacement]': '/forecast?city={{name}}',
      'rewrites[1][matcher_type]': 'regex',
      'rewrites[1][http_method]': 'any',
      'rewrites[1][frontend_matcher]': '',
      'rewrites[1][backend_replacement]': '',
    });
    expect(response.statusCode).toBe(303);
    expect(textOf((await client.follow(response)).body)).toContain('Added the API backend "Weather". Publish the change to make it live.');
    const [saved] = running.context.backends.list();
    expect(saved).toMatchObject({
      name: 'Weather',
      frontend_host: 'api.example.com',
      backend_host: 'weather.internal',
      servers: [{ host: '10.0.0.5', port: 8080 }, { host: '10.0.0.6', port: 8081 }],
      url_matches: [{ frontend_prefix: '/weather/', backend_prefix: '/v2/' }],
      settings: {
        disable_api_key: false,
        pass_api_key_header: true,
        pass_api_key_query_param: null,
        required_roles: ['read', 'beta'],
        append_query_string: 'format=json',
        headers: [{ key: 'X-One', value: '1' }, { key: 'X-Two', value: 'two words' }],
        default_response_headers: [{ key: 'Cache-Control', value: 'max-age=60' }],
        override_response_headers: [{ key: 'Access-Control-Allow-Origin', value: '*' }, { key: 'X-Frame-Options', value: 'DENY' }],
        http_basic_auth: 'user:secret',
        rate_limit_mode: 'custom',
        rate_limits: [{ duration: 60_000, limit_by: 'ip', limit: 60, response_headers: true }],
      },
      sub_settings: [{ http_method: 'POST', regex: '^/upload', settings: { required_roles: ['writer'], required_roles_override: true, rate_limit_mode: 'unlimited' } }],
      rewrites: [{ matcher_type: 'route', http_method: 'GET', frontend_matcher: '/city/:name', backend_replacement: '/forecast?city={{name}}' }],
    });
    expect(running.context.publisher.current.apis).toHaveLength(0);
  });

  it('shows validation errors next to their fields and keeps what was typed', async () => {
    const response = await addBackend({ ...BASIC, 'url_matches[0][frontend_prefix]': 'weather/', 'servers[0][port]': 'eighty', 'settings[headers]': 'Bad Header: x' });
    expect(response.statusCode).toBe(422);
    const text = textOf(response.body);
    expect(text).toContain('URL Prefix 1 › Frontend Prefix must start with "/"');
    expect(text).toContain('Server 1 › Port must be a port number from 1 to 65535');
    expect(text).toContain('must be a valid header name');
    expect(response.body).toMatch(/id="f-url_matches-0-frontend_prefix"[^>]*value="weather\/"[^>]*aria-invalid="true"/);
    expect(response.body).toContain('value="eighty"');
    expect(response.body).toContain('Bad Header: x</textarea>');
    expect(running.context.backends.list()).toHaveLength(0);
  });

  it('shows bad error data next to its field, with Advanced settings opened; any error template is one (sent as written where it names no variable)', async () => {
    const response = await addBackend({ ...BASIC, 'settings[error_templates][json]': '{{#unclosed}}', 'settings[error_data]': '{"api_key_missing": ' });
    expect(response.statusCode).toBe(422);
    expect(textOf(response.body)).toContain('Global Request Settings › Error Data must be a mapping of error names to their data, in YAML or JSON');
    expect(response.body).not.toMatch(/<textarea id="f-settings-error_templates-json"[^>]*aria-invalid="true"/);
    expect(response.body).toContain('{{#unclosed}}</textarea>');
    expect(response.body).toMatch(/<textarea id="f-settings-error_data"[^>]*aria-invalid="true"/);
    expect(response.body).toContain('<details class="settings-details" open>');
    // A form without problems there keeps the section folded.
    expect((await client.get('/admin/apis/new')).body).toContain('<details class="settings-details">');
  });

  it('saves nothing while error data is wrong, on adding or editing, in the settings or a sub-URL setting, and shows the other problems with it', async () => {
    const wrongData = { 'settings[error_data]': '- api_key_missing\n- over_rate_limit' };
    const added = await addBackend({ ...BASIC, ...wrongData, 'servers[0][port]': 'eighty' });
    expect(added.statusCode).toBe(422);
    expect(textOf(added.body)).toContain('Global Request Settings › Error Data must be a mapping of error names to their data');
    expect(added.body).toMatch(/id="f-servers-0-port"[^>]*aria-invalid="true"/);
    expect(running.context.backends.list()).toHaveLength(0);
    expect((await addBackend({ ...BASIC, 'sub_settings[0][http_method]': 'any', 'sub_settings[0][regex]': '^/x', 'sub_settings[0][settings][error_data]': '[1]' })).statusCode).toBe(422);
    expect(running.context.backends.list()).toHaveLength(0);

    await addBackend({ ...BASIC, 'settings[error_data]': '{"api_key_missing": {"message": "kept"}}' });
    const [api] = running.context.backends.list();
    const edited = await client.post(`/admin/apis/${api!.id}`, { ...BASIC, name: 'Renamed', ...wrongData });
    expect(edited.statusCode).toBe(422);
    const [stored] = running.context.backends.list();
    expect([stored!.name, stored!.settings.error_data]).toEqual(['Weather', { api_key_missing: { message: 'kept' } }]);
  });

  it('lets one rate limit of a settings block show in the headers', async () => {
    const limits = (base: string) => ({
      [`${base}[rate_limit_mode]`]: 'custom',
      ...Object.fromEntries(
        ['seconds', 'hours'].flatMap((unit, index) => [
          [`${base}[rate_limits][${index}][duration_value]`, '1'],
          [`${base}[rate_limits][${index}][duration_unit]`, unit],
          [`${base}[rate_limits][${index}][limit_by]`, 'ip'],
          [`${base}[rate_limits][${index}][limit]`, '10'],
          [`${base}[rate_limits][${index}][response_headers]`, '1'],
        ]),
      ),
    });
    const refused = await addBackend({ ...BASIC, 'sub_settings[0][http_method]': 'any', 'sub_settings[0][regex]': '^/x', ...limits('sub_settings[0][settings]') });
    expect(refused.statusCode).toBe(422);
    expect(textOf(refused.body)).toContain('only one rate limit can show in the headers');
    expect((await addBackend({ ...BASIC, ...limits('settings') })).statusCode).toBe(422);
    expect(running.context.backends.list()).toHaveLength(0);
  });

  it("says what is wrong with a rate limit's duration in the form's units: too long, not whole, or a window counted twice", async () => {
    const row = (index: number, value: string, unit: string) => ({
      [`settings[rate_limits][${index}][duration_value]`]: value,
      [`settings[rate_limits][${index}][duration_unit]`]: unit,
      [`settings[rate_limits][${index}][limit_by]`]: 'ip',
      [`settings[rate_limits][${index}][limit]`]: '10',
    });
    const refused = await addBackend({ ...BASIC, 'settings[rate_limit_mode]': 'custom', ...row(0, '367', 'days'), ...row(1, '1.5', 'hours'), ...row(2, '1', 'minutes'), ...row(3, '60', 'seconds') });
    expect(refused.statusCode).toBe(422);
    const text = textOf(refused.body);
    expect(text).toContain('must be at most 366 days');
    expect(text).toContain('must be a positive whole number');
    expect(text).toContain('has already been taken');
    expect(running.context.backends.list()).toHaveLength(0);
  });

  it('refuses a rate limit row without a known unit (a tampered or stale form) rather than reading it as milliseconds', async () => {
    const row = { 'settings[rate_limit_mode]': 'custom', 'settings[rate_limits][0][duration_value]': '1', 'settings[rate_limits][0][limit_by]': 'ip', 'settings[rate_limits][0][limit]': '100' };
    const refused = await addBackend({ ...BASIC, ...row, 'settings[rate_limits][0][duration_unit]': 'weeks' });
    expect(refused.statusCode).toBe(422);
    expect(textOf(refused.body)).toContain('Global Request Settings › Rate Limit 1 › Duration Unit must be one of the units listed');
    expect(running.context.backends.list()).toHaveLength(0);
  });

  it('shows a URL rewrite that cannot be applied next to its field', async () => {
    const response = await addBackend({ ...BASIC, 'rewrites[0][matcher_type]': 'regex', 'rewrites[0][http_method]': 'any', 'rewrites[0][frontend_matcher]': '([a-z', 'rewrites[0][backend_replacement]': '/x' });
    expect(response.statusCode).toBe(422);
    expect(textOf(response.body)).toContain('URL Rewrite 1 › Frontend Matcher is not a valid regular expression');
    expect(response.body).toMatch(/id="f-rewrites-0-frontend_matcher"[^>]*value="\(\[a-z"[^>]*aria-invalid="true"/);
    expect(running.context.backends.list()).toHaveLength(0);
  });

  it('saves a backend on a host and prefix another one has, as API Umbrella does, and the list says which one gets the requests', async () => {
    await addBackend();
    const again = await addBackend({ ...BASIC, name: 'Other' });
    expect(again.statusCode).toBe(303);
    const list = textOf((await client.get('/admin/apis')).body);
    expect(list).toMatch(/Other api\.example\.com .*\/weather\/ → \/v2\/ Same host and prefix as “Weather”, listed before it, which gets these requests \(Position, on the edit page, changes the order\)\./);
    expect(list.match(/Same host and prefix/g)).toHaveLength(1);
  });

  it('shows "Must have at least one servers" beside the servers, though the API answers it under "base"', async () => {
    const response = await addBackend({ ...BASIC, 'servers[0][host]': '', 'servers[0][port]': '' });
    expect(response.statusCode).toBe(422);
    expect(response.body).toMatch(/<p class="field-error">Must have at least one servers<\/p>\s*<div class="rows" id="rows-servers">/);
  });

  it('adds and removes rows without JavaScript, saving nothing', async () => {
    await client.get('/admin/apis/new');
    const added = await client.post('/admin/apis', { ...BASIC, _add: 'servers' });
    expect(added.statusCode).toBe(200);
    expect(added.body).toContain('name="servers[1][host]"');
    expect(added.body).toContain('value="10.0.0.5"');
    const removed = await client.post('/admin/apis', { ...BASIC, 'url_matches[1][frontend_prefix]': '/b/', 'url_matches[1][backend_prefix]': '/', _remove: 'url_matches.0' });
    expect(removed.body).toContain('value="/b/"');
    expect(removed.body).not.toContain('value="/weather/"');
    // A blank row between two others: the one removed is the one whose button was pressed.
    const blankRemoved = await client.post('/admin/apis', {
      ...BASIC,
      'url_matches[1][frontend_prefix]': '',
      'url_matches[1][backend_prefix]': '',
      'url_matches[2][frontend_prefix]': '/c/',
      'url_matches[2][backend_prefix]': '/',
      _remove: 'url_matches.1',
    });
    expect(blankRemoved.body).toContain('value="/weather/"');
    expect(blankRemoved.body).toContain('value="/c/"');
    const rewrite = await client.post('/admin/apis', { ...BASIC, _add: 'rewrites' });
    expect(rewrite.body).toContain('name="rewrites[0][frontend_matcher]"');
    const nested = await client.post('/admin/apis', { ...BASIC, 'sub_settings[0][regex]': '^/x', _add: 'sub_settings.0.settings.rate_limits' });
    expect(nested.body).toContain('name="sub_settings[0][settings][rate_limits][0][limit]"');
    expect(running.context.backends.list()).toHaveLength(0);
  });

  it('moves a sub-URL setting or a URL rewrite up, unsaved, also past a row the page\'s script added (a key of letters)', async () => {
    const rewrite = (key: string, matcher: string) => ({
      [`rewrites[${key}][matcher_type]`]: 'regex',
      [`rewrites[${key}][http_method]`]: 'any',
      [`rewrites[${key}][frontend_matcher]`]: matcher,
      [`rewrites[${key}][backend_replacement]`]: '/x',
    });
    const form = await client.post('/admin/apis', { ...BASIC, ...rewrite('0', '^/first'), ...rewrite('1', '^/second'), ...rewrite('lx9abc', '^/added'), _up: 'rewrites.lx9abc' });
    expect(form.statusCode).toBe(200);
    const order = [...form.body.matchAll(/name="rewrites\[(\d+)\]\[frontend_matcher\]" value="([^"]+)"/g)].map((match) => `${match[1]} ${match[2]}`);
    expect(order).toEqual(['0 ^/first', '1 ^/added', '2 ^/second']);
    const subs = await client.post('/admin/apis', { ...BASIC, 'sub_settings[0][http_method]': 'any', 'sub_settings[0][regex]': '^/broad', 'sub_settings[1][http_method]': 'any', 'sub_settings[1][regex]': '^/broad/narrow', _up: 'sub_settings.1' });
    expect([...subs.body.matchAll(/name="sub_settings\[(\d+)\]\[regex\]" value="([^"]+)"/g)].map((match) => `${match[1]} ${match[2]}`)).toEqual(['0 ^/broad/narrow', '1 ^/broad']);
    // The first row has nowhere to go.
    const first = await client.post('/admin/apis', { ...BASIC, ...rewrite('0', '^/first'), ...rewrite('1', '^/second'), _up: 'rewrites.0' });
    expect([...first.body.matchAll(/name="rewrites\[\d+\]\[frontend_matcher\]" value="([^"]+)"/g)].map((match) => match[1])).toEqual(['^/first', '^/second']);
    expect(running.context.backends.list()).toHaveLength(0);
  });

  it('gives a server without a port its protocol\'s, as API Umbrella\'s form fills one in', async () => {
    await addBackend({ ...BASIC, backend_protocol: 'https', 'servers[0][port]': '', 'servers[1][host]': '10.0.0.6', 'servers[1][port]': '8443' });
    await addBackend({ ...BASIC, name: 'Plain', 'url_matches[0][frontend_prefix]': '/plain/', 'servers[0][port]': '' });
    expect(running.context.backends.list().map((api) => api.servers.map((server) => server.port))).toEqual([[443, 8443], [80]]);
  });

  it('edits a backend: the form shows what is saved', async () => {
    await addBackend({ ...BASIC, 'settings[headers]': 'X-One: 1', 'settings[rate_limit_mode]': 'custom', 'settings[rate_limits][0][duration_value]': '2', 'settings[rate_limits][0][duration_unit]': 'hours', 'settings[rate_limits][0][limit_by]': 'api_key', 'settings[rate_limits][0][limit]': '500' });
    const [api] = running.context.backends.list();
    const form = await client.get(`/admin/apis/${api!.id}/edit`);
    expect(form.body).toContain('value="api.example.com"');
    expect(form.body).toContain('X-One: 1</textarea>');
    // As API Umbrella's form shows a prefix at work.
    expect(textOf(form.body)).toContain('Example: a request to http://api.example.com/weather/example.json?param=value goes to http://weather.internal/v2/example.json?param=value');
    expect(textOf((await client.get('/admin/apis/new')).body)).not.toContain('Example: a request to');
    expect(form.body).toMatch(/<option value="hours" selected>/);
    const renamed = await client.post(`/admin/apis/${api!.id}`, { ...BASIC, name: 'Weather v2' });
    expect(textOf((await client.follow(renamed)).body)).toContain('Saved the API backend "Weather v2"');
  });

  it('moves a backend first or after another, as the admin API\'s move_after does, so that the one it shares a prefix with no longer gets its requests', async () => {
    for (const name of ['Alpha', 'Beta', 'Gamma']) await addBackend({ ...BASIC, name, 'url_matches[0][frontend_prefix]': name === 'Alpha' ? '/alpha/' : '/weather/' });
    const names = () => running.context.backends.list().map((api) => api.name);
    const gamma = running.context.backends.list().find((api) => api.name === 'Gamma')!;
    expect(textOf((await client.get('/admin/apis')).body)).toContain('Same host and prefix as “Beta”, listed before it, which gets these requests');
    const edit = await client.get(`/admin/apis/${gamma.id}/edit`);
    expect(textOf(edit.body)).toContain('Now after “Beta”');
    expect(edit.body).toMatch(/<option value="[^"]+" selected>After “Beta”<\/option>/);

    const moved = await client.post(`/admin/apis/${gamma.id}/move`, { after_id: '' });
    expect(textOf((await client.follow(moved)).body)).toContain('Moved the API backend "Gamma". Publish the change to make it live.');
    expect(names()).toEqual(['Gamma', 'Alpha', 'Beta']);
    const alpha = running.context.backends.list().find((api) => api.name === 'Alpha')!;
    await client.get(`/admin/apis/${gamma.id}/edit`);
    await client.post(`/admin/apis/${gamma.id}/move`, { after_id: alpha.id });
    expect(names()).toEqual(['Alpha', 'Gamma', 'Beta']);
    expect(textOf((await client.get('/admin/apis')).body)).toContain('Same host and prefix as “Gamma”, listed before it, which gets these requests');
    // A backend deleted since the page was shown: the page again, saying so.
    const gone = await client.post(`/admin/apis/${gamma.id}/move`, { after_id: 'no-such-backend' });
    expect(textOf((await client.follow(gone)).body)).toContain('The API backend chosen to move it after no longer exists. Choose again.');
    expect(names()).toEqual(['Alpha', 'Gamma', 'Beta']);
  });

  it('deletes after a confirmation page, and says a published one stays live until published', async () => {
    await addBackend();
    const [api] = running.context.backends.list();
    running.context.publisher.publish([api!.id], 'test');
    const confirm = await client.get(`/admin/apis/${api!.id}/delete`);
    expect(textOf(confirm.body)).toContain('Delete “Weather”?');
    expect(textOf(confirm.body)).toContain('keeps serving requests until you publish');
    const deleted = await client.post(`/admin/apis/${api!.id}/delete`);
    const list = textOf((await client.follow(deleted)).body);
    expect(list).toContain('Deleted the API backend "Weather". It stays live until you publish the change.');
    expect(list).toContain('1 deleted API backend is still live');
    expect(running.context.backends.list()).toHaveLength(0);
    expect((await client.get(`/admin/apis/${api!.id}/edit`)).statusCode).toBe(404);
  });

  it('lists name, host, prefixes and published or pending state', async () => {
    await addBackend();
    await addBackend({ ...BASIC, name: 'Maps', 'url_matches[0][frontend_prefix]': '/maps/' });
    const [weather, maps] = running.context.backends.list();
    running.context.publisher.publish([weather!.id, maps!.id], 'test');
    await client.post(`/admin/apis/${maps!.id}`, { ...BASIC, name: 'Maps', 'url_matches[0][frontend_prefix]': '/maps/', backend_host: 'maps.internal' });
    await addBackend({ ...BASIC, name: 'Search', 'url_matches[0][frontend_prefix]': '/search/' });
    const text = textOf((await client.get('/admin/apis')).body);
    expect(text).toMatch(/Weather api\.example\.com .*\/weather\/ → \/v2\/ Published/);
    expect(text).toMatch(/Maps .* Modified, not published/);
    expect(text).toMatch(/Search .* New, not published/);
    expect(text).toContain('2 unpublished changes');
  });

  it('shows Previous on the first page and Next on the last as text, not as links to pages that do not exist', async () => {
    for (let index = 1; index <= 51; index++) running.context.backends.create(backendConfig(`Service ${index}`, [`/svc${index}/`]), 'test');
    await expectTwoPagesPager(client, '/admin/apis', 'search=service');
  });

  it('searches by name, host, server or prefix, ignoring case, and pages by 50 with the search kept', async () => {
    for (let index = 1; index <= 60; index++) {
      running.context.backends.create(
        {
          ...backendConfig(`Service ${String(index).padStart(2, '0')}`, [`/svc${index}/`]),
          backend_host: index === 7 ? 'Ledger.internal' : 'svc.internal',
        },
        'test',
      );
    }
    const first = textOf((await client.get('/admin/apis')).body);
    expect(first).toContain('Service 50');
    expect(first).not.toContain('Service 51');
    expect(first).toContain('Showing 1–50 of 60');
    const second = textOf((await client.get('/admin/apis?page=2')).body);
    expect(second).toContain('Service 51');
    expect(second).toContain('Showing 51–60 of 60');
    // A page past the end shows the last one.
    expect(textOf((await client.get('/admin/apis?page=9')).body)).toContain('Showing 51–60 of 60');

    const byHost = textOf((await client.get('/admin/apis?search=ledger')).body);
    expect(byHost).toContain('Service 07');
    expect(byHost).not.toContain('Service 08');
    expect(textOf((await client.get('/admin/apis?search=%2Fsvc42%2F')).body)).toMatch(/Service 42(?![0-9])/);
    const bySomeNames = await client.get('/admin/apis?search=service+1');
    expect(textOf(bySomeNames.body)).toContain('Service 19');
    expect(textOf(bySomeNames.body)).not.toContain('Service 20');
    expect((await client.get('/admin/apis?search=SERVICE')).body).toContain('href="/admin/apis?page=2&amp;search=SERVICE"');
    // Ten of 60 match: one page, no pager.
    expect(textOf(bySomeNames.body)).not.toContain('Showing');

    const none = await client.get('/admin/apis?search=%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    expect(textOf(none.body)).toContain('No API backends match “<script>alert(1)</script>”');
    expect(none.body).not.toContain('<script>alert(1)');
  });
});
