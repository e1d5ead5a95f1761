// A list's order as its URL carries it: `order=name`, `name:asc` or
// `name:desc`. The analytics views and the admin's lists read and write it
// the same way, so a bookmarked or shared list keeps its order.

export type Direction = 'asc' | 'desc';

/** A column and which way; each list breaks ties its own way. */
export interface SortOrder<F extends string> {
  readonly field: F;
  readonly direction: Direction;
}

/** "name", "name:asc" or "name:desc", with a name `named` knows; absent means `fallback`; anything else null. */
export function parseSortOrder<F extends string>(raw: unknown, fallback: SortOrder<F>, named: (name: string) => F | undefined): SortOrder<F> | null {
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string') return null;
  const [name = '', direction = 'asc', extra] = raw.split(':');
  const field = named(name);
  if (field === undefined || extra !== undefined || (direction !== 'asc' && direction !== 'desc')) return null;
  return { field, direction };
}

export function formatOrder(order: SortOrder<string>): string {
  return `${order.field}:${order.direction}`;
}

/**
 * What a column header's link sorts by: the other way round when the list is
 * sorted by that column already, else the column `first` (the largest or
 * newest first, unless a column reads better from A).
 */
export function toggledOrder<F extends string>(current: SortOrder<F> | null, field: F, first: Direction = 'desc'): SortOrder<F> {
  if (current?.field !== field) return { field, direction: first };
  return { field, direction: current.direction === 'desc' ? 'asc' : 'desc' };
}
