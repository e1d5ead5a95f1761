// Daily hits per user and per IP (analytics_user_days, analytics_ip_days).
// The writer adds each batch in the same transaction as its rows; a batch is
// summed in memory first, so a thousand entries cost a few dozen upserts.
import type { Db } from '../store/db.js';
import { fieldReader, type EntryBatch } from './entry-batch.js';
import { DAY_MS } from '../lib/iso-instant.js';
import type { RequestContext } from './request-contexts.js';

const requestAtOf = fieldReader('request_at');
const deniedCodeOf = fieldReader('gatekeeper_denied_code');

/** The UTC day number of an instant, as stored in the rollups. */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

interface UserDay {
  denied: number;
  day: number;
  user_id: string;
  user_email: string | null;
  hits: number;
  last_request_at: number;
}

interface IpDay {
  denied: number;
  day: number;
  request_ip: string;
  hits: number;
}

export class DailyRollups {
  private readonly upsertUser: (row: UserDay) => void;
  private readonly upsertIp: (row: IpDay) => void;

  constructor(db: Db) {
    const user = db.prepare(`INSERT INTO analytics_user_days (denied, day, user_id, user_email, hits, last_request_at)
      VALUES (@denied, @day, @user_id, @user_email, @hits, @last_request_at)
      ON CONFLICT (denied, day, user_id) DO UPDATE SET
        hits = hits + excluded.hits,
        last_request_at = max(last_request_at, excluded.last_request_at),
        user_email = coalesce(excluded.user_email, user_email)`);
    const ip = db.prepare(`INSERT INTO analytics_ip_days (denied, day, request_ip, hits) VALUES (@denied, @day, @request_ip, @hits)
      ON CONFLICT (denied, day, request_ip) DO UPDATE SET hits = hits + excluded.hits`);
    this.upsertUser = (row) => user.run(row);
    this.upsertIp = (row) => ip.run(row);
  }

  /**
   * Call inside the transaction that inserts the batch's rows, with each
   * entry's context; answers its IP rows (an IP once per day and denied or not).
   */
  add(batch: EntryBatch, contexts: readonly RequestContext[]): Iterable<{ readonly request_ip: string }> {
    const users = new Map<string, UserDay>();
    const ips = new Map<string, IpDay>();
    // Entries come in runs from the same client: the previous entry's rows are tried before a lookup.
    let ipDay: IpDay | undefined;
    let userDay: UserDay | undefined;
    for (let index = 0; index < batch.count; index++) {
      const requestAt = requestAtOf(batch, index);
      const deniedCode = deniedCodeOf(batch, index);
      // The same test as the filter "gatekeeper_denied_code is empty", negated.
      const denied = deniedCode !== null && deniedCode !== '' ? 1 : 0;
      const day = dayOf(requestAt);
      const context = contexts[index]!;
      const ip = context.ip;
      if (ipDay === undefined || ipDay.request_ip !== ip || ipDay.day !== day || ipDay.denied !== denied) ipDay = rowOf(ips, `${denied}|${day}|${ip}`, () => ({ denied, day, request_ip: ip, hits: 0 }));
      ipDay.hits++;
      const userId = context.userId;
      if (userId === null) continue;
      if (userDay === undefined || userDay.user_id !== userId || userDay.day !== day || userDay.denied !== denied) {
        userDay = rowOf(users, `${denied}|${day}|${userId}`, () => ({ denied, day, user_id: userId, user_email: null, hits: 0, last_request_at: requestAt }));
      }
      userDay.hits++;
      userDay.last_request_at = Math.max(userDay.last_request_at, requestAt);
      userDay.user_email = context.userEmail ?? userDay.user_email;
    }
    for (const row of users.values()) this.upsertUser(row);
    for (const row of ips.values()) this.upsertIp(row);
    return ips.values();
  }
}

function rowOf<Row>(rows: Map<string, Row>, key: string, create: () => Row): Row {
  let row = rows.get(key);
  if (row === undefined) {
    row = create();
    rows.set(key, row);
  }
  return row;
}
