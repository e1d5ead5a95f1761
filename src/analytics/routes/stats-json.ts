// JSON and CSV for scripts under /admin/stats/, authenticated like the admin
// API (X-Admin-Auth-Token) or by the web admin's session, over the requests
// within the API scopes where the admin holds the analytics permission: an
// admin holding it nowhere finds nothing (200), as in API Umbrella.
// Without `query` they filter nothing, as API Umbrella's: denied requests
// count (the admin's pages hide them by default, and their download links
// say so in their `query`).
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods, preHandlerHookHandler, RouteHandlerMethod } from 'fastify';
import { adminFromToken, UNAUTHENTICATED_MESSAGE } from '../../admin-api/auth.js';
import { drawOf } from '../../admin-api/data-tables.js';
import { jsonErrorHandler } from '../../admin-api/plugin.js';
import { accessOf } from '../../admin-groups/request-access.js';
import { sessionAdmin } from '../../admin-ui/session-auth.js';
import type { AppContext } from '../../context.js';
import { withoutApiKeys } from '../../lib/log-redaction.js';
import type { TimeZoneName } from '../../lib/time-zone.js';
import { apiUmbrellaCsvFilename, csvFilename, drilldownCsv, entriesCsv, locationsCsv, usersCsv } from '../csv.js';
import { RESULTS_SHOWN } from '../drilldown-queries.js';
import type { LoggedRow } from '../fields.js';
import { parseDrilldownQuery } from '../query/drilldown-prefix.js';
import { parseLogQuery, zoneOf, type LogQuery, type ViewDefaults } from '../query/log-query.js';
import { parseMapQuery, regionParam } from '../query/map-region.js';
import { parseUsersQuery } from '../query/users-query.js';
import type { ReaderThread } from '../reader-thread.js';
import { withinAnalyticsScopes } from './analytics-access.js';
import { refuseBodyThatIsNoFields, statsParams } from './stats-params.js';

/** For a scope of its own: its errors (a body that is no JSON, a session's missing CSRF token) answer in JSON, as its refusals do. */
export function statsJsonRoutes(app: FastifyInstance, context: AppContext, reader: ReaderThread): void {
  app.setErrorHandler(jsonErrorHandler);
  const stats = new StatsRoutes(app, { preHandler: [requireAdmin(app, context), refuseBodyThatIsNoFields] });

  // As API Umbrella, Filter Logs takes its parameters by POST too: its table's filters and columns make URLs too long.
  stats.add('logs', 'json', async (request, reply) => {
    const query = queryOr400(context, request, reply, parseLogQuery, { length: 100 });
    if (query === null) return reply;
    const [total, entries] = await Promise.all([reader.count(query), reader.entries(query)]);
    // As API Umbrella: both totals are the number of matching entries, DataTables' draw comes back, and each entry has its request_url.
    const data = entries.map((entry) => ({ ...entry, request_url: requestUrlOf(entry) }));
    return { draw: drawOf(statsParams(request)), recordsTotal: total, recordsFiltered: total, data };
  }, ['GET', 'POST']);

  stats.add('logs', 'csv', async (request, reply) => {
    const query = queryOr400(context, request, reply, parseLogQuery);
    if (query === null) return reply;
    return sendCsv(reply, csvFilename('logs', query)).send(await entriesCsv(reader, query));
  }, ['GET', 'POST']);

  // The view's statistics (AnalyticsQueries.statistics) in two shapes, on one registration, so for the same admins and scopes: Parasol's summary.json and API Umbrella's search.json.
  const statistics = {
    summary: async (query: LogQuery) => ({
      start_at: new Date(query.range.startAt).toISOString(),
      end_at: new Date(query.range.endAt).toISOString(),
      interval: query.interval,
      ...(await reader.summary(query)),
      // A count over every API: for superusers, whose view is not limited to scopes.
      ...(query.scopes === undefined
        ? { dropped_entries: context.analytics.dropped, writer_thread: context.analytics.writerStatus }
        : {}),
    }),
    search: (query: LogQuery) => reader.search(query),
  };
  for (const [name, answer] of Object.entries(statistics)) {
    stats.add(name, 'json', async (request, reply) => {
      const query = queryOr400(context, request, reply, parseLogQuery);
      if (query === null) return reply;
      return answer(query);
    });
  }

  // By Users' view: its order (`order`, or DataTables' as API Umbrella's table sends it) names one of its own columns.
  stats.add('users', 'json', async (request, reply) => {
    const query = queryOr400(context, request, reply, parseUsersQuery, { length: 100 });
    if (query === null) return reply;
    const { total, data } = await reader.usersPage(query);
    return { draw: drawOf(statsParams(request)), recordsTotal: total, recordsFiltered: total, data };
  });

  stats.add('users', 'csv', async (request, reply) => {
    const query = queryOr400(context, request, reply, parseUsersQuery);
    if (query === null) return reply;
    return sendCsv(reply, apiUmbrellaCsvFilename('users', context.clock.now(), zoneOf(query))).send(await usersCsv(reader, query));
  });

  stats.add('map', 'json', async (request, reply) => {
    const query = queryOr400(context, request, reply, parseMapQuery);
    if (query === null) return reply;
    return reader.locations(query);
  });

  stats.add('map', 'csv', async (request, reply) => {
    const query = queryOr400(context, request, reply, parseMapQuery);
    if (query === null) return reply;
    return sendCsv(reply, csvFilename(`locations-${regionParam(query.region)}`, query)).send(locationsCsv((await reader.locations(query)).regions));
  });

  // API Umbrella's paths too, so its operators' scripts keep working.
  for (const base of ['/admin/stats/drilldown', '/api-umbrella/v1/analytics/drilldown']) {
    stats.add(base, 'json', async (request, reply) => {
      const query = queryOr400(context, request, reply, parseDrilldownQuery);
      if (query === null) return reply;
      const drilled = await reader.drilldown(query);
      return { ...drilled, results: drilled.results.slice(0, RESULTS_SHOWN) };
    });

    stats.add(base, 'csv', async (request, reply) => {
      const query = queryOr400(context, request, reply, parseDrilldownQuery);
      if (query === null) return reply;
      return sendCsv(reply, csvFilename('drilldown', query)).send(drilldownCsv((await reader.drilldown(query)).results));
    });
  }
  stats.withoutExtension();
}

type StatsFormat = 'json' | 'csv';

/**
 * The stats routes, each at `<path>.json` or `.csv`, and, as API Umbrella's
 * `/admin/stats/logs(.:format)` routes, at `<path>` alone, where `format`
 * (json unless it says csv) picks one: scripts written for API Umbrella call
 * `/admin/stats/logs?format=csv`.
 */
class StatsRoutes {
  private readonly byPath = new Map<string, { methods: HTTPMethods[]; formats: Partial<Record<StatsFormat, RouteHandlerMethod>> }>();

  constructor(
    private readonly app: FastifyInstance,
    private readonly hooks: { preHandler: preHandlerHookHandler[] },
  ) {}

  /** `name`: under /admin/stats/, or a whole path. */
  add(name: string, format: StatsFormat, handler: RouteHandlerMethod, methods: HTTPMethods[] = ['GET']): void {
    const path = name.startsWith('/') ? name : `/admin/stats/${name}`;
    this.app.route({ method: methods, url: `${path}.${format}`, ...this.hooks, handler });
    const route = this.byPath.get(path) ?? { methods, formats: {} };
    route.formats[format] = handler;
    this.byPath.set(path, route);
  }

  withoutExtension(): void {
    for (const [path, { methods, formats }] of this.byPath) {
      const handler: RouteHandlerMethod = function (request, reply) {
        const format = statsParams(request).format === 'csv' ? 'csv' : 'json';
        const answer = formats[format];
        if (answer === undefined) return reply.code(400).send({ error: `${path} answers ${Object.keys(formats).join(' or ')} only` });
        return answer.call(this, request, reply);
      };
      this.app.route({ method: methods, url: path, ...this.hooks, handler });
    }
  }
}

/**
 * The admin behind the token or the session; anyone else gets the admin
 * API's 401. A session's POST carries its page's CSRF token, as every form
 * does; a token's needs none: browsers never send X-Admin-Auth-Token on
 * their own, so no other site can make one post with it.
 */
function requireAdmin(app: FastifyInstance, context: AppContext): preHandlerHookHandler {
  return (request, reply, done) => {
    const byToken = adminFromToken(request, context.admins);
    request.admin = byToken ?? sessionAdmin(context, request);
    if (request.admin === null) return void reply.code(401).send({ error: UNAUTHENTICATED_MESSAGE });
    if (byToken === null && request.method === 'POST') return app.csrfProtection(request, reply, done);
    done();
  };
}

/** One of the query parsers (parseLogQuery and those reading a view's level or order too). */
type QueryParser<Q extends LogQuery> = (params: Record<string, unknown>, now: number, defaults?: ViewDefaults, zone?: TimeZoneName) => { ok: true; query: Q } | { ok: false; error: string };

/** The parsed query within the admin's scopes (none without analytics: nothing is found), or null once its one message has gone out as a 400. */
function queryOr400<Q extends LogQuery>(context: AppContext, request: FastifyRequest, reply: FastifyReply, parse: QueryParser<Q>, defaults?: ViewDefaults): Q | null {
  const parsed = parse(statsParams(request), context.clock.now(), defaults, context.config.analytics.timezone);
  if (parsed.ok) return withinAnalyticsScopes(parsed.query, accessOf(context, request));
  void reply.code(400).send({ error: parsed.error });
  return null;
}

export function sendCsv(reply: FastifyReply, filename: string): FastifyReply {
  return reply.type('text/csv; charset=utf-8').header('Content-Disposition', `attachment; filename="${filename}"`);
}

/** API Umbrella's request_url of a logged entry: its path and query, without the api_key ("/x/?foo=bar"). */
function requestUrlOf(entry: Pick<LoggedRow, 'request_path' | 'request_url_query'>): string {
  const query = withoutApiKeys(entry.request_url_query);
  return query === '' ? entry.request_path : `${entry.request_path}?${query}`;
}
