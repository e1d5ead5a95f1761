import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

const MESSAGE = (entry: string) => `contains "${entry}", which is not an IP address or CIDR range (such as 203.0.113.7, 10.0.0.0/8 or 2001:db8::/32)`;

const api = (settings: Record<string, unknown>, subSettings: Record<string, unknown>[] = []) => ({
  name: 'Restricted',
  frontend_host: 'restricted.example.com',
  backend_host: 'backend.example.com',
  servers: [{ host: '127.0.0.1', port: 8080 }],
  url_matches: [{ frontend_prefix: `/r${Math.random().toString(36).slice(2)}/`, backend_prefix: '/' }],
  settings,
  sub_settings: subSettings,
});

describe('allowed_ips at save time', () => {
  it('refuses a backend whose list holds an entry that is not an address or range, naming the field', async () => {
    const response = await gw.adminApi('POST', '/apis', {
      api: api({ allowed_ips: ['10.0.0.0/8', 'office-network'] }, [{ http_method: 'any', regex: '^/x', settings: { allowed_ips: ['10.0.0.0/33'] } }]),
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      'settings.allowed_ips': [MESSAGE('office-network')],
      'sub_settings[0].settings.allowed_ips': [MESSAGE('10.0.0.0/33')],
    });
  });

  it('keeps addresses and ranges of both families', async () => {
    const allowed = ['203.0.113.7', '10.0.0.0/8', '2001:db8::/32', '::1'];
    const response = await gw.adminApi('POST', '/apis', { api: api({ allowed_ips: allowed, allowed_referers: ['*.example.com/*'] }) });
    expect(response.status).toBe(201);
    expect(response.body.api.settings).toMatchObject({ allowed_ips: allowed, allowed_referers: ['*.example.com/*'] });
  });

  it("refuses a user's bad entry in the API's error shape and keeps a good list", async () => {
    const { id } = await gw.createUser();
    const invalid = await gw.adminApi('PUT', `/users/${id}`, { user: { settings: { allowed_ips: ['999.1.1.1'] } } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors).toEqual([expect.objectContaining({ code: 'INVALID_INPUT', field: 'settings.allowed_ips', message: MESSAGE('999.1.1.1') })]);
    const valid = await gw.adminApi('PUT', `/users/${id}`, { user: { settings: { allowed_ips: ['192.168.0.0/16'] } } });
    expect(valid.status).toBe(200);
    expect(valid.body.user.settings.allowed_ips).toEqual(['192.168.0.0/16']);
  });

  it('answers an empty list of a user as null, as API Umbrella does, and takes null or [] to clear one', async () => {
    const { id } = await gw.createUser();
    expect((await gw.adminApi('GET', `/users/${id}`)).body.user.settings).toMatchObject({ allowed_ips: null, allowed_referers: null });
    await gw.adminApi('PUT', `/users/${id}`, { user: { settings: { allowed_ips: ['10.0.0.0/8'], allowed_referers: ['*.example.com/*'] } } });
    const cleared = await gw.adminApi('PUT', `/users/${id}`, { user: { settings: { allowed_ips: null, allowed_referers: [] } } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.user.settings).toMatchObject({ allowed_ips: null, allowed_referers: null });
  });
});
