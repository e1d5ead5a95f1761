// By Users for scripts in API Umbrella's shape (stats.lua _M.users): each
// user's hits and last request in the view with their profile from
// api_users, joined only for the users answered (a page of users.json, a
// batch of users.csv), by id. A user deleted since keeps the id and email of
// their log entries; the rest of their profile is null.
import type { Db } from '../store/db.js';
import type { UserHits } from './log-queries.js';

/** A row of users.json, its keys in API Umbrella's order. */
export interface ApiUserHits {
  readonly id: string;
  readonly email: string | null;
  readonly first_name: string | null;
  readonly last_name: string | null;
  readonly website: string | null;
  readonly registration_source: string | null;
  /** ISO 8601 to the second: "2015-01-16T00:00:00Z". */
  readonly created_at: string | null;
  readonly hits: number;
  /** ISO 8601 to the second. */
  readonly last_request_at: string;
  readonly use_description: string | null;
}

/** users.csv's header line, API Umbrella's; times in UTC as "2015-01-16 00:00:00". */
export const USERS_CSV_COLUMNS = ['Email', 'First Name', 'Last Name', 'Website', 'Registration Source', 'Signed Up (UTC)', 'Hits', 'Last Request (UTC)', 'Use Description'];

interface Profile {
  readonly id: string;
  readonly email: string;
  readonly first_name: string | null;
  readonly last_name: string | null;
  readonly website: string | null;
  readonly registration_source: string | null;
  readonly created_at: string;
  readonly use_description: string | null;
}

export class UserProfiles {
  private statement: ReturnType<Db['prepare']> | null = null;

  constructor(private readonly db: Db) {}

  /** The users with their profiles, in the same order. */
  join(users: readonly UserHits[]): ApiUserHits[] {
    if (users.length === 0) return [];
    this.statement ??= this.db.prepare(
      `SELECT id, email, first_name, last_name, website, registration_source, created_at, use_description
       FROM api_users WHERE id IN (SELECT value FROM json_each(?))`,
    );
    const profiles = new Map((this.statement.all(JSON.stringify(users.map((user) => user.user_id))) as Profile[]).map((profile) => [profile.id, profile]));
    return users.map((user) => {
      const profile = profiles.get(user.user_id);
      return {
        id: user.user_id,
        email: profile?.email ?? user.user_email,
        first_name: profile?.first_name ?? null,
        last_name: profile?.last_name ?? null,
        website: profile?.website ?? null,
        registration_source: profile?.registration_source ?? null,
        created_at: profile === undefined ? null : isoSeconds(Date.parse(profile.created_at)),
        hits: user.hits,
        last_request_at: isoSeconds(user.last_request_at),
        use_description: profile?.use_description ?? null,
      };
    });
  }
}

/** A line of users.csv, in USERS_CSV_COLUMNS' order. */
export function userCsvRow(user: ApiUserHits): unknown[] {
  return [user.email, user.first_name, user.last_name, user.website, user.registration_source, csvTime(user.created_at), user.hits, csvTime(user.last_request_at), user.use_description];
}

/** As API Umbrella's time.timestamp_ms_to_iso8601: no milliseconds, "Z". */
function isoSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** "2015-01-16T00:00:00Z" as "2015-01-16 00:00:00", as API Umbrella's time.iso8601_to_csv. */
function csvTime(iso: string | null): string | null {
  return iso === null ? null : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}
