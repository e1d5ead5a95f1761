// Analytics › Filter Logs and By Users: server-rendered, the whole view in
// the URL, the same query code as the JSON endpoints.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { forbiddenMessage } from '../../admin-groups/admin-access.js';
import { accessOf } from '../../admin-groups/request-access.js';
import { renderAdminPage, renderErrorPage } from '../../admin-ui/page.js';
import { requireAdminSession } from '../../admin-ui/session-auth.js';
import type { AppContext } from '../../context.js';
import { formatTime } from '../../lib/time-format.js';
import type { TimeZoneName } from '../../lib/time-zone.js';
import { fieldNamed, type FieldName } from '../fields.js';
import { DEFAULT_PRESET, formatRangeEnd, formatRangeStart, parseDateRange } from '../query/date-range.js';
import { DEFAULT_RULES } from '../query/filter-rules.js';
import { DEFAULT_INTERVAL, INTERVALS, isInterval, MAX_BUCKETS, refusedIntervals, type Interval } from '../query/intervals.js';
import { parseLogQuery, zoneOf, type LogQuery, type ViewDefaults } from '../query/log-query.js';
import { parseDrilldownPrefix, type DrilldownQuery } from '../query/drilldown-prefix.js';
import { parseMapRegion, type MapQuery } from '../query/map-region.js';
import { parseUsersQuery, type UserColumn } from '../query/users-query.js';
import type { ReaderThread } from '../reader-thread.js';
import { withinAnalyticsScopes } from './analytics-access.js';
import { canonicalRedirect } from './canonical-url.js';
import { DRILLDOWN_PATH, drilldownModel } from './drilldown-view.js';
import { LOCATIONS_PATH } from './location-view.js';
import {
  chartModel,
  downloadUrl,
  FORM_OPTIONS,
  PAGE_DEFAULTS,
  paging,
  ruleRows,
  sortUrl,
  tabUrl,
  timesNote,
  usersSortUrl,
  viewParams,
  viewUrl,
  type FormRow,
} from './view-model.js';

export const LOGS_PATH = '/admin/analytics/logs';
export const USERS_PATH = '/admin/analytics/users';

/** The analytics views, as tabs: each one's path, title and template. */
const TABS = [
  { path: LOGS_PATH, title: 'Filter Logs', template: 'admin/analytics/logs' },
  { path: USERS_PATH, title: 'By Users', template: 'admin/analytics/users' },
  { path: LOCATIONS_PATH, title: 'By Location', template: 'admin/analytics/locations' },
  { path: DRILLDOWN_PATH, title: 'API Drilldown', template: 'admin/analytics/drilldown' },
] as const;
type TabPath = (typeof TABS)[number]['path'];

/** The table's columns on Filter Logs; the CSV and JSON have every field. */
const LOG_COLUMNS: readonly FieldName[] = [
  'request_at',
  'request_method',
  'request_host',
  'request_path',
  'request_url_query',
  'user_email',
  'request_ip',
  'request_ip_country',
  'response_status',
  'gatekeeper_denied_code',
  'response_time',
  'response_content_type',
  'request_user_agent',
];

/**
 * The table's columns on By Users: API Umbrella's (admin-ui
 * app/components/stats/users/results-table.js) in its order, then the user's
 * id. Its own columns sort (users.json and users.csv take the same names);
 * the user's details do not: they are joined from api_users for the page's
 * users only, and sorting on them would join every user of the view.
 */
const USER_TABLE_COLUMNS: readonly { readonly label: string; readonly sort: UserColumn | null; readonly numeric?: boolean }[] = [
  { label: 'Email', sort: 'user_email' },
  { label: 'First Name', sort: null },
  { label: 'Last Name', sort: null },
  { label: 'Signed Up', sort: null },
  { label: 'Hits', sort: 'hits', numeric: true },
  { label: 'Last Request', sort: 'last_request_at' },
  { label: 'Use Description', sort: null },
  { label: 'User ID', sort: 'user_id' },
];

export function analyticsPages(app: FastifyInstance, context: AppContext, reader: ReaderThread): void {
  const signedIn = { preHandler: requireAdminSession(context) };

  app.get(LOGS_PATH, signedIn, async (request, reply) => {
    const read = await viewOrError(context, request, reply, LOGS_PATH, 'Filter Logs', parseLogQuery);
    if (read === null) return reply;
    const { view } = read;
    const [summary, entries] = await Promise.all([reader.summary(view), reader.entries(view)]);
    return renderAnalyticsPage(context, reply, LOGS_PATH, 'Filter Logs', read, {
      summary,
      entries,
      chart: chartModel(summary.chart, view.interval, zoneOf(view)),
      columns: LOG_COLUMNS.map((name) => ({ name, label: fieldNamed(name)!.label, sortUrl: sortUrl(LOGS_PATH, view, name), sorted: view.order.field === name ? view.order.direction : null })),
      paging: paging(LOGS_PATH, view, entries.length, summary.hits),
      csvUrl: downloadUrl('/admin/stats/logs.csv', view),
      // A count over every API: for superusers, whose view is not limited to scopes.
      dropped: view.scopes === undefined ? context.analytics.dropped : 0,
      // The same: the writer thread writes every API's entries.
      writer: view.scopes === undefined ? context.analytics.writerStatus : { deaths: 0, running: true },
    });
  });

  app.get(USERS_PATH, signedIn, async (request, reply) => {
    const read = await viewOrError(context, request, reply, USERS_PATH, 'By Users', parseUsersQuery);
    if (read === null) return reply;
    const { view } = read;
    // The page's users with their details (users.json's page): only those cross the thread, not every user of the view.
    const { total, data: users } = await reader.usersPage(view);
    return renderAnalyticsPage(context, reply, USERS_PATH, 'By Users', read, {
      users,
      columns: USER_TABLE_COLUMNS.map(({ label, sort, numeric }) => ({
        label,
        numeric,
        sortUrl: sort === null ? null : usersSortUrl(USERS_PATH, view, sort),
        sorted: sort !== null && view.usersOrder.field === sort ? view.usersOrder.direction : null,
      })),
      paging: paging(USERS_PATH, view, users.length, total),
      csvUrl: downloadUrl('/admin/stats/users.csv', view),
    });
  });

  app.get(LOCATIONS_PATH, signedIn, async (request, reply) => {
    const read = await viewOrError(context, request, reply, LOCATIONS_PATH, 'By Location', parseLogQuery);
    if (read === null) return reply;
    const region = parseMapRegion((request.query as Record<string, unknown>).region);
    if (!region.ok) return renderLevelError(context, reply, LOCATIONS_PATH, 'By Location', read, region.error);
    const query: MapQuery = { ...read.view, region: region.region };
    return renderAnalyticsPage(context, reply, LOCATIONS_PATH, 'By Location', { ...read, view: query }, {
      ...(await reader.locationPage(query)),
      geoip: context.config.analytics.geoip_file !== null,
      csvUrl: downloadUrl('/admin/stats/map.csv', query),
    });
  });

  app.get(DRILLDOWN_PATH, signedIn, async (request, reply) => {
    const read = await viewOrError(context, request, reply, DRILLDOWN_PATH, 'API Drilldown', parseLogQuery);
    if (read === null) return reply;
    // The view is parsed already: only its level is left.
    const prefix = parseDrilldownPrefix((request.query as Record<string, unknown>).prefix);
    if (!prefix.ok) return renderLevelError(context, reply, DRILLDOWN_PATH, 'API Drilldown', read, prefix.error);
    const query: DrilldownQuery = { ...read.view, prefix: prefix.prefix };
    const drilled = await reader.drilldown(query);
    return renderAnalyticsPage(context, reply, DRILLDOWN_PATH, 'API Drilldown', { ...read, view: query }, {
      ...drilldownModel(query, drilled),
      csvUrl: downloadUrl('/admin/stats/drilldown.csv', query),
    });
  });
}

/** A view read from the page's URL, and what was changed to show it (see fitInterval). */
interface ReadView<Q extends LogQuery> {
  readonly view: Q;
  readonly notice: string | null;
}

/**
 * The parsed view within the admin's API scopes, or null when the reply is
 * already sent: 403 without the analytics permission, a redirect to the
 * canonical URL (see canonical-url.ts), or the page with the error shown
 * next to the filters (400). Every page starts here.
 */
async function viewOrError<Q extends LogQuery>(
  context: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  path: TabPath,
  title: string,
  parse: (params: Record<string, unknown>, now: number, defaults: ViewDefaults, zone: TimeZoneName) => { ok: true; query: Q } | { ok: false; error: string },
): Promise<ReadView<Q> | null> {
  const access = accessOf(context, request);
  if (!access.has('analytics')) {
    await renderErrorPage(context, reply, 403, { title: 'Not authorized', message: forbiddenMessage(access), section: 'analytics' });
    return null;
  }
  const params = request.query as Record<string, unknown>;
  const canonical = canonicalRedirect(path, params);
  if (canonical !== null) {
    await reply.redirect(canonical, 303);
    return null;
  }
  const zone = context.config.analytics.timezone;
  const now = context.clock.now();
  const fitted = fitInterval(params, now, zone);
  const parsed = parse(fitted.params, now, PAGE_DEFAULTS, zone);
  if (parsed.ok) return { view: withinAnalyticsScopes(parsed.query, access), notice: fitted.notice };
  await renderAdminPage(context, reply, templateFor(path), { ...layoutData(path, title, zone), form: rawForm(fitted.params, now, zone), notice: fitted.notice, error: parsed.error }, 400);
  return null;
}

/**
 * An interval too fine for the date range (Minute over Last 30 Days) is
 * replaced by the finest the range takes, with a notice saying so: the form
 * offers such intervals disabled, but a range changed in the same submit, or
 * an old bookmark, still asks for them. The JSON and CSV endpoints keep
 * refusing them (400): a script asked for that interval and gets no notice.
 */
function fitInterval(params: Record<string, unknown>, now: number, zone: TimeZoneName): { params: Record<string, unknown>; notice: string | null } {
  const range = parseDateRange(params, now, zone);
  const asked = params.interval;
  if (!range.ok || !isInterval(asked)) return { params, notice: null };
  const refused = refusedIntervals(range.range, zone);
  if (!refused.includes(asked)) return { params, notice: null };
  const finest: Interval = INTERVALS.find((interval) => !refused.includes(interval))!;
  const label = FORM_OPTIONS.intervals.find(([value]) => value === asked)![1];
  return {
    params: { ...params, interval: finest },
    notice: `${label} would make more than ${MAX_BUCKETS.toLocaleString('en-US')} points over this date range: shown by ${finest} instead.`,
  };
}

/** A view read well but for its level (the drilldown's prefix, the location's region): the message next to the filters, 400. */
function renderLevelError(context: AppContext, reply: FastifyReply, path: TabPath, title: string, { view, notice }: ReadView<LogQuery>, error: string): Promise<FastifyReply> {
  return renderAdminPage(context, reply, templateFor(path), { ...layoutData(path, title, zoneOf(view)), form: viewForm(path, view), notice, error }, 400);
}

function renderAnalyticsPage(context: AppContext, reply: FastifyReply, path: TabPath, title: string, { view, notice }: ReadView<LogQuery>, data: Record<string, unknown>): Promise<FastifyReply> {
  const zone = zoneOf(view);
  return renderAdminPage(context, reply, templateFor(path), { ...layoutData(path, title, zone), form: viewForm(path, view), notice, error: null, formatTime: (time: number | string) => formatTime(time, zone), ...data });
}

function templateFor(path: TabPath): string {
  return TABS.find((tab) => tab.path === path)!.template;
}

function layoutData(path: TabPath, title: string, zone: TimeZoneName) {
  return {
    title,
    timesNote: timesNote(zone),
    section: 'analytics' as const,
    path,
    options: FORM_OPTIONS,
    tabs: TABS.map((tab) => ({ href: tab.path, label: tab.title, current: path === tab.path })),
  };
}

interface FormState {
  readonly range: string;
  readonly startAt: string;
  readonly endAt: string;
  readonly interval: string;
  /** The intervals the range would make too many points at: offered disabled. */
  readonly refusedIntervals: readonly string[];
  readonly search: string;
  readonly rows: readonly (FormRow & { removeUrl?: string })[];
  /** Sort order, page length and the drilldown's level, which the form has no field for, so that applying it keeps them. */
  readonly hidden: readonly (readonly [string, string])[];
  /** The other tabs' links keep range and filters, the current one's is the view's own URL; null: plain links (the view could not be read). */
  readonly tabUrls: Readonly<Record<string, string>> | null;
  /** "host/prefix" of each API scope the view is limited to (an admin who is not a superuser); null: every request, or not read. */
  readonly scopes: readonly string[] | null;
}

/** A preset's dates are shown too, as the starting point of a custom range. */
function viewForm(path: TabPath, view: LogQuery): FormState {
  // Another view starts at its own top: the drilldown's prefix and the location's region stay here.
  const { prefix: _prefix, region: _region, ...shared } = view as Partial<DrilldownQuery & MapQuery> & LogQuery;
  return {
    range: view.range.preset ?? 'custom',
    startAt: formatRangeStart(view.range, zoneOf(view)),
    endAt: formatRangeEnd(view.range, zoneOf(view)),
    interval: view.interval,
    refusedIntervals: refusedIntervals(view.range, zoneOf(view)),
    search: view.search,
    rows: ruleRows(path, view),
    hidden: keptByForm(Object.fromEntries(viewParams(view))),
    tabUrls: Object.fromEntries(TABS.map((tab) => [tab.path, tab.path === path ? viewUrl(path, view) : tabUrl(tab.path, shared)])),
    scopes: view.scopes?.map((scope) => `${scope.host}${scope.path_prefix}`).sort() ?? null,
  };
}

/** What the admin sent, echoed back so a mistake can be fixed in place. */
function rawForm(params: Record<string, unknown>, now: number, zone: TimeZoneName): FormState {
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const range = parseDateRange(params, now, zone);
  return {
    range: text(params.range) || (text(params.start_at) !== '' ? 'custom' : DEFAULT_PRESET),
    startAt: text(params.start_at),
    endAt: text(params.end_at),
    interval: text(params.interval) || DEFAULT_INTERVAL,
    refusedIntervals: range.ok ? refusedIntervals(range.range, zone) : [],
    search: text(params.search),
    rows: rawRules(params.query),
    hidden: keptByForm(params),
    tabUrls: null,
    scopes: null,
  };
}

/** The view's order and length (when not the defaults) as hidden inputs of the form. */
function keptByForm(params: Record<string, unknown>): [string, string][] {
  return ['order', 'length', 'prefix', 'region'].flatMap((name) => {
    const value = params[name];
    return typeof value === 'string' && value !== '' ? [[name, value] as [string, string]] : [];
  });
}

/** The filters as sent, a list or API Umbrella's {"rules": […]} (see parseRules), whatever is wrong with them. */
function rawRules(query: unknown): FormRow[] {
  if (query === undefined || query === '') return DEFAULT_RULES.map((rule) => ({ field: rule.field, operator: rule.operator, value: '' }));
  try {
    const json: unknown = JSON.parse(String(query));
    const list: unknown = Array.isArray(json) ? json : (json as { rules?: unknown } | null)?.rules;
    if (!Array.isArray(list)) return [];
    return list.map((rule: Record<string, unknown>) => ({
      field: String(rule?.field ?? rule?.id ?? ''),
      operator: String(rule?.operator ?? ''),
      value: rule?.value == null ? '' : String(rule.value),
    }));
  } catch {
    return [];
  }
}
