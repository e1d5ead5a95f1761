// The WHERE clause of every analytics query: the time range, the filter
// rules, the free-text search and, for an admin who is not a superuser, the
// API scopes, all as bound parameters.
import { escapeLike, ruleSql, type SqlCondition } from './filter-rules.js';
import type { LogQuery, QueryScope } from './log-query.js';

const SEARCHED = ['request_path', 'request_url_query', 'user_email', 'request_ip'];

/**
 * The time range first (its two parameters lead), then every rule, then the
 * search, then the scopes. The parts are joined with AND, so no rule or
 * search can reach past the scopes.
 */
export function whereSql(query: Pick<LogQuery, 'range' | 'rules' | 'search' | 'scopes'>): SqlCondition {
  const parts = ['request_at >= ? AND request_at < ?'];
  const params: unknown[] = [query.range.startAt, query.range.endAt];
  const add = (condition: SqlCondition) => {
    parts.push(condition.sql);
    params.push(...condition.params);
  };
  for (const rule of query.rules) add(ruleSql(rule));
  if (query.search !== '') {
    add({ sql: `(${SEARCHED.map((column) => `${column} LIKE ? ESCAPE '\\'`).join(' OR ')})`, params: SEARCHED.map(() => `%${escapeLike(query.search)}%`) });
  }
  if (query.scopes !== undefined) add(scopesSql(query.scopes));
  return { sql: parts.join(' AND '), params };
}

/** A request within any of the scopes, in parentheses; none at all when there are no scopes. */
function scopesSql(scopes: readonly QueryScope[]): SqlCondition {
  if (scopes.length === 0) return { sql: '0', params: [] };
  const each = scopes.map(scopeSql);
  return { sql: `(${each.map((condition) => condition.sql).join(' OR ')})`, params: each.flatMap((condition) => condition.params) };
}

/**
 * The host as hostInScope (src/admin-groups/admin-access.ts) judges it, and
 * the path starting with the prefix, case and all. Not LIKE: it ignores
 * ASCII case and reads "%" and "_" as wildcards. Lengths are SQLite's own,
 * measured on the bound text, so they count what substr counts.
 */
function scopeSql(scope: QueryScope): SqlCondition {
  const path = { sql: 'substr(request_path, 1, length(?)) = ?', params: [scope.path_prefix, scope.path_prefix] };
  if (scope.host.includes(':')) return { sql: `(lower(request_host) = ? AND ${path.sql})`, params: [scope.host, ...path.params] };
  // Without a port, the scope covers the host on every port.
  const anyPort = `${scope.host}:`;
  return {
    sql: `((lower(request_host) = ? OR substr(lower(request_host), 1, length(?)) = ?) AND ${path.sql})`,
    params: [scope.host, anyPort, anyPort, ...path.params],
  };
}
