// Roll back, Regenerate key, End it now (a previous key) and Regenerate token
// ask first without JavaScript too: a post without confirmed=1 changes nothing
// and answers a page that asks, whose form posts the same fields again with
// confirmed=1 and acts. (With JavaScript, parasol.js asks and sends confirmed=1.)
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EMPTY_SETTINGS } from '../../src/api-backends/model.js';
import { apiUserInput } from '../helpers/users.js';
import { AdminClient, startSignedIn, textOf, type AdminApp } from './helpers/admin-client.js';

let running: AdminApp;
let client: AdminClient;

beforeEach(async () => {
  ({ running, client } = await startSignedIn());
});
afterEach(() => running.close());

/** The confirmation page's form: where it posts and its hidden fields (the CSRF token among them). */
function confirmationForm(page: LightMyRequestResponse): { action: string; fields: Record<string, string> } {
  const form = /<form method="post" action="([^"]+)" class="form-actions">([\s\S]*?)<\/form>/.exec(page.body);
  if (form === null) throw new Error(`no confirmation form in: ${textOf(page.body)}`);
  const fields = Object.fromEntries([...form[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((input) => [input[1]!, input[2]!]));
  return { action: form[1]!, fields };
}

/** Asserts `page` asks `question`, with Cancel back to `back`, and posts `fields` again, confirmed, to `action`. */
function expectQuestion(page: LightMyRequestResponse, question: string, action: string, back: string, fields: Record<string, string> = {}): void {
  expect(page.statusCode).toBe(200);
  expect(page.body).toContain(`<h1>${question}</h1>`);
  expect(page.body).toContain(`<a href="${back}" class="secondary">Cancel</a>`);
  const form = confirmationForm(page);
  expect(form.action).toBe(action);
  expect(form.fields).toEqual({ _csrf: expect.any(String), ...fields, confirmed: '1' });
}

/** Sends the confirmation page's form, as the browser does on its button. */
function confirm(page: LightMyRequestResponse): Promise<LightMyRequestResponse> {
  const { action, fields } = confirmationForm(page);
  return client.post(action, fields);
}

function backendNamed(name: string) {
  return {
    name,
    frontend_host: 'api.example.com',
    backend_host: 'backend.internal',
    backend_protocol: 'http' as const,
    balance_algorithm: 'least_conn' as const,
    servers: [{ id: randomUUID(), host: '10.0.0.1', port: 80 }],
    url_matches: [{ id: randomUUID(), frontend_prefix: '/service/', backend_prefix: '/' }],
    settings: EMPTY_SETTINGS,
    sub_settings: [],
    rewrites: [],
  };
}

function addUser(email: string) {
  return running.context.users.create(apiUserInput({ email }), 'test');
}

describe('actions that ask first, without JavaScript', () => {
  it('Roll back: asks, and the live config stays until the rollback is confirmed', async () => {
    const id = running.context.backends.create(backendNamed('Service'), 'test').id;
    const { publisher } = running.context;
    publisher.publish([id], 'test');
    running.context.backends.delete(id);
    publisher.publish([id], 'test');
    await client.get('/admin/config/publish');

    const asked = await client.post('/admin/config/rollback', { version_id: '1' });
    expectQuestion(asked, 'Roll back to version 1?', '/admin/config/rollback', '/admin/config/publish', { version_id: '1' });
    expect(textOf(asked.body)).toContain('in place of every API backend live now');
    expect(publisher.current.version).toBe(2);
    expect(publisher.current.apis).toHaveLength(0);

    const rolledBack = await confirm(asked);
    expect(textOf((await client.follow(rolledBack)).body)).toContain('Rolled back to version 1: it is live again as version 3.');
    expect(publisher.current.apis.map((api) => api.name)).toEqual(['Service']);
  });

  it('Regenerate key: asks, saying when the current key stops, and the key stays until confirmed', async () => {
    const { user, apiKey } = addUser('rotate@example.com');
    await client.get(`/admin/api_users/${user.id}`);

    const asked = await client.post(`/admin/api_users/${user.id}/regenerate_key`, { previous_key_grace: '1d' });
    const action = `/admin/api_users/${user.id}/regenerate_key`;
    expectQuestion(asked, 'Regenerate the key of rotate@example.com?', action, `/admin/api_users/${user.id}`, { previous_key_grace: '1d' });
    expect(textOf(asked.body)).toContain('Current key works 1 more day.');
    expect(asked.body).not.toContain('data-testid="api-key"');
    expect(running.context.users.get(user.id)!.api_key_preview).toBe(user.api_key_preview);
    expect(running.context.keyIndex.find(apiKey)?.user.expires_at_ms).toBe(Infinity);

    const regenerated = await confirm(asked);
    expect(regenerated.statusCode).toBe(200);
    expect(regenerated.body).toContain('data-testid="api-key"');
    // The choice went through the confirmation: the old key works one more day.
    expect(running.context.keyIndex.find(apiKey)?.user.expires_at_ms).toBeGreaterThan(Date.now() + 86_000_000);
  });

  it('End it now: asks, and the previous key works until confirmed', async () => {
    const { user, apiKey } = addUser('overlap@example.com');
    running.context.users.regenerateKey(user.id, new Date(Date.now() + 86_400_000).toISOString(), 'test');
    await client.get(`/admin/api_users/${user.id}`);

    const asked = await client.post(`/admin/api_users/${user.id}/end_previous_key`);
    expectQuestion(asked, 'End the previous key of overlap@example.com now?', `/admin/api_users/${user.id}/end_previous_key`, `/admin/api_users/${user.id}`);
    expect(running.context.keyIndex.find(apiKey)?.user.id).toBe(user.id);

    const ended = await confirm(asked);
    expect(textOf((await client.follow(ended)).body)).toContain('The previous key of overlap@example.com no longer works.');
    expect(running.context.keyIndex.find(apiKey)).toBeNull();
  });

  it('Regenerate token: asks, and the current token works until confirmed', async () => {
    const admin = running.context.admins.findByEmail('ops@example.com')!;
    const token = running.context.admins.regenerateToken(admin.id)!;
    const callsApi = async (candidate: string) => (await running.app.inject({ url: '/api-umbrella/v1/apis', headers: { 'x-admin-auth-token': candidate } })).statusCode;
    await client.get('/admin/account');

    const asked = await client.post('/admin/account/token');
    expectQuestion(asked, 'Regenerate your Admin API Token?', '/admin/account/token', '/admin/account');
    expect(asked.body).not.toContain('id="admin-token"');
    expect(await callsApi(token)).toBe(200);

    const regenerated = await confirm(asked);
    const fresh = /id="admin-token"[^>]*value="([A-Za-z0-9]{40})"/.exec(regenerated.body)![1]!;
    expect(await callsApi(fresh)).toBe(200);
    expect(await callsApi(token)).toBe(401);
  });
});

describe('the dialog parasol.js shows with JavaScript', () => {
  /** The data-confirm text of the form posting to `action` on `page`, as the dialog shows it. */
  function dialogOn(page: LightMyRequestResponse, action: string): string {
    const form = new RegExp(`<form method="post" action="${action}"[^>]*data-confirm="([^"]*)"`).exec(page.body);
    if (form === null) throw new Error(`no form asking first to ${action}`);
    return textOf(form[1]!).trim();
  }

  /** What the page asking without JavaScript says: its heading and its consequences, in order. */
  function askedOn(page: LightMyRequestResponse): string {
    return textOf(/<h1>([\s\S]*?)<form method="post"/.exec(page.body)![1]!).trim();
  }

  it('asks what the page without JavaScript asks, word for word', async () => {
    const { user } = addUser('both-ways@example.com');
    running.context.users.regenerateKey(user.id, new Date(Date.now() + 86_400_000).toISOString(), 'test');

    const userPage = await client.get(`/admin/api_users/${user.id}`);
    const endAction = `/admin/api_users/${user.id}/end_previous_key`;
    expect(dialogOn(userPage, endAction)).toBe(askedOn(await client.post(endAction)));
    const regenerateAction = `/admin/api_users/${user.id}/regenerate_key`;
    const regenerateDialog = dialogOn(userPage, regenerateAction);
    expect(regenerateDialog).toBe('Regenerate the key of both-ways@example.com? Parasol makes a new key for both-ways@example.com and shows it once, on the next page. The current key stops working at the time chosen beside the button.');
    expect(askedOn(await client.post(regenerateAction, { previous_key_grace: '1d' }))).toBe(regenerateDialog.replace('The current key stops working at the time chosen beside the button.', 'Current key works 1 more day.'));

    const { id } = running.context.backends.create(backendNamed('Service'), 'test');
    running.context.publisher.publish([id], 'test');
    running.context.backends.update(id, backendNamed('Renamed'), 'test');
    running.context.publisher.publish([id], 'test');
    const publish = await client.get('/admin/config/publish');
    expect(dialogOn(publish, '/admin/config/rollback')).toBe(askedOn(await client.post('/admin/config/rollback', { version_id: '1' })));

    const account = await client.get('/admin/account');
    expect(dialogOn(account, '/admin/account/token')).toBe(askedOn(await client.post('/admin/account/token')));
  });
});
