// Reads the analytics log for the admin pages, the JSON endpoints and the
// CSV downloads. Every condition comes from a parsed LogQuery: whitelisted
// columns, bound values.
import type { Db } from '../store/db.js';
import { DAY_MS } from '../lib/iso-instant.js';
import { drilldown, type Drilldown } from './drilldown-queries.js';
import { FIELDS, type LoggedRow } from './fields.js';
import type { DateRange } from './query/date-range.js';
import { type FilterRule, type SqlCondition } from './query/filter-rules.js';
import { filtersSql, whereSql } from './query/where-sql.js';
import { buckets } from './query/intervals.js';
import type { DrilldownQuery } from './query/drilldown-prefix.js';
import type { LogQuery } from './query/log-query.js';
import type { MapQuery } from './query/map-region.js';
import { locationMap, locationRows, type LocationMap, type PlaceHits } from './location-queries.js';

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

const TOP = 10;
const COLUMNS = FIELDS.map((info) => (info.sql === info.name ? info.name : `${info.sql} AS ${info.name}`)).join(', ');

export class AnalyticsQueries {
  constructor(private readonly db: Db) {}

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
   * Every matching entry, newest first, as arrays of the FIELDS in order with
   * request_at as ISO 8601, for CSV. Read `size` at a time, each batch its own
   * short query (keyset paging), so no statement stays open while the client
   * downloads; arrays rather than objects keep the garbage, and so the
   * memory of a large download, small.
   */
  *csvRows(query: LogQuery, size = 1_000): Generator<unknown[]> {
    const where = whereSql(query);
    // The last two columns are the keyset (request_at in ms, id); they are cut off each row before it is handed out.
    const columns = `strftime('%Y-%m-%dT%H:%M:%fZ', request_at / 1000.0, 'unixepoch'), ${COLUMNS.replace(/^request_at, /, '')}, request_at, id`;
    const first = this.db.prepare(`SELECT ${columns} FROM analytics_logs WHERE ${where.sql} ORDER BY request_at DESC, id DESC LIMIT ?`).raw();
    const next = this.db
      .prepare(`SELECT ${columns} FROM analytics_logs WHERE ${where.sql} AND request_at <= ? AND (request_at < ? OR id < ?) ORDER BY request_at DESC, id DESC LIMIT ?`)
      .raw();
    let batch = first.all(...where.params, size) as unknown[][];
    while (batch.length > 0) {
      const last = batch[batch.length - 1]!;
      const [at, id] = last.slice(-2);
      for (const row of batch) {
        row.length -= 2;
        yield row;
      }
      if (batch.length < size) return;
      batch = next.all(...where.params, at, at, id, size) as unknown[][];
    }
  }

  /** API Drilldown: hits per host or path segment under the query's prefix. */
  drilldown(query: DrilldownQuery): Drilldown {
    return drilldown(this.db, query);
  }

  /** Highlights, top users and IPs, and hits per interval. */
  summary(query: LogQuery): Summary {
    const users = this.userHits(query);
    const ips = this.ipHits(query);
    const chart = this.chart(query);
    const hits = chart.points.reduce((sum, point) => sum + point.hits, 0);
    return {
      hits,
      unique_users: users.length,
      unique_ips: ips.length,
      average_response_time: hits === 0 ? null : chart.responseTimeTotal / hits,
      top_users: users.slice(0, TOP),
      top_ips: ips.slice(0, TOP),
      chart: chart.points,
    };
  }

  /**
   * Hits and last request per API user over the query's range and filters, most hits first.
   * The email is the one of the user's last request (a rollup day keeps its latest): with
   * max() the only aggregate of its kind, SQLite takes a bare column from the row holding the max.
   */
  userHits(query: LogQuery): UserHits[] {
    const rollup = rollupSql(query);
    const rows = rollup
      ? this.db
          .prepare(
            `SELECT user_id, user_email, sum(hits) AS hits, max(last_request_at) AS last_request_at
             FROM analytics_user_days WHERE ${rollup.sql} GROUP BY user_id`,
          )
          .all(...rollup.params)
      : this.grouped('user_id', 'user_email, sum(hits) AS hits, max(last_request_at) AS last_request_at', 'count(*) AS hits, max(request_at) AS last_request_at', query);
    return byHits(rows as UserHits[]);
  }

  ipHits(query: LogQuery): IpHits[] {
    const select = ipHitsSql(query);
    return byHits(this.db.prepare(select.sql).all(...select.params) as IpHits[]);
  }

  /** By Location: hits per country, state or city. */
  locations(query: MapQuery): LocationMap {
    return locationMap(query.region, this.locationRows(query));
  }

  /** The level's locations with their hits, coordinates and states, as locations() sums them. */
  locationRows(query: MapQuery): PlaceHits[] {
    return locationRows(this.db, query, ipHitsSql(query));
  }

  private grouped(column: 'user_id' | 'request_ip', aggregates: string, perContext: string, query: LogQuery): unknown[] {
    const select = groupedSql(column, aggregates, perContext, query);
    return this.db.prepare(select.sql).all(...select.params);
  }

  /**
   * One indexed range count per bucket, all in one statement: cheaper than
   * grouping every row by a computed bucket (which SQLite sorts), and the
   * contexts a filter picks are picked once, not once per bucket. Each
   * bucket's count and time come back as one JSON pair.
   */
  private chart(query: LogQuery): { points: ChartPoint[]; responseTimeTotal: number } {
    const filters = filtersSql(query);
    const ranges = buckets(query.range, query.interval);
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
