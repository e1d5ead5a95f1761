// The WHERE clause of every analytics query: the time range, the filter
// rules, the free-text search and, for an admin who is not a superuser, the
// API scopes, all as bound parameters.
import { escapeLike, inContexts, ruleSql, type SqlCondition } from './filter-rules.js';
import type { LogQuery, QueryScope } from './log-query.js';

/** The entry's own fields the search reads, then those of its context. */
const SEARCHED_OWN = ['request_path', 'request_url_query'];
const SEARCHED_CONTEXT = ['user_email', 'request_ip'];

/**
 * The time range first (its two parameters lead), then the filters
 * (filtersSql). The parts are joined with AND, so no rule or search can
 * reach past the scopes.
 */
export function whereSql(query: Pick<LogQuery, 'range' | 'rules' | 'search' | 'scopes'>): SqlCondition {
  const filters = filtersSql(query);
  return { sql: `request_at >= ? AND request_at < ? AND ${filters.sql}`, params: [query.range.startAt, query.range.endAt, ...filters.params] };
}

/** Every rule, then the search, then the scopes, without the time range; "1" without any. */
export function filtersSql(query: Pick<LogQuery, 'rules' | 'search' | 'scopes'>): SqlCondition {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (condition: SqlCondition) => {
    parts.push(condition.sql);
    params.push(...condition.params);
  };
  for (const rule of query.rules) add(ruleSql(rule));
  if (query.search !== '') add(searchSql(query.search));
  if (query.scopes !== undefined) add(scopesSql(query.scopes));
  return { sql: parts.length === 0 ? '1' : parts.join(' AND '), params };
}

/** The text anywhere in the path, the query, the user's email or the IP. */
function searchSql(search: string): SqlCondition {
  const like = (columns: string[]) => columns.map((column) => `${column} LIKE ? ESCAPE '\\'`).join(' OR ');
  const context = inContexts({ sql: like(SEARCHED_CONTEXT), params: SEARCHED_CONTEXT.map(() => `%${escapeLike(search)}%`) });
  return { sql: `(${like(SEARCHED_OWN)} OR ${context.sql})`, params: [...SEARCHED_OWN.map(() => `%${escapeLike(search)}%`), ...context.params] };
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
