// By Users sorts on its own columns, as API Umbrella's does (stats.lua
// _M.users: hits, last request or a user column), not on the logged fields
// Filter Logs sorts on: its `order` is read here, the rest of the view by
// parseLogQuery.
import type { TimeZoneName } from '../../lib/time-zone.js';
import { parseSortOrder, type SortOrder } from '../../lib/sort-order.js';
import { parseLogQuery, type LogQuery, type LogQueryResult, type ViewDefaults } from './log-query.js';

/** The columns By Users sorts on (users.json, users.csv and the page's table): its own, not the details joined from api_users for the users answered. */
export const USER_COLUMNS = ['user_email', 'user_id', 'hits', 'last_request_at'] as const;
export type UserColumn = (typeof USER_COLUMNS)[number];
export type UsersOrder = SortOrder<UserColumn>;

export interface UsersQuery extends LogQuery {
  /** The list's order; `order`, the entries' order, is the default and unused. */
  readonly usersOrder: UsersOrder;
}

/** Most hits first. */
export const DEFAULT_USERS_ORDER: UsersOrder = { field: 'hits', direction: 'desc' };

export function parseUsersQuery(params: Record<string, unknown>, now: number, defaults?: ViewDefaults, zone?: TimeZoneName): { ok: true; query: UsersQuery } | { ok: false; error: string } {
  const { order, ...view } = params;
  const parsed: LogQueryResult = parseLogQuery(view, now, defaults, zone);
  if (!parsed.ok) return parsed;
  const usersOrder = parseSortOrder(order, DEFAULT_USERS_ORDER, userColumnNamed);
  if (usersOrder === null) return { ok: false, error: `order must be a column of By Users (${USER_COLUMNS.join(', ')}), optionally followed by :asc or :desc (e.g. hits:desc)` };
  return { ok: true, query: { ...parsed.query, usersOrder } };
}

/** users.json names the user's fields as API Umbrella does (`email`, `id`): they sort as the columns they are. */
const JSON_FIELD_COLUMNS: Readonly<Record<string, UserColumn>> = { email: 'user_email', id: 'user_id' };

function userColumnNamed(name: string): UserColumn | undefined {
  return USER_COLUMNS.find((column) => column === name) ?? (Object.hasOwn(JSON_FIELD_COLUMNS, name) ? JSON_FIELD_COLUMNS[name] : undefined);
}
