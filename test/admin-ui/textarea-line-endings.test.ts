// Browsers post a textarea's lines with CRLF (HTML's form encoding). What the
// admin API and API Umbrella store has LF, so the forms store LF: a backend
// saved unchanged stays identical to its live copy (and its live error bodies
// unchanged once published), and free text keeps the line endings it had.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiBackend } from '../../src/api-backends/model.js';
import { PASSWORD, startSignedIn, type AdminApp, type AdminClient } from './helpers/admin-client.js';
import { draftParsed } from './helpers/backends.js';
import { formFieldsOf } from './helpers/form-fields.js';
import { apiUserInput } from '../helpers/users.js';

let running: AdminApp;
let client: AdminClient;

beforeEach(async () => {
  ({ running, client } = await startSignedIn());
});
afterEach(() => running.close());

/**
 * The page's form as a browser sends it untouched: a textarea's lines with
 * CRLF. (Only a textarea's value can hold a line break.)
 */
async function browserForm(page: string, action: string): Promise<Record<string, string>> {
  const fields = formFieldsOf((await client.get(page)).body, action);
  return Object.fromEntries(fields.map(([name, value]) => [name, value.replace(/\n/g, '\r\n')]));
}

const CSV = 'Error Code,Error Message\n{{code}},{{message}}';
const JSON_TEMPLATE = '{\n  "error": {\n    "code": {{code}}\n  }\n}';

/** A live backend with multi-line error templates, as a script sends them through the admin API, and a draft the same. */
function publishedBackend(): ApiBackend {
  const settings = {
    error_templates: { csv: CSV, json: JSON_TEMPLATE },
    error_data: { api_key_missing: { signup_url: 'https://example.com/signup' } },
    headers: [{ key: 'X-One', value: '1' }, { key: 'X-Two', value: '2' }],
    allowed_ips: ['10.0.0.0/8', '192.0.2.1'],
  };
  const api = draftParsed(running.context, {
    name: 'Templates',
    url_matches: [{ frontend_prefix: '/templates/', backend_prefix: '/' }],
    settings,
    sub_settings: [{ http_method: 'any', regex: '^/sub', settings: { error_templates: { csv: CSV } } }],
  });
  running.context.publisher.publish([api.id], 'test');
  return api;
}

describe('textareas posted with CRLF', () => {
  it('leave a backend saved unchanged identical to its live copy, its error templates with LF', async () => {
    const api = publishedBackend();
    const action = `/admin/apis/${api.id}`;
    const fields = await browserForm(`${action}/edit`, action);
    expect(fields['settings[error_templates][csv]']).toBe('Error Code,Error Message\r\n{{code}},{{message}}');
    const saved = await client.post(action, fields);
    expect(saved.statusCode, saved.body).toBe(303);
    const after = running.context.backends.get(api.id)!;
    expect(after.settings.error_templates).toEqual({ csv: CSV, json: JSON_TEMPLATE });
    expect(after.sub_settings[0]!.settings.error_templates).toEqual({ csv: CSV });
    const pending = running.context.publisher.pendingChanges();
    expect(pending.identical.map((change) => change.id)).toEqual([api.id]);
    expect(pending.modified).toEqual([]);
  });

  it('store a typed template with LF, a lone CR too', async () => {
    const api = publishedBackend();
    const action = `/admin/apis/${api.id}`;
    const fields = { ...(await browserForm(`${action}/edit`, action)), 'settings[error_templates][xml]': '<error>\r\n<code>{{code}}</code>\r</error>' };
    expect((await client.post(action, fields)).statusCode).toBe(303);
    expect(running.context.backends.get(api.id)!.settings.error_templates.xml).toBe('<error>\n<code>{{code}}</code>\n</error>');
  });

  it("store an API user's purpose with LF", async () => {
    const { user } = running.context.users.create(apiUserInput({ email: 'lines@example.com', use_description: 'Maps.\nAnd weather.' }), 'test');
    const action = `/admin/api_users/${user.id}`;
    const fields = await browserForm(action, action);
    expect(fields.use_description).toBe('Maps.\r\nAnd weather.');
    expect((await client.post(action, fields)).statusCode).toBe(303);
    expect(running.context.users.get(user.id)!.use_description).toBe('Maps.\nAnd weather.');
  });

  it("store an admin's notes with LF", async () => {
    const { admin } = (await running.context.admins.create({ email: 'noted@example.com', password: PASSWORD, superuser: true, notes: 'Runs the weather APIs.\nOn call on Mondays.' }))!;
    const fields = await browserForm(`/admin/admins/${admin.id}/edit`, `/admin/admins/${admin.id}`);
    expect(fields.notes).toBe('Runs the weather APIs.\r\nOn call on Mondays.');
    expect((await client.post(`/admin/admins/${admin.id}`, fields)).statusCode).toBe(303);
    expect(running.context.admins.get(admin.id)!.notes).toBe('Runs the weather APIs.\nOn call on Mondays.');
  });
});
