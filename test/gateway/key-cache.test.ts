// The verified-key cache in front of the key index: a returning key costs no
// HMAC, and any user filed by the index (here or by another process) empties it.
import { describe, expect, it } from 'vitest';
import type { KeyIndex } from '../../src/api-users/key-index.js';
import { VerifiedKeyCache } from '../../src/gateway/key-cache.js';
import { twoProcesses } from '../api-users/two-processes.js';
import { apiUserInput } from '../helpers/users.js';

const input = apiUserInput({ email: 'cached@example.com' });

/** The real index, counting the lookups that reach it. */
function counting(index: KeyIndex): Pick<KeyIndex, 'find' | 'generation'> & { lookups: number } {
  return {
    lookups: 0,
    get generation() {
      return index.generation;
    },
    find(apiKey: string) {
      this.lookups++;
      return index.find(apiKey);
    },
  };
}

describe('verified key cache', () => {
  it('answers a returning key without asking the index again while no user is filed', () => {
    const { gateway } = twoProcesses();
    const { apiKey } = gateway.users.create(input, 'admin');
    const index = counting(gateway.keyIndex);
    const cache = new VerifiedKeyCache(index);
    for (let call = 0; call < 5; call++) expect(cache.find(apiKey)?.user.email).toBe('cached@example.com');
    expect(index.lookups).toBe(1);
  });

  it('sees a user disabled in this process at the next lookup', () => {
    const { gateway } = twoProcesses();
    const { user, apiKey } = gateway.users.create(input, 'admin');
    const cache = new VerifiedKeyCache(gateway.keyIndex);
    expect(cache.find(apiKey)?.user.enabled).toBe(true);
    gateway.users.update(user.id, { ...input, enabled: false }, null);
    expect(cache.find(apiKey)?.user.enabled).toBe(false);
  });

  it("forgets a key another process regenerated once the index's refresh took the change in", () => {
    const { gateway, cli } = twoProcesses();
    const { user, apiKey } = gateway.users.create(input, 'admin');
    const cache = new VerifiedKeyCache(gateway.keyIndex);
    expect(cache.find(apiKey)).not.toBeNull();
    const regenerated = cli.users.regenerateKey(user.id, null, null)!;
    gateway.keyIndex.refresh();
    expect(cache.find(apiKey)).toBeNull();
    expect(cache.find(regenerated.apiKey)?.user.id).toBe(user.id);
  });

  it('does not remember unknown keys', () => {
    const { gateway } = twoProcesses();
    const index = counting(gateway.keyIndex);
    const cache = new VerifiedKeyCache(index);
    expect(cache.find('no-such-key-0123456789')).toBeNull();
    expect(cache.find('no-such-key-0123456789')).toBeNull();
    expect(index.lookups).toBe(2);
  });
});
