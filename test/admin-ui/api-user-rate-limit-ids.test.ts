// The user form carries its rate limits' ids (API Umbrella's embedded record
// ids) through an edit: saving it unchanged changes no id, and a row left
// keeps its own.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiUser } from '../../src/api-users/model.js';
import { parseApiUser } from '../../src/api-users/validate.js';
import { startSignedIn, type AdminApp, type AdminClient } from './helpers/admin-client.js';
import { formFieldsOf } from './helpers/form-fields.js';

let running: AdminApp;
let client: AdminClient;

beforeEach(async () => {
  ({ running, client } = await startSignedIn());
});
afterEach(() => running.close());

/** A user with two rate limits of their own. */
function limitedUser(): ApiUser {
  const parsed = parseApiUser({
    email: 'limited@example.com',
    first_name: 'Rate',
    last_name: 'Limited',
    settings: { rate_limit_mode: 'custom', rate_limits: [{ duration: 60_000, limit_by: 'ip', limit: 5 }, { duration: 3_600_000, limit_by: 'api_key', limit: 100 }] },
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return running.context.users.create(parsed.value, 'test').user;
}

const idsOf = (user: ApiUser) => user.settings.rate_limits.map((limit) => limit.id);

describe('the API user form', () => {
  it("saved unchanged, keeps every rate limit's id", async () => {
    const user = limitedUser();
    const edit = await client.get(`/admin/api_users/${user.id}`);
    const saved = await client.post(`/admin/api_users/${user.id}`, Object.fromEntries(formFieldsOf(edit.body, `/admin/api_users/${user.id}`)));
    expect(saved.statusCode, saved.body).toBe(303);
    expect(idsOf(running.context.users.get(user.id)!)).toEqual(idsOf(user));
  });

  it('keeps the id of a row left when another is removed, a new row getting a new one', async () => {
    const user = limitedUser();
    const edit = await client.get(`/admin/api_users/${user.id}`);
    const fields = Object.fromEntries(formFieldsOf(edit.body, `/admin/api_users/${user.id}`));
    for (const name of Object.keys(fields)) if (name.startsWith('settings[rate_limits][0]')) delete fields[name];
    Object.assign(fields, {
      'settings[rate_limits][2][duration_value]': '1',
      'settings[rate_limits][2][duration_unit]': 'days',
      'settings[rate_limits][2][limit_by]': 'api_key',
      'settings[rate_limits][2][limit]': '1000',
    });
    expect((await client.post(`/admin/api_users/${user.id}`, fields)).statusCode).toBe(303);
    const [kept, added] = idsOf(running.context.users.get(user.id)!);
    expect(kept).toBe(user.settings.rate_limits[1]!.id);
    expect(idsOf(user)).not.toContain(added);
  });
});
