// Which page of a long admin list to show: the ?page= an admin asked for,
// from 1, held to the pages there are, so that an old link or a narrower
// search shows the last page rather than an empty one.

export interface ListPage {
  /** From 1. */
  readonly page: number;
  readonly pages: number;
  /** Index of the page's first item. */
  readonly offset: number;
  readonly total: number;
}

/** The page number in a query parameter: 1 for anything that is not a positive integer. */
export function requestedPage(raw: unknown): number {
  return Math.max(1, Number.parseInt(String(raw ?? '1'), 10) || 1);
}

export function listPage(requested: number, total: number, pageSize: number): ListPage {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const page = Math.min(requested, pages);
  return { page, pages, offset: (page - 1) * pageSize, total };
}

/** Rows a page of the lists held in memory: API backends, admin accounts, API scopes and admin groups. */
const MEMORY_LIST_PAGE_SIZE = 50;

export interface SearchedPage<T> {
  /** `?search=`, trimmed; '' for none. */
  readonly search: string;
  readonly paging: ListPage;
  /** The page's records, of those holding the search. */
  readonly rows: readonly T[];
}

/**
 * The page a list held in memory shows for `?search=` and `?page=`: of
 * `records` (what the admin may see, in the list's order) those `matches`
 * holds (never asked with ''), 50 a page.
 */
export function searchedPage<T>(records: readonly T[], query: Record<string, unknown>, matches: (record: T, search: string) => boolean): SearchedPage<T> {
  const search = typeof query.search === 'string' ? query.search.trim() : '';
  const found = search === '' ? records : records.filter((record) => matches(record, search));
  const paging = listPage(requestedPage(query.page), found.length, MEMORY_LIST_PAGE_SIZE);
  return { search, paging, rows: found.slice(paging.offset, paging.offset + MEMORY_LIST_PAGE_SIZE) };
}
