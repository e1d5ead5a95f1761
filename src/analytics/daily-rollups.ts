// Daily hits per user and per IP (analytics_user_days, analytics_ip_days).
// The writer adds each batch in the same transaction as its rows; a batch is
// summed in memory first, so a thousand entries cost a few dozen upserts.
import type { Db } from '../store/db.js';
import type { AnalyticsEntry } from './log-entry.js';

export const DAY_MS = 86_400_000;

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

  /** Call inside the transaction that inserts the batch's rows. */
  add(batch: readonly AnalyticsEntry[]): void {
    const users = new Map<string, UserDay>();
    const ips = new Map<string, IpDay>();
    for (const entry of batch) {
      const denied = isDenied(entry) ? 1 : 0;
      const day = dayOf(entry.request_at);
      const ipKey = `${denied}|${day}|${entry.request_ip}`;
      const ipDay = ips.get(ipKey);
      if (ipDay === undefined) ips.set(ipKey, { denied, day, request_ip: entry.request_ip, hits: 1 });
      else ipDay.hits++;
      if (entry.user_id === null) continue;
      const userKey = `${denied}|${day}|${entry.user_id}`;
      const userDay = users.get(userKey);
      if (userDay === undefined) {
        users.set(userKey, { denied, day, user_id: entry.user_id, user_email: entry.user_email, hits: 1, last_request_at: entry.request_at });
      } else {
        userDay.hits++;
        userDay.last_request_at = Math.max(userDay.last_request_at, entry.request_at);
        userDay.user_email = entry.user_email ?? userDay.user_email;
      }
    }
    for (const row of users.values()) this.upsertUser(row);
    for (const row of ips.values()) this.upsertIp(row);
  }
}

/** The same test as the filter "gatekeeper_denied_code is empty", negated. */
export function isDenied(entry: Pick<AnalyticsEntry, 'gatekeeper_denied_code'>): boolean {
  return entry.gatekeeper_denied_code !== null && entry.gatekeeper_denied_code !== '';
}
