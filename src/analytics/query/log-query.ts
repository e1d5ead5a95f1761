// One parser for the parameters the JSON endpoints and the admin pages share:
// range or start_at/end_at, interval, search, query (filters), start, length,
// order. Anything wrong is one message for a 400.
import type { ApiScope } from '../../admin-groups/model.js';
import { parseSortOrder, type SortOrder as GenericSortOrder } from '../../lib/sort-order.js';
import { UTC, type TimeZoneName } from '../../lib/time-zone.js';
import { fieldNamed, type FieldName } from '../fields.js';
import { parseDateRange, type DateRange } from './date-range.js';
import { parseRules, type FilterRule } from './filter-rules.js';
import { DEFAULT_INTERVAL, INTERVALS, isInterval, MAX_BUCKETS, tooFine, type Interval } from './intervals.js';

/** A field (a logged one unless said otherwise) and which way; ties are broken the same way by a unique id. */
export type SortOrder<F extends string = FieldName> = GenericSortOrder<F>;

/** A search that starts with a field name and a colon. */
const FIELD_SEARCH = /^\s*([a-z_]+):/;

export interface LogQuery {
  readonly range: DateRange;
  readonly interval: Interval;
  readonly rules: readonly FilterRule[];
  /** Free text matched against path, query, user email and IP; '' for none. */
  readonly search: string;
  readonly offset: number;
  readonly limit: number;
  readonly order: SortOrder;
  /**
   * Only requests within one of these: the API scopes where an admin who is
   * not a superuser holds analytics. Absent for a superuser, who sees every
   * request (and whose views the daily rollups may answer).
   */
  readonly scopes?: readonly QueryScope[];
  /**
   * The zone whose days and clock the range, the chart's buckets and their
   * labels are in (analytics.timezone); absent for UTC, so that a view in UTC
   * is the same value it was before there was a choice.
   */
  readonly timeZone?: TimeZoneName;
}

/** The zone the view is in. */
export function zoneOf(query: Pick<LogQuery, 'timeZone'>): TimeZoneName {
  return query.timeZone ?? UTC;
}

/** What a query needs of an API scope; plain, to travel to the reader thread. */
export type QueryScope = Pick<ApiScope, 'host' | 'path_prefix'>;

export const DEFAULT_ORDER: SortOrder = { field: 'request_at', direction: 'desc' };
export const MAX_PAGE_LENGTH = 1_000;
const MAX_SEARCH_LENGTH = 200;

export type LogQueryResult = { ok: true; query: LogQuery } | { ok: false; error: string };

/**
 * What absent parameters mean. For scripts (the JSON and CSV endpoints), as in
 * API Umbrella: 50 entries and no filter. The admin's pages pass their own:
 * their default filter hides denied requests (DEFAULT_RULES).
 */
export interface ViewDefaults {
  readonly length?: number;
  /** The filters when `query` is absent or empty. */
  readonly rules?: readonly FilterRule[];
}

/** `zone`: analytics.timezone, whose days the dates and presets name. */
export function parseLogQuery(params: Record<string, unknown>, now: number, defaults: ViewDefaults = {}, zone: TimeZoneName = UTC): LogQueryResult {
  const range = parseDateRange(params, now, zone);
  if (!range.ok) return range;
  const interval = params.interval === undefined || params.interval === '' ? DEFAULT_INTERVAL : params.interval;
  if (!isInterval(interval)) return { ok: false, error: `Unknown interval "${String(interval)}"; use one of ${INTERVALS.join(', ')}` };
  if (tooFine(range.range, interval, zone)) {
    return { ok: false, error: `The interval ${interval} is too short for this date range (more than ${MAX_BUCKETS} points); choose a longer one` };
  }
  const rules = parseQueryParam(params.query, defaults.rules ?? []);
  if (!rules.ok) return rules;
  const search = params.search === undefined ? '' : params.search;
  if (typeof search !== 'string' || search.length > MAX_SEARCH_LENGTH) return { ok: false, error: `search must be text of at most ${MAX_SEARCH_LENGTH} characters` };
  // API Umbrella's advanced search ("response_status:200") would quietly match nothing as free text.
  const fieldSearch = FIELD_SEARCH.exec(search)?.[1];
  if (fieldSearch !== undefined && fieldNamed(fieldSearch) !== undefined) {
    return { ok: false, error: `search is free text over the path, query, user email and IP; for "${fieldSearch}:…" (API Umbrella's advanced search) add a filter on ${fieldSearch} instead` };
  }
  const offset = integerParam(params.start, 0);
  const limit = integerParam(params.length, defaults.length ?? 50);
  if (offset === null || offset < 0) return { ok: false, error: 'start must be a whole number, 0 or more' };
  if (limit === null || limit < 1 || limit > MAX_PAGE_LENGTH) return { ok: false, error: `length must be a whole number from 1 to ${MAX_PAGE_LENGTH}` };
  const order = parseOrder(params.order);
  if (order === null) return { ok: false, error: `order must be a logged field, optionally followed by :asc or :desc (e.g. response_time:desc)` };
  return { ok: true, query: { range: range.range, interval, rules: rules.rules, search: search.trim(), offset, limit, order, ...(zone === UTC ? {} : { timeZone: zone }) } };
}

/** Absent or empty means `absent`; "[]" means none. */
function parseQueryParam(raw: unknown, absent: readonly FilterRule[]): { ok: true; rules: FilterRule[] } | { ok: false; error: string } {
  if (raw === undefined || raw === '') return { ok: true, rules: [...absent] };
  if (typeof raw !== 'string') return { ok: false, error: 'query must be given once, as JSON' };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { ok: false, error: 'query is not valid JSON' };
  }
  return parseRules(json);
}

function integerParam(raw: unknown, fallback: number): number | null {
  if (raw === undefined || raw === '') return fallback;
  return typeof raw === 'string' && /^\d{1,9}$/.test(raw.trim()) ? Number(raw) : null;
}

/** "field", "field:asc" or "field:desc"; absent means newest first. */
export function parseOrder(raw: unknown): SortOrder | null {
  return parseSortOrder(raw, DEFAULT_ORDER, (name) => fieldNamed(name)?.name);
}

