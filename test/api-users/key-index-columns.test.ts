// The key index keeps users as columns by slot (key-index.ts): every user
// found by its own key through table growth and re-filing, and every field
// of the user it answers with as the store has it.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeyIndex } from '../../src/api-users/key-index.js';
import type { RateLimit } from '../../src/api-backends/model.js';
import { DEFAULT_USER_SETTINGS, type StoredUserSettings } from '../../src/api-users/model.js';
import type { AppContext } from '../../src/context.js';
import { digestToken, previewOf } from '../../src/lib/secret-token.js';
import { apiUserInput } from '../helpers/users.js';
import { twoProcesses } from './two-processes.js';

function createUsers(context: AppContext, count: number): { id: string; apiKey: string }[] {
  return context.db.transaction(() =>
    Array.from({ length: count }, (_, index) => {
      const { user, apiKey } = context.users.create(apiUserInput({ email: `user${index}@example.com` }), null);
      return { id: user.id, apiKey };
    }),
  )();
}

/** The same key with its last character changed: same lookup prefix, wrong HMAC. */
function tampered(apiKey: string): string {
  return apiKey.slice(0, -1) + (apiKey.endsWith('x') ? 'y' : 'x');
}

/** The key with its first character changed, so its prefix matches no one's. */
function otherPrefix(apiKey: string): string {
  return (apiKey.startsWith('Z') ? 'Y' : 'Z') + apiKey.slice(1);
}

/**
 * A user with a key of its own, written straight into the store by another
 * connection, as an import of API Umbrella's users would: its keys may be as
 * short as 4 characters and its previews of another form.
 */
function importUser(context: AppContext, apiKey: string, preview = previewOf(apiKey)): string {
  const id = randomUUID();
  const { prefix, hash } = digestToken(context.secretKey, apiKey);
  const now = new Date().toISOString();
  context.db.transaction(() => {
    const { value } = context.db.prepare("UPDATE sequences SET value = value + 1 WHERE name = 'api_user_change' RETURNING value").get() as { value: number };
    context.db
      .prepare(
        `INSERT INTO api_users (id, api_key_prefix, api_key_hash, api_key_preview, email, created_at, updated_at, change_seq)
         VALUES (?, ?, ?, ?, 'imported@example.com', ?, ?, ?)`,
      )
      .run(id, prefix, hash, preview, now, now, value);
  })();
  return id;
}

const OWN_LIMIT: RateLimit = { duration: 60_000, limit_by: 'api_key', limit: 10, response_headers: true };
const OWN_SETTINGS: StoredUserSettings = {
  rate_limit_mode: 'custom',
  rate_limits: [{ id: randomUUID(), ...OWN_LIMIT }],
  allowed_ips: ['192.0.2.0/24'],
  allowed_referers: ['https://example.com/*'],
};

describe('key index columns', () => {
  it('finds each of 5,000 users by its key, as filed by events and as loaded at start, and refuses wrong keys', () => {
    const { gateway } = twoProcesses();
    const users = createUsers(gateway, 5000);
    const loaded = new KeyIndex(gateway.users, gateway.secretKey);
    for (const index of [gateway.keyIndex, loaded]) {
      expect(index.size).toBe(5000);
      for (const { id, apiKey } of users) {
        expect(index.find(apiKey)?.user.id).toBe(id);
        expect(index.find(tampered(apiKey))).toBeNull();
      }
    }
    const { apiKey } = users[0]!;
    expect(gateway.keyIndex.find(otherPrefix(apiKey))).toBeNull();
    expect(gateway.keyIndex.find(apiKey.slice(0, 16))).toBeNull();
    expect(gateway.keyIndex.find(apiKey)).toEqual({ prefix: apiKey.slice(0, 16), user: expect.objectContaining({ email: 'user0@example.com' }) });
  });

  it('refuses every regenerated key at once and finds the new ones, still one entry per user', () => {
    const { gateway } = twoProcesses();
    const users = createUsers(gateway, 500);
    const regenerated = users.map(({ id }) => gateway.users.regenerateKey(id, null, null)!);
    expect(gateway.keyIndex.size).toBe(500);
    users.forEach(({ id, apiKey }, index) => {
      expect(gateway.keyIndex.find(apiKey)).toBeNull();
      expect(gateway.keyIndex.find(regenerated[index]!.apiKey)?.user.id).toBe(id);
    });
  });

  it('answers with a disabled user, marked so, and with the email as changed', () => {
    const { gateway } = twoProcesses();
    const { user, apiKey } = gateway.users.create(apiUserInput({ email: 'before@example.com' }), null);
    gateway.users.update(user.id, apiUserInput({ email: 'after@example.com', enabled: false }), null);
    expect(gateway.keyIndex.find(apiKey)?.user).toMatchObject({ id: user.id, email: 'after@example.com', enabled: false });
    gateway.users.update(user.id, apiUserInput({ email: 'after@example.com', enabled: true }), null);
    expect(gateway.keyIndex.find(apiKey)?.user.enabled).toBe(true);
  });

  it('returns a user’s roles and own settings intact, and the shared defaults to everyone else', () => {
    const { gateway } = twoProcesses();
    const special = gateway.users.create(apiUserInput({ roles: ['admin', 'reports'], settings: OWN_SETTINGS }), null);
    const [first, second] = createUsers(gateway, 2).map(({ apiKey }) => apiKey) as [string, string];
    expect(gateway.keyIndex.find(special.apiKey)?.user).toMatchObject({ roles: ['admin', 'reports'], settings: { ...OWN_SETTINGS, rate_limits: [OWN_LIMIT] } });
    // The ids are admin data: kept for every such user, they would cost memory here (key-index.ts).
    expect(gateway.keyIndex.find(special.apiKey)?.user.settings.rate_limits).toEqual([OWN_LIMIT]);
    for (const apiKey of [first, second]) {
      const user = gateway.keyIndex.find(apiKey)!.user;
      expect(user.roles).toEqual([]);
      expect(user.settings).toBe(DEFAULT_USER_SETTINGS);
    }
    expect(gateway.keyIndex.find(first)!.user.roles).toBe(gateway.keyIndex.find(second)!.user.roles);

    gateway.users.update(special.user.id, apiUserInput(), null);
    expect(gateway.keyIndex.find(special.apiKey)?.user).toMatchObject({ roles: [], settings: DEFAULT_USER_SETTINGS });
  });

  it('finds a user whose settings, written by hand, hold no rate_limits list', () => {
    const { gateway } = twoProcesses();
    const { user, apiKey } = gateway.users.create(apiUserInput(), null);
    gateway.db.prepare('UPDATE api_users SET settings = ? WHERE id = ?').run('{"allowed_ips":["10.0.0.0/8"]}', user.id);
    expect(new KeyIndex(gateway.users, gateway.secretKey).find(apiKey)?.user.settings).toEqual({ allowed_ips: ['10.0.0.0/8'] });
  });

  it('gives the preview the store has, derived from the key or kept as imported', () => {
    const { gateway, cli } = twoProcesses();
    const { user, apiKey } = gateway.users.create(apiUserInput(), null);
    expect(gateway.keyIndex.find(apiKey)?.user.api_key_preview).toBe(gateway.users.get(user.id)!.api_key_preview);

    const importedKey = 'LegacyKeyFromUmbrella0123456789';
    importUser(cli, importedKey, 'Legacy…6789');
    gateway.keyIndex.refresh();
    expect(gateway.keyIndex.find(importedKey)?.user.api_key_preview).toBe('Legacy…6789');
  });

  it('finds an imported key shorter than the lookup prefix by that key alone', () => {
    const { gateway, cli } = twoProcesses();
    const id = importUser(cli, 'Ab3dE');
    gateway.keyIndex.refresh();
    expect(gateway.keyIndex.find('Ab3dE')?.user).toMatchObject({ id, api_key_preview: 'Ab3dE...', enabled: true, roles: [] });
    expect(gateway.keyIndex.find('Ab3dE')?.prefix).toBe('Ab3dE');
    for (const near of ['Ab3d', 'Ab3dEf', 'Ab3dE'.padEnd(40, 'x'), 'ab3dE']) expect(gateway.keyIndex.find(near)).toBeNull();
  });
});
