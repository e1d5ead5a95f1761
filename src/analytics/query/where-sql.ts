// The WHERE clause of every analytics query: the time range, the filter
// rules and the free-text search, all as bound parameters.
import { escapeLike, ruleSql, type SqlCondition } from './filter-rules.js';
import type { LogQuery } from './log-query.js';

const SEARCHED = ['request_path', 'request_url_query', 'user_email', 'request_ip'];

/** The time range first (its two parameters lead), then every rule, then the search. */
export function whereSql(query: Pick<LogQuery, 'range' | 'rules' | 'search'>): SqlCondition {
  const parts = ['request_at >= ? AND request_at < ?'];
  const params: unknown[] = [query.range.startAt, query.range.endAt];
  for (const rule of query.rules) {
    const condition = ruleSql(rule);
    parts.push(condition.sql);
    params.push(...condition.params);
  }
  if (query.search !== '') {
    parts.push(`(${SEARCHED.map((column) => `${column} LIKE ? ESCAPE '\\'`).join(' OR ')})`);
    params.push(...SEARCHED.map(() => `%${escapeLike(query.search)}%`));
  }
  return { sql: parts.join(' AND '), params };
}
