// Security regression: POST /api-umbrella/v1/users with form fields dropped
// every nested user field, so an admin's user[settings][allowed_ips][]=…
// answered 201 with no restriction at all, and the key worked from anywhere.
// Real sockets: the user is made over HTTP and its key tried through the proxy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { KEY_CREATOR_ROLE } from '../../src/api-users/model.js';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { echoBackend, VALID_SIGNUP } from './signup-app.js';

let gateway: TestGateway;
let upstream: EchoUpstream;

beforeAll(async () => {
  upstream = await startEchoUpstream();
  gateway = await startTestGateway({ signup: { rate_limit_per_minute: 1000, rate_limit_per_hour: 1000 } });
  await gateway.publishBackend(echoBackend(upstream, 'Echo', '/echo/'));
});
afterAll(async () => {
  await gateway?.stop();
  await upstream?.close();
});

function userForm(extra: [string, string][]): string {
  const form = new URLSearchParams(Object.entries(VALID_SIGNUP).map(([name, value]) => [`user[${name}]`, value]));
  for (const [name, value] of extra) form.append(name, value);
  return form.toString();
}

async function postForm(headers: Record<string, string>, body: string) {
  const response = await request(`${gateway.url}/api-umbrella/v1/users.json`, { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body });
  return { status: response.statusCode, body: (await response.body.json()) as any };
}

async function proxiedStatus(apiKey: string): Promise<number> {
  const response = await request(`${gateway.url}/echo/hello`, { headers: { 'x-api-key': apiKey } });
  await response.body.dump();
  return response.statusCode;
}

describe("an admin's form-encoded user[settings][allowed_ips]", () => {
  it.each([
    ['repeated [] fields', [['user[settings][allowed_ips][]', '203.0.113.0/24'], ['user[settings][allowed_ips][]', '2001:db8::/32']]],
    ['numbered fields', [['user[settings][allowed_ips][0]', '203.0.113.0/24'], ['user[settings][allowed_ips][1]', '2001:db8::/32']]],
  ] as [string, [string, string][]][])('as %s is kept, and the key is refused from any other address', async (_name, fields) => {
    const created = await postForm({ 'x-admin-auth-token': gateway.adminToken }, userForm(fields));
    expect(created.status).toBe(201);
    expect(created.body.user.settings.allowed_ips).toEqual(['203.0.113.0/24', '2001:db8::/32']);
    expect(gateway.context.users.get(created.body.user.id)!.settings.allowed_ips).toEqual(['203.0.113.0/24', '2001:db8::/32']);
    // The test calls from 127.0.0.1, outside both ranges.
    expect(await proxiedStatus(created.body.user.api_key)).toBe(403);
  });

  it('refuses an entry that is no address or range with 422, as the JSON body would be, making no user', async () => {
    const refused = await postForm({ 'x-admin-auth-token': gateway.adminToken }, userForm([['user[settings][allowed_ips][]', 'office-network'], ['user[email]', 'refused@example.com']]));
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([expect.objectContaining({ code: 'INVALID_INPUT', field: 'settings.allowed_ips' })]);
    expect(gateway.context.users.countByEmail('refused@example.com')).toBe(0);
  });
});

it("still ignores a key-creator's nested roles and settings: the form cannot mint a privileged key", async () => {
  const keyCreator = (await gateway.createUser({ email: 'embed@example.com', roles: [KEY_CREATOR_ROLE] })).apiKey;
  const created = await postForm(
    { 'x-api-key': keyCreator },
    userForm([
      ['user[roles][]', KEY_CREATOR_ROLE],
      ['user[settings][rate_limit_mode]', 'unlimited'],
      ['user[enabled]', 'true'],
    ]),
  );
  expect(created.status).toBe(201);
  expect(created.body.user).toMatchObject({ roles: [], settings: { rate_limit_mode: null } });
});
