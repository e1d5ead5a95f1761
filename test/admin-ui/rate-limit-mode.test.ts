// Rate limits apply only under "Custom rate limits". Rows typed while the
// Rate Limit select is left at Default (or Unlimited, or a sub-setting's
// Inherit) would be dropped on save: the form says so instead of "Saved".
// Saved rows dropped by switching away from Custom go without a word, as
// that is how an operator removes them. The page's script shows the rows only
// under Custom; the markup names the select it follows.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiBackend } from '../../src/api-backends/model.js';
import type { ApiUser } from '../../src/api-users/model.js';
import { parseApiUser } from '../../src/api-users/validate.js';
import { startSignedIn, textOf, type AdminApp, type AdminClient } from './helpers/admin-client.js';
import { draftParsed } from './helpers/backends.js';
import { formFieldsOf } from './helpers/form-fields.js';

let running: AdminApp;
let client: AdminClient;

beforeEach(async () => {
  ({ running, client } = await startSignedIn());
});
afterEach(() => running.close());

const MESSAGE = 'Choose "Custom rate limits" to use the rate limits below, or remove them.';

/** A new rate limit row (no id) as the form posts it, under `base`. */
function newRow(base: string, limit = '5'): Record<string, string> {
  return { [`${base}[id]`]: '', [`${base}[duration_value]`]: '1', [`${base}[duration_unit]`]: 'minutes', [`${base}[limit_by]`]: 'api_key', [`${base}[limit]`]: limit };
}

function userWith(settings: Record<string, unknown>): ApiUser {
  const parsed = parseApiUser({ email: 'rl@example.com', first_name: 'Rate', last_name: 'Limited', settings });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return running.context.users.create(parsed.value, 'test').user;
}

function backendWith(settings: Record<string, unknown>, subSettings: Record<string, unknown>[] = []): ApiBackend {
  return draftParsed(running.context, { name: 'Limited', url_matches: [{ frontend_prefix: '/limited/', backend_prefix: '/' }], settings, sub_settings: subSettings });
}

/** The page's form as a browser would send it untouched. */
async function formOf(page: string, action: string): Promise<Record<string, string>> {
  return Object.fromEntries(formFieldsOf((await client.get(page)).body, action));
}

describe('the API user form', () => {
  for (const mode of ['', 'unlimited']) {
    it(`refuses a rate limit added while Rate Limit is ${mode === '' ? 'Default' : 'Unlimited'}, keeping what was typed, and saves nothing`, async () => {
      const user = userWith({});
      const action = `/admin/api_users/${user.id}`;
      const fields = { ...(await formOf(action, action)), 'settings[rate_limit_mode]': mode, ...newRow('settings[rate_limits][0]', '77') };
      const response = await client.post(action, fields);
      expect(response.statusCode).toBe(422);
      expect(textOf(response.body)).toContain(MESSAGE);
      expect(response.body).toMatch(/<select id="f-settings-rate_limit_mode" name="settings\[rate_limit_mode\]" aria-invalid="true"/);
      expect(response.body).toContain('name="settings[rate_limits][0][limit]" value="77"');
      expect(running.context.users.get(user.id)!.settings).toMatchObject({ rate_limit_mode: null, rate_limits: [] });
    });
  }

  it('refuses it on a new user too', async () => {
    await client.get('/admin/api_users/new');
    const response = await client.post('/admin/api_users', { email: 'new@example.com', first_name: 'N', last_name: 'U', enabled: '1', 'settings[rate_limit_mode]': '', ...newRow('settings[rate_limits][0]') });
    expect(response.statusCode).toBe(422);
    expect(textOf(response.body)).toContain(MESSAGE);
    expect(running.context.users.countByEmail('new@example.com')).toBe(0);
  });

  it('drops saved limits without a word when Rate Limit is switched away from Custom', async () => {
    const user = userWith({ rate_limit_mode: 'custom', rate_limits: [{ duration: 60_000, limit_by: 'ip', limit: 5 }] });
    const action = `/admin/api_users/${user.id}`;
    const fields: Record<string, string> = { ...(await formOf(action, action)), 'settings[rate_limit_mode]': '' };
    expect(fields['settings[rate_limits][0][id]']).toBe(user.settings.rate_limits[0]!.id);
    const response = await client.post(action, fields);
    expect(response.statusCode, textOf(response.body)).toBe(303);
    expect(running.context.users.get(user.id)!.settings).toMatchObject({ rate_limit_mode: null, rate_limits: [] });
  });

  it('ignores rows left blank, whatever the mode', async () => {
    const user = userWith({});
    const action = `/admin/api_users/${user.id}`;
    const blank = { 'settings[rate_limits][0][id]': '', 'settings[rate_limits][0][duration_value]': ' ', 'settings[rate_limits][0][limit]': '' };
    expect((await client.post(action, { ...(await formOf(action, action)), ...blank })).statusCode).toBe(303);
  });

  it('puts the rows and Add rate limit in a block naming the Rate Limit select, for the page script to show only under Custom', async () => {
    const page = (await client.get('/admin/api_users/new')).body;
    expect(page).toContain('<select id="f-settings-rate_limit_mode" name="settings[rate_limit_mode]"');
    expect(page).toMatch(/<fieldset class="plain rate-limit-rows" data-rate-limits-for="settings\[rate_limit_mode\]">\s*<div class="rows" id="rows-settings-rate_limits">[\s\S]*?Add rate limit<\/button>\s*<\/fieldset>/);
  });
});

describe('the API backend form', () => {
  it('refuses a rate limit added while the global Rate Limit is Default', async () => {
    const api = backendWith({});
    const action = `/admin/apis/${api.id}`;
    const response = await client.post(action, { ...(await formOf(`${action}/edit`, action)), ...newRow('settings[rate_limits][0]') });
    expect(response.statusCode).toBe(422);
    expect(textOf(response.body)).toContain(MESSAGE);
    expect(response.body).toMatch(/<select id="f-settings-rate_limit_mode" name="settings\[rate_limit_mode\]" aria-invalid="true"/);
    expect(running.context.backends.get(api.id)!.settings.rate_limits).toEqual([]);
  });

  it("refuses one added while a sub-setting's Rate Limit is Inherit, beside that sub-setting's select", async () => {
    const api = backendWith({}, [{ http_method: 'any', regex: '^/sub', settings: {} }]);
    const action = `/admin/apis/${api.id}`;
    const fields = await formOf(`${action}/edit`, action);
    expect(fields['sub_settings[0][settings][rate_limit_mode]']).toBe('');
    const response = await client.post(action, { ...fields, ...newRow('sub_settings[0][settings][rate_limits][0]') });
    expect(response.statusCode).toBe(422);
    expect(response.body).toMatch(/<select id="f-sub_settings-0-settings-rate_limit_mode" name="sub_settings\[0\]\[settings\]\[rate_limit_mode\]" aria-invalid="true"[^]*?<small[^>]*>Choose &quot;Custom rate limits&quot;/);
    expect(running.context.backends.get(api.id)!.sub_settings[0]!.settings.rate_limits).toEqual([]);
  });

  it('drops saved limits without a word when Rate Limit is switched to Unlimited', async () => {
    const api = backendWith({ rate_limit_mode: 'custom', rate_limits: [{ duration: 1000, limit_by: 'ip', limit: 9 }] });
    const action = `/admin/apis/${api.id}`;
    const fields = { ...(await formOf(`${action}/edit`, action)), 'settings[rate_limit_mode]': 'unlimited' };
    const response = await client.post(action, fields);
    expect(response.statusCode, textOf(response.body)).toBe(303);
    expect(running.context.backends.get(api.id)!.settings).toMatchObject({ rate_limit_mode: 'unlimited', rate_limits: [] });
  });

  it("names each Rate Limit select from its block of rows, a new sub-setting's too", async () => {
    const page = (await client.get('/admin/apis/new')).body;
    const named = [...page.matchAll(/data-rate-limits-for="([^"]+)"/g)].map((match) => match[1]);
    expect(named).toEqual(['settings[rate_limit_mode]', 'sub_settings[__SUB__][settings][rate_limit_mode]']);
    for (const name of named) expect(page).toContain(`name="${name}"`);
  });
});
