// The hot path's view of API keys: every key record in memory, by lookup
// prefix. Writes in this process reach it at once through the repository's
// change events; writes by another process (the CLI) are picked up by
// refresh(), which the context runs every second. A request never waits on
// SQLite to check a key.
import { lookupPrefix, tokenMatches } from '../lib/secret-token.js';
import type { ApiUserRepository, KeyRecord } from './repository.js';

export const MIN_KEY_LENGTH = 4;
export const MAX_KEY_LENGTH = 60;

export class KeyIndex {
  private readonly byPrefix = new Map<string, KeyRecord>();
  /** The prefix each user's record is filed under, to unfile it when the key changes. */
  private readonly prefixByUser = new Map<string, string>();
  private lastChangeSeq = 0;
  private lastDataVersion: number;

  constructor(
    private readonly repository: ApiUserRepository,
    private readonly secretKey: string,
  ) {
    this.lastDataVersion = repository.externalDataVersion();
    for (const record of repository.keyRecords()) this.file(record);
    repository.onChange((change) => this.file(change.record));
  }

  /** The record whose key this is, or null: wrong length, unknown prefix, or an HMAC mismatch. */
  find(apiKey: string): KeyRecord | null {
    if (apiKey.length < MIN_KEY_LENGTH || apiKey.length > MAX_KEY_LENGTH) return null;
    const record = this.byPrefix.get(lookupPrefix(apiKey));
    if (record === undefined || !tokenMatches(this.secretKey, apiKey, record.hash)) return null;
    return record;
  }

  /** Takes in users written by other processes since the last look; cheap when nothing changed. */
  refresh(): void {
    const dataVersion = this.repository.externalDataVersion();
    if (dataVersion === this.lastDataVersion) return;
    this.lastDataVersion = dataVersion;
    for (const record of this.repository.keyRecords(this.lastChangeSeq)) this.file(record);
  }

  get size(): number {
    return this.byPrefix.size;
  }

  private file(record: KeyRecord): void {
    const previous = this.prefixByUser.get(record.user.id);
    if (previous !== undefined && previous !== record.prefix) this.byPrefix.delete(previous);
    this.byPrefix.set(record.prefix, record);
    this.prefixByUser.set(record.user.id, record.prefix);
    if (record.changeSeq > this.lastChangeSeq) this.lastChangeSeq = record.changeSeq;
  }
}
