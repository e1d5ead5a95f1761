// Rate-limit counts over a restart (migration 029). The limiter counts in
// memory; a graceful stop writes the counts of windows ending a minute or
// more later, and the next start reads back those not ended since, so an
// upgrade or a restart does not give every key a fresh hour or day. Shorter
// windows are over before a restart is: not kept. A crash keeps nothing new
// (the counts from the last stop, which did happen, are read back again).
import type { Db } from '../store/db.js';
import type { Clock } from '../lib/clock.js';
import type { MemoryCounterStore } from './memory-store.js';

const KEPT_BEYOND_MS = 60_000;

export class KeptCounts {
  constructor(
    private readonly db: Db,
    private readonly counters: MemoryCounterStore,
    private readonly clock: Clock,
  ) {}

  /** At start, before the first request: answers how many counts came back. */
  load(): number {
    const rows = this.db.prepare('SELECT counter, expires_at, count FROM rate_limit_counts WHERE expires_at > ?').raw().iterate(this.clock.now()) as Iterable<[string, number, number]>;
    let loaded = 0;
    for (const [counter, expiresAt, count] of rows) {
      this.counters.restore(counter, expiresAt, count);
      loaded++;
    }
    return loaded;
  }

  /** At a graceful stop, once no request is counted any more: replaces what was kept; answers how many counts. */
  save(): number {
    const insert = this.db.prepare('INSERT INTO rate_limit_counts (counter, expires_at, count) VALUES (?, ?, ?)');
    return this.db.transaction(() => {
      this.db.prepare('DELETE FROM rate_limit_counts').run();
      let saved = 0;
      for (const [counter, expiresAt, count] of this.counters.countsEndingAfter(this.clock.now() + KEPT_BEYOND_MS)) {
        insert.run(counter, expiresAt, count);
        saved++;
      }
      return saved;
    })();
  }
}
