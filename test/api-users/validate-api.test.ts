// GET /api-umbrella/api-users/:api_key/validate(.json), API Umbrella's
// deprecated key check, as its test/apis/test_api_users_validate.rb specifies
// it, over real HTTP against a real gateway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gateway: TestGateway;
let callerKey: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  callerKey = (await gateway.createUser({ email: 'caller@example.com' })).apiKey;
});
afterAll(() => gateway.stop());

function check(key: string, { caller = callerKey as string | null, suffix = '.json' } = {}) {
  return fetch(`${gateway.url}/api-umbrella/api-users/${key}/validate${suffix}`, { headers: caller === null ? {} : { 'X-Api-Key': caller } });
}

describe('the key check', () => {
  it('answers {"status":"valid"} for a key the gateway takes, with or without .json', async () => {
    const { apiKey } = await gateway.createUser({ email: 'checked@example.com' });
    for (const suffix of ['.json', '']) {
      const response = await check(apiKey, { suffix });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({ status: 'valid' });
    }
  });

  it('answers {"status":"invalid"} for an unknown key, one with a quote, and a disabled or expired one', async () => {
    const { apiKey } = await gateway.createUser({ email: 'soon-gone@example.com' });
    const disabled = await gateway.createUser({ email: 'disabled@example.com', enabled: false });
    const expired = await gateway.createUser({ email: 'expired@example.com', expires_at: '2001-01-01T00:00:00Z' });
    for (const key of [`${apiKey}foo`, '%27', disabled.apiKey, expired.apiKey]) {
      const response = await check(key);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'invalid' });
    }
  });

  it('answers 404 for an empty key segment', async () => {
    expect((await check('')).status).toBe(404);
  });

  it('asks the caller for a key of its own, refused as the gateway refuses one', async () => {
    const { apiKey } = await gateway.createUser({ email: 'asked-about@example.com' });
    const missing = await check(apiKey, { caller: null });
    expect(missing.status).toBe(403);
    expect(await missing.json()).toMatchObject({ error: { code: 'API_KEY_MISSING' } });
    const invalid = await check(apiKey, { caller: `${callerKey}x` });
    expect(invalid.status).toBe(403);
    expect(await invalid.json()).toMatchObject({ error: { code: 'API_KEY_INVALID' } });
    const fromQuery = await fetch(`${gateway.url}/api-umbrella/api-users/${apiKey}/validate.json?api_key=${callerKey}`);
    expect(await fromQuery.json()).toEqual({ status: 'valid' });
    const disabled = await gateway.createUser({ email: 'disabled-caller@example.com', enabled: false });
    expect(await (await check(apiKey, { caller: disabled.apiKey })).json()).toMatchObject({ error: { code: 'API_KEY_DISABLED' } });
  });
});
