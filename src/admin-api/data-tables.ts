// The lists of the admin API as DataTables (and so API Umbrella's admin)
// asks for them: paging, the search text, the orders, and the answer with
// its counts and `draw`. In API Umbrella's words and 422s (its
// web-app/utils/datatables.lua).
import type { FastifyReply } from 'fastify';

/**
 * DataTables-style paging parameters (start, length) with sane bounds. A list
 * that is always small and in memory (API backends) passes Infinity for both:
 * without a length it answers every row, as API Umbrella does.
 */
export function paging(
  query: Record<string, unknown>,
  { defaultLength = 100, maxLength = 1000 }: { defaultLength?: number; maxLength?: number } = {},
): { offset: number; limit: number } {
  const start = Number(query.start ?? 0);
  const length = Number(query.length ?? defaultLength);
  return {
    offset: Number.isInteger(start) && start >= 0 ? start : 0,
    limit: Number.isInteger(length) && length > 0 ? Math.min(length, maxLength) : defaultLength,
  };
}

/** The search's parameters as a list may send them: DataTables adds search[regex]. */
const SEARCH_FORMS = new Set(['search', 'search[value]', 'search[regex]']);

function isSearchParameter(name: string): boolean {
  return name === 'search' || name.startsWith('search[');
}

/** The search text: `search`, or `search[value]` as DataTables (and API Umbrella's admin) sends it. */
export function searchText(query: Record<string, unknown>): string | undefined {
  const value = query.search ?? query['search[value]'];
  return typeof value === 'string' ? value : undefined;
}

/** DataTables' request counter, answered back so a table can drop stale answers. */
export function drawOf(query: Record<string, unknown>): number {
  const draw = Number(query.draw ?? 0);
  return Number.isInteger(draw) && draw >= 0 ? draw : 0;
}

/** One `order[i]` of a DataTables query: the column it names (`columns[n][data]`) and the direction. */
export interface ColumnOrder<Column extends string = string> {
  readonly column: Column;
  readonly dir: 'asc' | 'desc';
}

/** A list's DataTables parameters, read as API Umbrella reads them (web-app/utils/datatables.lua). */
export interface DataTablesQuery<Column extends string = string> {
  readonly draw: number;
  readonly offset: number;
  readonly limit: number;
  /** '' for none. */
  readonly search: string;
  /** In the order of their `order[i]` indexes, as numbers (order[2] before order[12]); [] when none is asked for. */
  readonly order: readonly ColumnOrder<Column>[];
}

/** One reason a list's parameters were refused, in API Umbrella's shape. */
export interface DataTablesError {
  readonly code: 'INVALID_INPUT';
  readonly field: string;
  readonly field_label: string;
  readonly message: string;
}

/**
 * Reads start, length, draw, search and the orders as API Umbrella does,
 * refusing (as it does, with 422) a start, length or draw that is no number,
 * and an order naming no column of `orderable`, a column index not among
 * `columns[n]`, or a direction other than asc and desc. A number that is
 * no page (a negative length, as DataTables sends for "all") takes the default.
 */
export function parseDataTablesQuery<Column extends string>(
  query: Record<string, unknown>,
  { orderable, defaultLength = Infinity, maxLength = Infinity }: { orderable: readonly Column[]; defaultLength?: number; maxLength?: number },
): { ok: true; value: DataTablesQuery<Column> } | { ok: false; errors: DataTablesError[] } {
  const errors: DataTablesError[] = [];
  const refuse = (field: string, field_label: string, message: string) => errors.push({ code: 'INVALID_INPUT', field, field_label, message });
  for (const field of ['length', 'start', 'draw']) {
    if (!isEmptyParameter(query[field]) && !isNumber(query[field])) refuse(field, field, 'is not a number');
  }
  // A search given twice or as a list is refused, not read as no search: a script acting on what its search found would act on every row.
  for (const field of Object.keys(query).filter(isSearchParameter)) {
    if (!SEARCH_FORMS.has(field) || typeof query[field] !== 'string') refuse('search', field, 'is not a string');
  }

  const { rows: columns, plain: plainColumns } = bracketedRows(query, 'columns');
  const { rows: orders, plain: plainOrder } = bracketedRows(query, 'order');
  if (plainColumns) refuse('columns', 'columns', 'is not an object');
  if (plainOrder) refuse('order', 'order', 'is not an object');
  const columnIndexes = new Map<number, Map<string, unknown>>();
  for (const [index, column] of columns) {
    if (isNumber(index)) columnIndexes.set(Number(index), column);
    else refuse('columns', `columns[${index}]`, 'is not a number');
  }

  const order: { at: number; order: ColumnOrder<Column> }[] = [];
  for (const [index, row] of orders) {
    const [column, dir] = [row.get('column'), row.get('dir')];
    if (!isNumber(index)) {
      refuse('order', `order[${index}]`, 'is not a number');
      continue;
    }
    const direction = isEmptyParameter(dir) ? 'asc' : dir;
    if (direction !== 'asc' && direction !== 'desc') refuse('dir', `order[${index}][dir]`, "must be 'asc' or 'desc'");
    if (isEmptyParameter(column)) continue;
    if (!isNumber(column)) {
      refuse('column', `order[${index}][column]`, 'is not a number');
      continue;
    }
    const named = columnIndexes.get(Number(column));
    if (named === undefined) {
      refuse('column', `order[${index}][column]`, 'is not a valid column index');
      continue;
    }
    const data = named.get('data');
    if (!orderable.includes(data as Column)) {
      refuse('data', `columns[${column}][data]`, 'is not a valid orderable column name');
      continue;
    }
    if (direction === 'asc' || direction === 'desc') order.push({ at: Number(index), order: { column: data as Column, dir: direction } });
  }
  if (errors.length > 0) return { ok: false, errors };

  return {
    ok: true,
    value: {
      draw: drawOf(query),
      ...paging(query, { defaultLength, maxLength }),
      search: searchText(query) ?? '',
      order: order.sort((a, b) => a.at - b.at).map((entry) => entry.order),
    },
  };
}

/** 422 for parameters parseDataTablesQuery refused: {"errors":[{code, field, field_label, message}]}, as API Umbrella answers. */
export function sendDataTablesErrors(reply: FastifyReply, errors: readonly DataTablesError[]): FastifyReply {
  return reply.code(422).send({ errors });
}

/** What a row is ordered by: text ignoring case; null (no value) before any other, as SQLite orders it (and so the users list). */
export type SortValue = string | number | boolean | null;

/** How an in-memory list searches and orders its rows. */
export interface DataTablesList<T> {
  /** The columns `order` may name, each with the value a row is ordered by. */
  readonly orderable: Readonly<Record<string, (row: T) => SortValue>>;
  /** Whether a row holds the search (never called with ''); see textSearch. Without it the list takes no search. */
  readonly matches?: (row: T, search: string) => boolean;
  /** The order when none is asked for; without it, the rows' own. */
  readonly defaultOrder?: readonly ColumnOrder[];
}

export interface DataTablesAnswer<T> {
  readonly draw: number;
  readonly recordsTotal: number;
  readonly recordsFiltered: number;
  readonly data: T[];
}

/**
 * A list small enough to hold in memory, as a DataTables answer: the rows
 * holding the search, in the order asked for (ties in the list's own), and of
 * those every one unless `length` asks for fewer (API Umbrella has no default limit).
 */
export function dataTablesPage<T>(query: DataTablesQuery, rows: readonly T[], list: DataTablesList<T>): DataTablesAnswer<T> {
  const found = query.search === '' || list.matches === undefined ? [...rows] : rows.filter((row) => list.matches!(row, query.search));
  const order = query.order.length > 0 ? query.order : (list.defaultOrder ?? []);
  if (order.length > 0) {
    const keys = order.map(({ column, dir }) => ({ value: list.orderable[column]!, sign: dir === 'desc' ? -1 : 1 }));
    // Array.prototype.sort is stable: rows equal in every column keep the list's own order.
    found.sort((a, b) => {
      for (const { value, sign } of keys) {
        const compared = compareSortValues(value(a), value(b));
        if (compared !== 0) return sign * compared;
      }
      return 0;
    });
  }
  return { draw: query.draw, recordsTotal: found.length, recordsFiltered: found.length, data: found.slice(query.offset, query.offset + query.limit) };
}

/**
 * An in-memory list's answer to a GET: 422 for parameters it cannot read
 * (before the rows are read), else the page of `rows()`, each as `present`
 * answers it (given the page alone, so that what a row answers beyond its own
 * fields is read for that page, once).
 */
export function sendDataTablesPage<T, Shown>(
  reply: FastifyReply,
  query: unknown,
  list: DataTablesList<T>,
  rows: () => readonly T[],
  present: (page: T[]) => Shown[],
): FastifyReply | DataTablesAnswer<Shown> {
  const parsed = parseDataTablesQuery(query as Record<string, unknown>, { orderable: Object.keys(list.orderable) });
  if (!parsed.ok) return sendDataTablesErrors(reply, parsed.errors);
  const page = dataTablesPage(parsed.value, rows(), list);
  return { ...page, data: present(page.data) };
}

/**
 * API Umbrella's list search: the whole id (ignoring case), or any part of
 * one of the texts ignoring case; `%`, `_` and `\` are plain characters, as its
 * escaped ILIKE makes them.
 */
export function textSearch<T extends { readonly id: string }>(texts: (row: T) => readonly (string | null)[]): (row: T, search: string) => boolean {
  return (row, search) => {
    const needle = search.toLowerCase();
    return row.id.toLowerCase() === needle || texts(row).some((text) => text !== null && text.toLowerCase().includes(needle));
  };
}

function compareSortValues(a: SortValue, b: SortValue): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === 'string' && typeof b === 'string') {
    const [lowerA, lowerB] = [a.toLowerCase(), b.toLowerCase()];
    if (lowerA !== lowerB) return lowerA < lowerB ? -1 : 1;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Absent, or sent empty (`length=`): API Umbrella's validations let both pass. */
function isEmptyParameter(value: unknown): boolean {
  return value === undefined || value === '';
}

/** A parameter API Umbrella reads as a number (Lua's tonumber): one value, not repeated, that is a finite number and nothing else. */
function isNumber(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value));
}

/**
 * The numbered rows of a bracketed parameter as the query string sends them
 * (`order[0][column]=1&order[0][dir]=desc` → "0" → {column, dir}), and whether
 * it was also sent as a value of its own (`order=name`), which is no object.
 */
function bracketedRows(query: Record<string, unknown>, name: string): { rows: Map<string, Map<string, unknown>>; plain: boolean } {
  const rows = new Map<string, Map<string, unknown>>();
  const prefix = `${name}[`;
  for (const [key, value] of Object.entries(query)) {
    if (!key.startsWith(prefix)) continue;
    const match = /^([^\]]*)\](?:\[([^\]]*)\])?/.exec(key.slice(prefix.length));
    if (match === null) continue;
    const row = rows.get(match[1]!) ?? new Map<string, unknown>();
    rows.set(match[1]!, row);
    if (match[2] !== undefined && !row.has(match[2])) row.set(match[2], value);
  }
  return { rows, plain: !isEmptyParameter(query[name]) };
}
