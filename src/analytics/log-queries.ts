// Reads the analytics log for the admin pages, the JSON endpoints and the
// CSV downloads. Every condition comes from a parsed LogQuery: whitelisted
// columns, bound values.
import type { Db } from '../store/db.js';
import { DAY_MS } from '../lib/iso-instant.js';
import type { Direction } from '../lib/sort-order.js';
import { drilldown, type Drilldown } from './drilldown-queries.js';
import { FIELDS, fieldNamed, type LoggedRow } from './fields.js';
import type { DateRange } from './query/date-range.js';
import { type FilterRule, type SqlCondition } from './query/filter-rules.js';
import { filtersSql, whereSql } from './query/where-sql.js';
import { buckets } from './query/intervals.js';
import type { DrilldownQuery } from './query/drilldown-prefix.js';
import { zoneOf, type LogQuery } from './query/log-query.js';
import type { MapQuery } from './query/map-region.js';
import { DEFAULT_USERS_ORDER, type UsersOrder, type UsersQuery } from './query/users-query.js';
import { locationMap, locationRows, type LevelHits, type LocationMap } from './location-queries.js';
import { searchStats, type SearchStats } from './search-stats.js';
import { userCsvRow, UserProfiles, type ApiUserHits } from './user-profiles.js';

export interface UserHits {
  readonly user_id: string;
  readonly user_email: string | null;
  readonly hits: number;
  readonly last_request_at: number;
}

export interface IpHits {
  readonly request_ip: string;
  readonly hits: number;
}

export interface ChartPoint {
  /** The interval's start, epoch ms. */
  readonly start_at: number;
  readonly hits: number;
}

export interface Summary {
  readonly hits: number;
  readonly unique_users: number;
  readonly unique_ips: number;
  /** Milliseconds; null without hits. */
  readonly average_response_time: number | null;
  readonly top_users: readonly UserHits[];
  readonly top_ips: readonly IpHits[];
  readonly chart: readonly ChartPoint[];
}

/** The view's statistics: summary() and search() show them in their own shapes. */
export interface Statistics {
  readonly hits: number;
  /** Every API user with hits in the view, most hits first. */
  readonly users: readonly UserHits[];
  /** Every client IP, most hits first. */
  readonly ips: readonly IpHits[];
  /** Milliseconds; null without hits. */
  readonly average_response_time: number | null;
  readonly chart: readonly ChartPoint[];
}

const TOP = 10;
const COLUMNS = FIELDS.map((info) => (info.sql === info.name ? info.name : `${info.sql} AS ${info.name}`)).join(', ');
/** The FIELDS in order for CSV: request_at, the first, as ISO 8601. */
const CSV_COLUMNS = `strftime('%Y-%m-%dT%H:%M:%fZ', request_at / 1000.0, 'unixepoch'), ${COLUMNS.replace(/^request_at, /, '')}`;
/** Ids a pass over a range takes, for a CSV in an order no index keeps (csvRowsByKey). */
export const CSV_IDS_PER_PASS = 50_000;

export class AnalyticsQueries {
  private readonly profiles: UserProfiles;

  constructor(private readonly db: Db) {
    this.profiles = new UserProfiles(db);
  }

  /** How many entries match (recordsFiltered). */
  count(query: LogQuery): number {
    const where = whereSql(query);
    return (this.db.prepare(`SELECT count(*) AS n FROM analytics_logs WHERE ${where.sql}`).get(...where.params) as { n: number }).n;
  }

  /** One page of matching entries in the query's order. */
  entries(query: LogQuery): LoggedRow[] {
    const where = whereSql(query);
    const { field, direction } = query.order;
    return this.db
      .prepare(`SELECT ${COLUMNS} FROM analytics_logs WHERE ${where.sql} ORDER BY ${field} ${direction}, id ${direction} LIMIT ? OFFSET ?`)
      .all(...where.params, query.limit, query.offset) as LoggedRow[];
  }

  /**
   * Every matching entry in the query's order (as entries() sorts a page), as
   * arrays of the FIELDS in order with request_at as ISO 8601, for CSV. Read
   * a batch at a time, each batch its own short query after the last row read
   * (keyset paging), so no statement stays open while the client downloads,
   * and memory stays flat whatever the size; arrays rather than objects keep
   * the garbage, and so the memory of a large download, small.
   */
  *csvRows(query: LogQuery, size = 1_000, idsPerPass = CSV_IDS_PER_PASS): Generator<unknown[]> {
    if (query.order.field === 'request_at') yield* this.csvRowsByTime(query, size);
    else yield* this.csvRowsByKey(query, size, idsPerPass);
  }

  /**
   * In time order, the time index's: each batch of `size` rows is read from
   * where the last one ended, (request_at, id) being the keyset.
   */
  private *csvRowsByTime(query: LogQuery, size: number): Generator<unknown[]> {
    const where = whereSql(query);
    const direction = query.order.direction;
    const order = `ORDER BY request_at ${direction}, id ${direction}`;
    // The last two columns are the keyset; they are cut off each row before it is handed out.
    const columns = `${CSV_COLUMNS}, request_at, id`;
    const first = this.db.prepare(`SELECT ${columns} FROM analytics_logs WHERE ${where.sql} ${order} LIMIT ?`).raw();
    const beyond = direction === 'asc' ? '>' : '<';
    const next = this.db.prepare(`SELECT ${columns} FROM analytics_logs WHERE ${where.sql} AND (request_at ${beyond} ? OR id ${beyond} ?) ${order} LIMIT ?`).raw();
    let batch = first.all(...where.params, size) as unknown[][];
    while (batch.length > 0) {
      const [at, id] = batch[batch.length - 1]!.slice(-2) as [number, number];
      for (const row of batch) {
        row.length -= 2;
        yield row;
      }
      if (batch.length < size) return;
      // The range ends (or starts) at the last row's time, so the index is read from there on, not from the range's end each time.
      const range = direction === 'asc' ? { ...query.range, startAt: at } : { ...query.range, endAt: at + 1 };
      batch = next.all(...whereSql({ ...query, range }).params, at, id, size) as unknown[][];
    }
  }

  /**
   * In the order of any other field, which no index keeps: finding the next
   * rows in that order reads every match of the range. So each pass over
   * them takes the ids of the next `idsPerPass` rows (8 bytes each; SQLite
   * keeps the keys it compares in its own bounded cache, spilling to a
   * temporary file), and the rows are then read by id, `size` at a time. The
   * keyset is (the field, id), NULLs where SQLite puts them. A download of n
   * rows makes n / idsPerPass passes: its time grows faster than its size,
   * its memory does not.
   */
  private *csvRowsByKey(query: LogQuery, size: number, idsPerPass: number): Generator<unknown[]> {
    const where = whereSql(query);
    const { field, direction } = query.order;
    // The field's SQL over analytics_logs: a column of the view (a context's by a lookup), or the IP's location by another.
    const key = fieldNamed(field)!.sql;
    const order = `ORDER BY ${key} ${direction}, id ${direction}`;
    const ids = (keyset: string) => this.db.prepare(`SELECT id FROM analytics_logs WHERE ${where.sql}${keyset} ${order} LIMIT ${idsPerPass}`).pluck();
    const first = ids('');
    const afterKey = ids(` AND ${afterNotNullKey(key, direction)}`);
    const afterNull = ids(` AND ${afterNullKey(key, direction)}`);
    const keyOf = this.db.prepare(`SELECT ${key} FROM analytics_logs WHERE id = ?`).pluck();
    const rows = this.db.prepare(`SELECT ${CSV_COLUMNS} FROM json_each(?) AS batch JOIN analytics_logs ON analytics_logs.id = batch.value ORDER BY batch.key`).raw();
    // One read transaction: the last id's key is read as the pass saw it.
    const pass = this.db.transaction((cursor: { key: unknown; id: number } | null) => {
      const found = (cursor === null ? first.all(...where.params) : cursor.key === null ? afterNull.all(...where.params, cursor.id) : afterKey.all(...where.params, cursor.key, cursor.key, cursor.id)) as number[];
      const last = found[found.length - 1];
      return { found, next: found.length < idsPerPass || last === undefined ? null : { key: keyOf.get(last), id: last } };
    });
    let cursor: { key: unknown; id: number } | null = null;
    do {
      const { found, next } = pass(cursor);
      for (let at = 0; at < found.length; at += size) {
        // Rows deleted since (retention) are left out.
        yield* rows.all(JSON.stringify(found.slice(at, at + size))) as unknown[][];
      }
      cursor = next;
    } while (cursor !== null);
  }

  /** API Drilldown: hits per host or path segment under the query's prefix. */
  drilldown(query: DrilldownQuery): Drilldown {
    return drilldown(this.db, query);
  }

  /** Highlights, top users and IPs, and hits per interval: summary.json and the Filter Logs page. */
  summary(query: LogQuery): Summary {
    const { hits, users, ips, average_response_time, chart } = this.statistics(query);
    return { hits, unique_users: users.length, unique_ips: ips.length, average_response_time, top_users: users.slice(0, TOP), top_ips: ips.slice(0, TOP), chart };
  }

  /** The same statistics in API Umbrella's search.json shape. */
  search(query: LogQuery): SearchStats {
    return searchStats(this.statistics(query), query.interval, zoneOf(query));
  }

  /** What summary() and search() answer: the view's hits, every user and IP with theirs, and hits per interval. */
  private statistics(query: LogQuery): Statistics {
    const users = this.userHits(query);
    const ips = this.ipHits(query);
    const chart = this.chart(query);
    const hits = chart.points.reduce((sum, point) => sum + point.hits, 0);
    return { hits, users, ips, average_response_time: hits === 0 ? null : chart.responseTimeTotal / hits, chart: chart.points };
  }

  /** By Users: hits and last request per API user, in the query's order. */
  users(query: UsersQuery): UserHits[] {
    return this.userHits(query, query.usersOrder);
  }

  /** users.json: one page of By Users with the users' profiles, and how many users the view has. */
  usersPage(query: UsersQuery): { total: number; data: ApiUserHits[] } {
    const users = this.users(query);
    return { total: users.length, data: this.profiles.join(users.slice(query.offset, query.offset + query.limit)) };
  }

  /** users.csv: every user of By Users in its order with their profile (USERS_CSV_COLUMNS), joined `size` users at a time. */
  *userCsvRows(query: UsersQuery, size = 1_000): Generator<unknown[]> {
    const users = this.users(query);
    for (let at = 0; at < users.length; at += size) yield* this.profiles.join(users.slice(at, at + size)).map(userCsvRow);
  }

  /**
   * Hits and last request per API user over the query's range and filters,
   * most hits first unless `order` says otherwise; ties go by user id, the
   * same way, so the reverse order is the reverse list and pages never overlap.
   * The email is the one of the user's last request (a rollup day keeps its latest): with
   * max() the only aggregate of its kind, SQLite takes a bare column from the row holding the max.
   */
  userHits(query: LogQuery, order: UsersOrder = DEFAULT_USERS_ORDER): UserHits[] {
    // Names from USER_COLUMNS only, each a column of the answer.
    const orderBy = `ORDER BY ${order.field} ${order.direction}, user_id ${order.direction}`;
    const rollup = rollupSql(query);
    const select = rollup
      ? {
          sql: `SELECT user_id, user_email, sum(hits) AS hits, max(last_request_at) AS last_request_at
                FROM analytics_user_days WHERE ${rollup.sql} GROUP BY user_id`,
          params: rollup.params,
        }
      : groupedSql('user_id', 'user_email, sum(hits) AS hits, max(last_request_at) AS last_request_at', 'count(*) AS hits, max(request_at) AS last_request_at', query);
    return this.db.prepare(`SELECT * FROM (${select.sql}) ${orderBy}`).all(...select.params) as UserHits[];
  }

  ipHits(query: LogQuery): IpHits[] {
    const select = ipHitsSql(query);
    return byHits(this.db.prepare(select.sql).all(...select.params) as IpHits[]);
  }

  /** By Location: hits per country, state or city. */
  locations(query: MapQuery): LocationMap {
    return locationMap(query.region, this.locationRows(query));
  }

  /** The level's locations with their hits, coordinates and states, and its Unknown hits, as locations() sums them. */
  locationRows(query: MapQuery): LevelHits {
    return locationRows(this.db, query, ipHitsSql(query));
  }

  /**
   * One indexed range count per bucket, all in one statement: cheaper than
   * grouping every row by a computed bucket (which SQLite sorts), and the
   * contexts a filter picks are picked once, not once per bucket. Each
   * bucket's count and time come back as one JSON pair.
   */
  private chart(query: LogQuery): { points: ChartPoint[]; responseTimeTotal: number } {
    const filters = filtersSql(query);
    const ranges = buckets(query.range, query.interval, zoneOf(query));
    const statement = this.db
      .prepare(
        `SELECT (SELECT json_array(count(*), total(response_time)) FROM analytics_logs
                 WHERE request_at >= bucket.value ->> 0 AND request_at < bucket.value ->> 1 AND ${filters.sql})
         FROM json_each(?) AS bucket ORDER BY bucket.key`,
      )
      .pluck();
    const sums = statement.all(...filters.params, JSON.stringify(ranges.map((bucket) => [bucket.from, bucket.to]))) as string[];
    let responseTimeTotal = 0;
    const points = ranges.map((bucket, index) => {
      const [hits, time] = JSON.parse(sums[index]!) as [number, number];
      responseTimeTotal += time;
      return { start_at: bucket.start, hits };
    });
    return { points, responseTimeTotal };
  }
}

/** request_ip and its hits in the view. */
function ipHitsSql(query: LogQuery): SqlCondition {
  const rollup = rollupSql(query);
  if (rollup === null) return groupedSql('request_ip', 'sum(hits) AS hits', 'count(*) AS hits', query);
  return { sql: `SELECT request_ip, sum(hits) AS hits FROM analytics_ip_days WHERE ${rollup.sql} GROUP BY request_ip`, params: rollup.params };
}

/**
 * The view's rows summed per context first (by its id, from the time index),
 * then per `column` of the contexts: a context's strings are read once, not
 * once per row.
 */
function groupedSql(column: 'user_id' | 'request_ip', aggregates: string, perContext: string, query: LogQuery): SqlCondition {
  const where = whereSql(query);
  return {
    sql: `SELECT ${column}, ${aggregates}
          FROM (SELECT context_id, ${perContext} FROM analytics_logs WHERE ${where.sql} GROUP BY context_id) AS per_context
          JOIN analytics_contexts ON analytics_contexts.id = per_context.context_id
          WHERE ${column} IS NOT NULL GROUP BY ${column}`,
    params: where.params,
  };
}

/**
 * The daily rollups answer a query over whole UTC days whose only filter is
 * on whether the gateway denied the request; anything else reads the rows.
 * So does a query limited to API scopes: the rollups know no hosts or paths.
 * A day of another analytics.timezone is seldom a UTC day (Europe/London's
 * are in winter), so views in such a zone mostly read the rows too.
 */
function rollupSql(query: LogQuery): SqlCondition | null {
  const denied = rollupDenied(query.rules);
  if (denied === null || query.search !== '' || query.scopes !== undefined || !onWholeDays(query.range)) return null;
  return {
    sql: `denied IN (${denied.map(() => '?').join(', ')}) AND day >= ? AND day < ?`,
    params: [...denied, query.range.startAt / DAY_MS, query.range.endAt / DAY_MS],
  };
}

function rollupDenied(rules: readonly FilterRule[]): number[] | null {
  if (rules.length === 0) return [0, 1];
  const [rule] = rules;
  if (rules.length > 1 || rule!.field !== 'gatekeeper_denied_code') return null;
  return rule!.operator === 'is_null' ? [0] : rule!.operator === 'is_not_null' ? [1] : null;
}

function onWholeDays(range: DateRange): boolean {
  return range.startAt % DAY_MS === 0 && range.endAt % DAY_MS === 0;
}

function byHits<T extends { hits: number }>(rows: T[]): T[] {
  return rows.sort((a, b) => b.hits - a.hits);
}

/**
 * The rows after a cursor (key, id) whose key is not NULL, in ORDER BY key
 * `direction`, id `direction`, where SQLite puts NULLs first ascending (so
 * none is left) and last descending (so all are); binds the key twice, then the id.
 */
function afterNotNullKey(key: string, direction: Direction): string {
  const [beyond, atOrBeyond] = direction === 'asc' ? ['>', '>='] : ['<', '<='];
  const after = `(${key} ${atOrBeyond} ? AND (${key} ${beyond} ? OR id ${beyond} ?))`;
  return direction === 'asc' ? after : `(${after} OR ${key} IS NULL)`;
}

/** The rows after a cursor whose key is NULL; binds the id. */
function afterNullKey(key: string, direction: Direction): string {
  return direction === 'asc' ? `(${key} IS NOT NULL OR id > ?)` : `(${key} IS NULL AND id < ?)`;
}
