// Users › API Users' table: API Umbrella's columns (admin-ui
// app/components/api-users/index-table.js: E-mail, First Name, Last Name,
// Purpose, Created, Registration Source, API Key) in its order, then
// Parasol's roles and key status; the order a header sorts by; and the
// list's links, which keep its search, status and order.
import type { KeyStatus, UserOrder, UserOrderColumn } from '../../api-users/repository.js';
import { formatOrder, parseSortOrder, toggledOrder, type Direction, type SortOrder } from '../../lib/sort-order.js';

export type ListOrder = SortOrder<UserOrderColumn>;

interface ListColumn {
  readonly label: string;
  /** The list order its header sorts by (each has an index: migrations 001, 019 and 021); null: not sortable, as in API Umbrella. */
  readonly order: UserOrderColumn | null;
  /** Which way a first click sorts: texts from A, times from the newest (DataTables starts from A for all). */
  readonly first?: Direction;
}

const COLUMNS: readonly ListColumn[] = [
  { label: 'Email', order: 'email', first: 'asc' },
  { label: 'First Name', order: 'first_name', first: 'asc' },
  { label: 'Last Name', order: 'last_name', first: 'asc' },
  { label: 'Purpose', order: 'use_description', first: 'asc' },
  { label: 'Created', order: 'created_at', first: 'desc' },
  { label: 'Registration Source', order: 'registration_source', first: 'asc' },
  { label: 'API Key', order: null },
  { label: 'Roles', order: null },
  { label: 'Status', order: null },
];

/** The list's own order but for "expiring" keys (soonest to end first): API Umbrella's too. */
const NEWEST_FIRST: ListOrder = { field: 'created_at', direction: 'desc' };

/**
 * The order asked for (`order=first_name:asc`), or null for the list's own:
 * absent, or naming no sortable column (an old or mistyped link shows the
 * list, as an unknown status does, rather than an error page).
 */
export function parseListOrder(raw: unknown): ListOrder | null {
  if (raw === undefined || raw === '') return null;
  return parseSortOrder(raw, NEWEST_FIRST, sortableColumn);
}

/** The order as the repository's list takes it; undefined for the list's own. */
export function repositoryOrder(order: ListOrder | null): readonly UserOrder[] | undefined {
  return order === null ? undefined : [{ column: order.field, dir: order.direction }];
}

export interface ListState {
  readonly search: string;
  /** '' for every key. */
  readonly status: KeyStatus | '';
  readonly order: ListOrder | null;
}

export interface ColumnHeader {
  readonly label: string;
  /** Null for a column that does not sort. */
  readonly sortUrl: string | null;
  readonly sorted: Direction | null;
}

/** What the list's template shows of its state beyond the rows: headers, the order for the search form to keep, and the pager's links. */
export function listView(state: ListState): { columns: ColumnHeader[]; orderParam: string; pageUrl: (page: number) => string } {
  return { columns: columnHeaders(state), orderParam: state.order === null ? '' : formatOrder(state.order), pageUrl: (page) => listUrl(state, page) };
}

/** The headers, each sortable one a link that sorts by it (from the first page), the current order marked. */
function columnHeaders(state: ListState): ColumnHeader[] {
  // Without an order asked for, the list is newest first, unless it shows the keys about to end.
  const shown = state.order ?? (state.status === 'expiring' ? null : NEWEST_FIRST);
  return COLUMNS.map(({ label, order, first }) => ({
    label,
    sortUrl: order === null ? null : listUrl({ ...state, order: toggledOrder(shown, order, first) }),
    sorted: order !== null && shown?.field === order ? shown.direction : null,
  }));
}

/** The list's URL, at `page` (from 1) when given (the pager's links), else its first; keeping its search, status and order. */
function listUrl(state: ListState, page?: number): string {
  const params = new URLSearchParams();
  if (page !== undefined) params.set('page', String(page));
  if (state.search !== '') params.set('search', state.search);
  if (state.status !== '') params.set('status', state.status);
  if (state.order !== null) params.set('order', formatOrder(state.order));
  const query = params.toString();
  return query === '' ? '/admin/api_users' : `/admin/api_users?${query}`;
}

function sortableColumn(name: string): UserOrderColumn | undefined {
  return COLUMNS.find((column) => column.order === name)?.order ?? undefined;
}
