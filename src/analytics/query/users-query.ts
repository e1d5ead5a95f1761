// By Users sorts on its own columns, as API Umbrella's does (stats.lua
// _M.users: hits, last request or a user column), not on the logged fields
// Filter Logs sorts on: its order is read here, as `order=hits:desc` or as
// API Umbrella's By Users table sends it (DataTables' order[0][column]
// naming a columns[n][data]); the rest of the view by parseLogQuery.
import { parseDataTablesQuery } from '../../admin-api/data-tables.js';
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
  const asked = dataTablesOrder(view);
  if (!asked.ok) return asked;
  if (asked.order !== undefined && order !== undefined && order !== '') {
    return { ok: false, error: "order is given twice: send either order (e.g. hits:desc) or DataTables' order[0][column] with columns[n][data]" };
  }
  const usersOrder = asked.order ?? parseSortOrder(order, DEFAULT_USERS_ORDER, userColumnNamed);
  if (usersOrder === null) return { ok: false, error: `order must be a column of By Users (${USER_COLUMNS.join(', ')}), optionally followed by :asc or :desc (e.g. hits:desc)` };
  return { ok: true, query: { ...parsed.query, usersOrder } };
}

/** DataTables' parameters naming the order: order[i][column], order[i][dir] and columns[n][…]. */
const DATA_TABLES_ORDER_PARAM = /^(?:order|columns)\[/;

/**
 * The one column DataTables asks By Users to sort on (undefined when it asks
 * for none), read as the admin API's lists read it; an order By Users cannot
 * follow (a user detail it does not sort on, a second column) is refused
 * rather than dropped, so that pages taken in that order do not quietly come in another.
 */
function dataTablesOrder(params: Record<string, unknown>): { ok: true; order: UsersOrder | undefined } | { ok: false; error: string } {
  const orderParams = Object.fromEntries(Object.entries(params).filter(([name]) => DATA_TABLES_ORDER_PARAM.test(name)));
  const parsed = parseDataTablesQuery(orderParams, { orderable: ORDERABLE_NAMES });
  const sortsOn = `By Users sorts on one of ${ORDERABLE_NAMES.join(', ')}`;
  if (!parsed.ok) return { ok: false, error: `${parsed.errors.map((error) => `${error.field_label} ${error.message}`).join('; ')}: ${sortsOn}` };
  const [first, ...more] = parsed.value.order;
  if (more.length > 0) return { ok: false, error: `DataTables' order names more than one column: ${sortsOn}, ties broken by user id` };
  return { ok: true, order: first === undefined ? undefined : { field: userColumnNamed(first.column)!, direction: first.dir } };
}

/** users.json names the user's fields as API Umbrella does (`email`, `id`): they sort as the columns they are. */
const JSON_FIELD_COLUMNS: Readonly<Record<string, UserColumn>> = { email: 'user_email', id: 'user_id' };

/** Every name a column sorts by. */
const ORDERABLE_NAMES: readonly string[] = [...USER_COLUMNS, ...Object.keys(JSON_FIELD_COLUMNS)];

function userColumnNamed(name: string): UserColumn | undefined {
  return USER_COLUMNS.find((column) => column === name) ?? (Object.hasOwn(JSON_FIELD_COLUMNS, name) ? JSON_FIELD_COLUMNS[name] : undefined);
}
