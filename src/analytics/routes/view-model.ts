// What the analytics pages show, computed from a parsed query and its
// results: URLs that keep the whole view (bookmarkable), sort and paging
// links, the filter form's rows and the chart's geometry.
import { formatOrder, toggledOrder } from '../../lib/sort-order.js';
import { UTC, wallClock, type TimeZoneName } from '../../lib/time-zone.js';
import { FIELDS } from '../fields.js';
import type { ChartPoint } from '../log-queries.js';
import { formatRangeEnd, formatRangeStart, RANGE_PRESETS } from '../query/date-range.js';
import { ROOT_PREFIX, type DrilldownPrefix, type DrilldownQuery } from '../query/drilldown-prefix.js';
import { DEFAULT_RULES, OPERATORS, type FilterRule } from '../query/filter-rules.js';
import { DEFAULT_INTERVAL, INTERVALS, type Interval } from '../query/intervals.js';
import { DEFAULT_ORDER, zoneOf, type LogQuery, type SortOrder, type ViewDefaults } from '../query/log-query.js';
import { regionParam, type MapQuery } from '../query/map-region.js';
import { DEFAULT_USERS_ORDER, type UserColumn, type UsersQuery } from '../query/users-query.js';

export const PAGE_LENGTH = 50;
/** What a page's URL means without `length` or `query`: a bookmarked page keeps hiding denied requests. */
export const PAGE_DEFAULTS: ViewDefaults = { length: PAGE_LENGTH, rules: DEFAULT_RULES };

/**
 * The URL parameters that reproduce a page's view; the page's defaults are
 * left out to keep links short, except its filters when `withRules` (a link
 * to a JSON or CSV endpoint, whose default is no filter).
 */
export function viewParams<Q extends LogQuery>(query: Q, changes: Partial<Q> = {}, withRules = false): URLSearchParams {
  const view: Q = { ...query, ...changes };
  const params = new URLSearchParams();
  if (view.range.preset !== null) params.set('range', view.range.preset);
  else {
    params.set('range', 'custom');
    params.set('start_at', formatRangeStart(view.range, zoneOf(view)));
    params.set('end_at', formatRangeEnd(view.range, zoneOf(view)));
  }
  if (view.interval !== DEFAULT_INTERVAL) params.set('interval', view.interval);
  if (withRules || !sameRules(view.rules, DEFAULT_RULES)) params.set('query', JSON.stringify(view.rules));
  if (view.search !== '') params.set('search', view.search);
  if (formatOrder(view.order) !== formatOrder(DEFAULT_ORDER)) params.set('order', formatOrder(view.order));
  // By Users' own order, under the same name.
  const usersOrder = (view as Partial<UsersQuery>).usersOrder;
  if (usersOrder !== undefined && formatOrder(usersOrder) !== formatOrder(DEFAULT_USERS_ORDER)) params.set('order', formatOrder(usersOrder));
  if (view.offset > 0) params.set('start', String(view.offset));
  if (view.limit !== PAGE_LENGTH) params.set('length', String(view.limit));
  const prefix = (view as Partial<DrilldownQuery>).prefix;
  if (prefix !== undefined && formatPrefix(prefix) !== ROOT_PREFIX) params.set('prefix', formatPrefix(prefix));
  const region = (view as Partial<MapQuery>).region;
  if (region !== undefined && region.level !== 'world') params.set('region', regionParam(region));
  return params;
}

export function formatPrefix(prefix: DrilldownPrefix): string {
  return `${prefix.depth}/${prefix.text}`;
}

export function viewUrl<Q extends LogQuery>(path: string, query: Q, changes: Partial<Q> = {}): string {
  const params = viewParams(query, changes).toString();
  return params === '' ? path : `${path}?${params}`;
}

/**
 * The same view without paging, in its order, at a JSON or CSV endpoint (a
 * download): its filters are always spelled out, since those endpoints apply
 * none when `query` is absent where the page hides denied requests, and so
 * are the dates shown, as API Umbrella's links have them: a preset's link
 * copied into a ticket, or followed after midnight, would download another period.
 */
export function downloadUrl(path: string, query: LogQuery): string {
  return `${path}?${viewParams(query, { offset: 0, limit: PAGE_LENGTH, range: { ...query.range, preset: null } }, true).toString()}`;
}

/** The same range and filters from the top, in the default order: for the tabs (each view sorts on its own columns). */
export function tabUrl(path: string, query: LogQuery): string {
  const { usersOrder: _usersOrder, ...view } = query as Partial<UsersQuery> & LogQuery;
  return viewUrl(path, view, { offset: 0, limit: PAGE_LENGTH, order: DEFAULT_ORDER });
}

function sameRules(a: readonly FilterRule[], b: readonly FilterRule[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The filter form posts rows (field, operator, value repeated); they become
 * the `query` JSON of the canonical URL. Rows without a field are blank
 * ones and are skipped. Values are checked when the URL is parsed.
 */
export function rulesFromFormRows(params: Record<string, unknown>): { field: string; operator: string; value: string }[] {
  const fields = asList(params.field);
  const operators = asList(params.operator);
  const values = asList(params.value);
  return fields
    .map((field, index) => ({ field, operator: operators[index] ?? '', value: values[index] ?? '' }))
    .filter((row) => row.field !== '');
}

function asList(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return value === undefined ? [] : [String(value)];
}

/** Options for the form's selects. */
export const FORM_OPTIONS = {
  presets: [...Object.entries(RANGE_PRESETS), ['custom', 'Custom range']] as [string, string][],
  intervals: INTERVALS.map((interval) => [interval, interval[0]!.toUpperCase() + interval.slice(1)]) as [string, string][],
  fields: FIELDS.map((info) => [info.name, info.label]) as [string, string][],
  operators: Object.entries(OPERATORS) as [string, string][],
};

export interface FormRow {
  readonly field: string;
  readonly operator: string;
  readonly value: string;
}

/** The rules as form rows, each with the link that removes it. */
export function ruleRows(path: string, query: LogQuery): (FormRow & { removeUrl: string })[] {
  return query.rules.map((rule, index) => ({
    field: rule.field,
    operator: rule.operator,
    value: Array.isArray(rule.value) ? rule.value.join(',') : rule.value === null ? '' : String(rule.value),
    removeUrl: viewUrl(path, query, { rules: query.rules.filter((_, other) => other !== index), offset: 0 }),
  }));
}

/** A column header's link: sort by it, newest/largest first, or flip the direction when it is the current sort. */
export function sortUrl(path: string, query: LogQuery, field: SortOrder['field']): string {
  return viewUrl(path, query, { order: toggledOrder(query.order, field), offset: 0 });
}

/** The same for By Users' columns. */
export function usersSortUrl(path: string, query: UsersQuery, field: UserColumn): string {
  return viewUrl(path, query, { usersOrder: toggledOrder(query.usersOrder, field), offset: 0 });
}

export interface Paging {
  readonly from: number;
  readonly to: number;
  readonly total: number;
  readonly previousUrl: string | null;
  readonly nextUrl: string | null;
}

/** A page past the end (an old bookmark, a hand-made URL) shows nothing, and its Previous goes to the last page. */
export function paging(path: string, query: LogQuery, shown: number, total: number): Paging {
  const { offset, limit } = query;
  const lastPage = Math.max(0, Math.floor((total - 1) / limit) * limit);
  return {
    from: shown === 0 ? 0 : offset + 1,
    to: offset + shown,
    total,
    previousUrl: offset > 0 ? viewUrl(path, query, { offset: Math.max(0, Math.min(offset - limit, lastPage)) }) : null,
    nextUrl: offset + shown < total ? viewUrl(path, query, { offset: offset + limit }) : null,
  };
}

/** What the pages say of their times: "Times are UTC.", or the zone's name. */
export function timesNote(zone: TimeZoneName): string {
  return zone === UTC ? 'Times are UTC.' : `Times are ${zone} time.`;
}

export interface ChartBar {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly label: string;
  readonly hits: number;
}

export interface ChartModel {
  readonly width: number;
  readonly height: number;
  readonly plot: { readonly left: number; readonly top: number; readonly right: number; readonly bottom: number };
  readonly bars: readonly ChartBar[];
  readonly yTicks: readonly { readonly y: number; readonly label: string }[];
  readonly xTicks: readonly { readonly x: number; readonly label: string }[];
}

const CHART = { width: 960, height: 220, left: 56, right: 8, top: 10, bottom: 24 };
const X_TICKS = 8;

/** Geometry of the server-drawn SVG bar chart of hits per interval, labelled on the zone's clock. */
export function chartModel(points: readonly ChartPoint[], interval: Interval, zone: TimeZoneName): ChartModel {
  const plot = { left: CHART.left, top: CHART.top, right: CHART.width - CHART.right, bottom: CHART.height - CHART.bottom };
  const max = niceCeiling(Math.max(0, ...points.map((point) => point.hits)));
  const slot = (plot.right - plot.left) / Math.max(1, points.length);
  const scale = (hits: number) => ((plot.bottom - plot.top) * hits) / max;
  const bars = points.map((point, index) => ({
    x: plot.left + index * slot + slot * 0.1,
    y: plot.bottom - scale(point.hits),
    width: Math.max(0.5, slot * 0.8),
    height: scale(point.hits),
    label: bucketLabel(point.start_at, interval, zone),
    hits: point.hits,
  }));
  const every = Math.max(1, Math.ceil(points.length / X_TICKS));
  return {
    width: CHART.width,
    height: CHART.height,
    plot,
    bars,
    yTicks: [0, 0.5, 1].map((fraction) => ({ y: plot.bottom - (plot.bottom - plot.top) * fraction, label: (max * fraction).toLocaleString('en-US') })),
    xTicks: bars.filter((_, index) => index % every === 0).map((bar) => ({ x: bar.x + bar.width / 2, label: bar.label })),
  };
}

function niceCeiling(value: number): number {
  if (value <= 4) return 4;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 2.5, 5, 10].find((candidate) => candidate * magnitude >= value)!;
  return step * magnitude;
}

function bucketLabel(ms: number, interval: Interval, zone: TimeZoneName): string {
  const iso = new Date(wallClock(zone, ms)).toISOString();
  if (interval === 'month') return iso.slice(0, 7);
  if (interval === 'day' || interval === 'week') return iso.slice(0, 10);
  return `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}
