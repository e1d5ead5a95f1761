// The hot path's view of API keys: every key record in memory, by lookup
// prefix, kept current by the repository's change events. A request never
// waits on SQLite to check a key.
import { lookupPrefix, tokenMatches } from '../lib/secret-token.js';
import type { ApiUserRepository, KeyRecord } from './repository.js';

export const MIN_KEY_LENGTH = 4;
export const MAX_KEY_LENGTH = 60;

export class KeyIndex {
  private readonly byPrefix = new Map<string, KeyRecord>();

  constructor(
    repository: ApiUserRepository,
    private readonly secretKey: string,
  ) {
    for (const record of repository.keyRecords()) this.byPrefix.set(record.prefix, record);
    repository.onChange((change) => {
      if (change.previousPrefix !== null) this.byPrefix.delete(change.previousPrefix);
      this.byPrefix.set(change.record.prefix, change.record);
    });
  }

  /** The record whose key this is, or null: wrong length, unknown prefix, or an HMAC mismatch. */
  find(apiKey: string): KeyRecord | null {
    if (apiKey.length < MIN_KEY_LENGTH || apiKey.length > MAX_KEY_LENGTH) return null;
    const record = this.byPrefix.get(lookupPrefix(apiKey));
    if (record === undefined || !tokenMatches(this.secretKey, apiKey, record.hash)) return null;
    return record;
  }

  get size(): number {
    return this.byPrefix.size;
  }
}
