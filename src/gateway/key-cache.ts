// Keys already verified, by their clear value, so a returning client costs a
// map read instead of an HMAC. Any change to any user empties it: a disabled
// user or a regenerated key counts from the next request.
import type { KeyIndex } from '../api-users/key-index.js';
import type { ApiUserRepository, KeyRecord } from '../api-users/repository.js';

/** About 100 bytes per entry; emptied when full rather than tracking recency. */
const MAX_ENTRIES = 50_000;

export class VerifiedKeyCache {
  private readonly verified = new Map<string, KeyRecord>();

  constructor(
    private readonly index: Pick<KeyIndex, 'find'>,
    users: Pick<ApiUserRepository, 'onChange'>,
  ) {
    users.onChange(() => this.verified.clear());
  }

  /** As KeyIndex.find. Unknown keys are not remembered, so guessing cannot fill the cache. */
  find(apiKey: string): KeyRecord | null {
    const cached = this.verified.get(apiKey);
    if (cached !== undefined) return cached;
    const record = this.index.find(apiKey);
    if (record !== null) {
      if (this.verified.size >= MAX_ENTRIES) this.verified.clear();
      this.verified.set(apiKey, record);
    }
    return record;
  }
}
