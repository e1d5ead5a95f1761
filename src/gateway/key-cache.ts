// Keys already verified, by their clear value, so a returning client costs a
// map read instead of an HMAC. The cache empties whenever the key index files
// or forgets a user: a write in this process (a disabled, regenerated or
// deleted key counts from the next request) or one by another process (the CLI), which
// the index takes in on its one-second refresh. Until then entries stay:
// emptying it every second instead made the garbage collector promote and
// later sweep every returning client's record (about 60 MB over 100,000
// requests from 10,000 keys).
import type { FoundKey, KeyIndex } from '../api-users/key-index.js';

/** About 300 bytes per entry besides the key (the record find() built for it); emptied when full rather than tracking recency. */
const MAX_ENTRIES = 50_000;

export class VerifiedKeyCache {
  private readonly verified = new Map<string, FoundKey>();
  private generation: number;

  constructor(private readonly index: Pick<KeyIndex, 'find' | 'generation'>) {
    this.generation = index.generation;
  }

  /** As KeyIndex.find. Unknown keys are not remembered, so guessing cannot fill the cache. */
  find(apiKey: string): FoundKey | null {
    if (this.index.generation !== this.generation || this.verified.size >= MAX_ENTRIES) this.clear();
    const cached = this.verified.get(apiKey);
    if (cached !== undefined) return cached;
    const record = this.index.find(apiKey);
    if (record !== null) this.verified.set(apiKey, record);
    return record;
  }

  private clear(): void {
    this.verified.clear();
    this.generation = this.index.generation;
  }
}
