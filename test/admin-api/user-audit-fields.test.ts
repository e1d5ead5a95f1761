// API Umbrella's audit fields of an API user in the admin API's answers:
// created_by and updated_by (an admin's id), creator and updater (that
// admin's username, the email here) and disabled_at.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_CREATOR_ROLE } from '../../src/api-users/model.js';
import type { Admin } from '../../src/admins/repository.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
let root: Admin;
beforeAll(async () => {
  gw = await startTestGateway();
  root = gw.context.admins.findByToken(gw.adminToken)!;
});
afterAll(() => gw.stop());

const NEW_USER = { first_name: 'Ada', last_name: 'Lovelace' };

async function createdByRoot(email: string, fields: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const created = await gw.adminApi('POST', '/users', { user: { ...NEW_USER, email, ...fields } });
  expect(created.status).toBe(201);
  return created.body.user;
}

/** The user as the admin API reads, lists and answers it. */
async function shown(id: string): Promise<Record<string, any>> {
  const read = (await gw.adminApi('GET', `/users/${id}`)).body.user;
  const listed = (await gw.adminApi('GET', `/users?search=${id}`)).body.data;
  expect(listed).toEqual([read]);
  return read;
}

describe('who created and changed an API user', () => {
  it("answers the admin's id as created_by and updated_by, their email as creator and updater, and follows each change", async () => {
    const other = (await gw.context.admins.create({ email: 'second.admin@example.com', superuser: true }))!;
    const byRoot = { created_by: root.id, creator: { username: root.email }, updated_by: root.id, updater: { username: root.email } };
    const byOther = { ...byRoot, updated_by: other.admin.id, updater: { username: 'second.admin@example.com' } };
    const { id } = await createdByRoot('audited@example.com');
    expect(await shown(id)).toMatchObject(byRoot);

    const changed = await gw.adminApiAs(other.authToken, 'PUT', `/users/${id}`, { user: { first_name: 'Changed' } });
    expect(changed.body.user).toMatchObject(byOther);
    expect(await shown(id)).toMatchObject(byOther);
    // A new key, and the end of the previous one, are changes too.
    expect((await gw.adminApi('POST', `/users/${id}/regenerate_key`)).body.user).toMatchObject(byRoot);
    expect((await gw.adminApiAs(other.authToken, 'DELETE', `/users/${id}/previous_api_key`)).status).toBe(204);
    expect(await shown(id)).toMatchObject(byOther);

    // An admin since deleted is no longer named; their id stays.
    gw.context.admins.delete(other.admin.id);
    expect(await shown(id)).toMatchObject({ updated_by: other.admin.id, updater: { username: null } });
  });

  it('names no creator or updater of a user a key creator signed up, as it names no admin', async () => {
    const keyCreator = await gw.createUser({ email: 'embed@example.com', roles: [KEY_CREATOR_ROLE] });
    const response = await fetch(`${gw.url}/api-umbrella/v1/users`, {
      method: 'POST',
      headers: { 'x-api-key': keyCreator.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ user: { ...NEW_USER, email: 'signed-up@example.com', terms_and_conditions: true } }),
    });
    expect(response.status).toBe(201);
    const { id } = ((await response.json()) as { user: { id: string } }).user;
    expect(await shown(id)).toMatchObject({ created_by: keyCreator.id, creator: { username: null }, updated_by: keyCreator.id, updater: { username: null } });
  });
});

describe('disabled_at', () => {
  it('is when the user was disabled, kept through later changes while it stays so, and null once it is enabled again', async () => {
    const { id } = await createdByRoot('disabled-at@example.com');
    expect((await shown(id)).disabled_at).toBeNull();

    const before = new Date().toISOString();
    const disabled = (await gw.adminApi('PUT', `/users/${id}`, { user: { enabled: false } })).body.user;
    expect(disabled.disabled_at >= before && disabled.disabled_at <= new Date().toISOString()).toBe(true);
    expect(disabled.disabled_at).toBe(disabled.updated_at);
    await sleep(5); // a later millisecond than the disabling
    const renamed = (await gw.adminApi('PUT', `/users/${id}`, { user: { first_name: 'Renamed', enabled: false } })).body.user;
    expect(renamed).toMatchObject({ first_name: 'Renamed', disabled_at: disabled.disabled_at });
    expect((await shown(id)).disabled_at).toBe(disabled.disabled_at);

    expect((await gw.adminApi('PUT', `/users/${id}`, { user: { enabled: true } })).body.user.disabled_at).toBeNull();
    expect((await shown(id)).disabled_at).toBeNull();
  });

  it('is the creation time of a user created disabled', async () => {
    const user = await createdByRoot('born-disabled@example.com', { enabled: false });
    expect(user).toMatchObject({ enabled: false, disabled_at: user.created_at });
  });
});
