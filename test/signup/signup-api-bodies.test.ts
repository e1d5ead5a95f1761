// POST /api-umbrella/v1/users(.json) over real sockets: form bodies read as
// the admin API reads them (nested objects, lists by [] and by number), the
// registration source, and the JSON bodies API Umbrella's Rails app wraps
// (test/apis/v1/users/test_create.rb there).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { KEY_CREATOR_ROLE } from '../../src/api-users/model.js';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { echoBackend, VALID_SIGNUP } from './signup-app.js';

let gateway: TestGateway;
let upstream: EchoUpstream;
let keyCreator: string;

beforeAll(async () => {
  upstream = await startEchoUpstream();
  gateway = await startTestGateway({ signup: { rate_limit_per_minute: 1000, rate_limit_per_hour: 1000 } });
  await gateway.publishBackend(echoBackend(upstream, 'Echo', '/echo/'));
  keyCreator = (await gateway.createUser({ email: 'embed@example.com', roles: [KEY_CREATOR_ROLE] })).apiKey;
});
afterAll(async () => {
  await gateway?.stop();
  await upstream?.close();
});

const admin = () => ({ 'x-admin-auth-token': gateway.adminToken });

async function post(headers: Record<string, string>, body: string, contentType: string) {
  const response = await request(`${gateway.url}/api-umbrella/v1/users.json`, { method: 'POST', headers: { ...headers, 'content-type': contentType }, body });
  return { status: response.statusCode, body: (await response.body.json()) as any };
}

function userForm(email: string, extra: [string, string][] = []): string {
  const form = new URLSearchParams(Object.entries({ ...VALID_SIGNUP, email }).map(([name, value]) => [`user[${name}]`, value]));
  for (const [name, value] of extra) form.append(name, value);
  return form.toString();
}

const postForm = (headers: Record<string, string>, body: string) => post(headers, body, 'application/x-www-form-urlencoded');
const postJson = (headers: Record<string, string>, body: unknown) => post(headers, JSON.stringify(body), 'application/json');

describe("an admin's form-encoded user", () => {
  it.each([
    ['repeated [] fields', [['user[roles][]', 'alpha'], ['user[roles][]', 'beta']]],
    ['numbered fields', [['user[roles][0]', 'alpha'], ['user[roles][1]', 'beta']]],
    ['one comma-separated field', [['user[roles]', 'alpha,beta']]],
  ] as [string, [string, string][]][])('keeps roles sent as %s', async (_name, fields) => {
    const created = await postForm(admin(), userForm('roles@example.com', fields));
    expect(created.status).toBe(201);
    expect(created.body.user.roles).toEqual(['alpha', 'beta']);
    expect(gateway.context.users.get(created.body.user.id)!.roles).toEqual(['alpha', 'beta']);
  });

  it('keeps custom rate limits sent as numbered rows, and the proxy enforces them', async () => {
    const created = await postForm(
      admin(),
      userForm('limited@example.com', [
        ['user[settings][rate_limit_mode]', 'custom'],
        ['user[settings][rate_limits][0][duration]', '60000'],
        ['user[settings][rate_limits][0][limit_by]', 'api_key'],
        ['user[settings][rate_limits][0][limit]', '1'],
        ['user[settings][rate_limits][0][response_headers]', 'true'],
      ]),
    );
    expect(created.status).toBe(201);
    expect(created.body.user.settings).toMatchObject({ rate_limit_mode: 'custom', rate_limits: [{ duration: 60000, limit_by: 'api_key', limit: 1, response_headers: true }] });
    const statuses: number[] = [];
    for (let call = 0; call < 2; call++) {
      const response = await request(`${gateway.url}/echo/hello`, { headers: { 'x-api-key': created.body.user.api_key } });
      await response.body.dump();
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([200, 429]);
  });

  it('answers 422 for a rate limit row the JSON body would be refused for', async () => {
    const refused = await postForm(admin(), userForm('bad-limit@example.com', [['user[settings][rate_limit_mode]', 'custom'], ['user[settings][rate_limits][0][duration]', '60000']]));
    expect(refused.status).toBe(422);
    expect(refused.body.errors.map((error: { field: string }) => error.field)).toEqual(expect.arrayContaining(['settings.rate_limits[0].limit']));
  });
});

describe('registration_source, as API Umbrella sets it', () => {
  it('is "api" for an admin\'s user that names none, JSON or form, and the one sent otherwise', async () => {
    const json = await postJson(admin(), { user: { ...VALID_SIGNUP, email: 'admin-json@example.com' } });
    const form = await postForm(admin(), userForm('admin-form@example.com'));
    const blank = await postJson(admin(), { user: { ...VALID_SIGNUP, email: 'admin-blank@example.com', registration_source: '' } });
    const named = await postJson(admin(), { user: { ...VALID_SIGNUP, email: 'admin-named@example.com', registration_source: 'whatever' } });
    expect([json, form, blank, named].map((answer) => [answer.status, answer.body.user.registration_source])).toEqual([
      [201, 'api'],
      [201, 'api'],
      [201, 'api'],
      [201, 'whatever'],
    ]);
    expect(gateway.context.users.get(json.body.user.id)!.registration_source).toBe('api');
  });

  it('is "api" for a key-creator\'s signup too', async () => {
    const created = await postForm({ 'x-api-key': keyCreator }, userForm('signup-source@example.com'));
    expect(created.body.user.registration_source).toBe('api');
  });
});

describe('JSON bodies without the "user" wrapper (Rails wrap_parameters)', () => {
  it('reads the bare object when "user" is false, as for null or none', async () => {
    for (const [email, wrapper] of [['false-user@example.com', { user: false }], ['null-user@example.com', { user: null }], ['no-user@example.com', {}]] as const) {
      const created = await postJson({ 'x-api-key': keyCreator }, { ...VALID_SIGNUP, email, ...wrapper });
      expect([created.status, created.body.user?.email], email).toEqual([201, email]);
    }
  });

  it('holds no user when "user" is "", 0, {} or a list (422), and a wrapped user wins over bare fields', async () => {
    for (const user of ['', 0, {}, []]) {
      const refused = await postJson({ 'x-api-key': keyCreator }, { ...VALID_SIGNUP, email: 'typed@example.com', user });
      expect(refused.status, JSON.stringify(user)).toBe(422);
    }
    const both = await postJson({ 'x-api-key': keyCreator }, { ...VALID_SIGNUP, email: 'bare@example.com', user: { ...VALID_SIGNUP, email: 'wrapped@example.com' } });
    expect(both.body.user.email).toBe('wrapped@example.com');
  });

  it('never wraps form fields: bare fields, or a user that is text, hold no user', async () => {
    const bare = new URLSearchParams(VALID_SIGNUP).toString();
    expect((await postForm({ 'x-api-key': keyCreator }, bare)).status).toBe(422);
    expect((await postForm({ 'x-api-key': keyCreator }, `${bare}&user=something`)).status).toBe(422);
  });
});
