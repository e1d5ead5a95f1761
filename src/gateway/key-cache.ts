// Keys already verified, by their clear value, so a returning client costs a
// map read instead of an HMAC. Any change to a user in this process empties
// it at once (a disabled user or a regenerated key counts from the next
// request); changes by another process (the CLI), which the key index picks
// up on its one-second refresh, are caught by emptying it every second too.
import type { FoundKey, KeyIndex } from '../api-users/key-index.js';
import type { ApiUserRepository } from '../api-users/repository.js';
import type { Clock } from '../lib/clock.js';

/** About 300 bytes per entry besides the key (the record find() built for it); emptied when full rather than tracking recency. */
const MAX_ENTRIES = 50_000;
/** As often as the key index refreshes from other processes' writes. */
const MAX_AGE_MS = 1000;

export class VerifiedKeyCache {
  private readonly verified = new Map<string, FoundKey>();
  private clearedAt: number;

  constructor(
    private readonly index: Pick<KeyIndex, 'find'>,
    users: Pick<ApiUserRepository, 'onChange'>,
    private readonly clock: Clock,
  ) {
    this.clearedAt = clock.now();
    users.onChange(() => this.clear());
  }

  /** As KeyIndex.find. Unknown keys are not remembered, so guessing cannot fill the cache. */
  find(apiKey: string): FoundKey | null {
    if (this.clock.now() - this.clearedAt >= MAX_AGE_MS || this.verified.size >= MAX_ENTRIES) this.clear();
    const cached = this.verified.get(apiKey);
    if (cached !== undefined) return cached;
    const record = this.index.find(apiKey);
    if (record !== null) this.verified.set(apiKey, record);
    return record;
  }

  private clear(): void {
    this.verified.clear();
    this.clearedAt = this.clock.now();
  }
}
