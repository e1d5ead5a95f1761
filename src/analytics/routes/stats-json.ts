// JSON and CSV for scripts under /admin/stats/, authenticated like the admin
// API (X-Admin-Auth-Token) or by the web admin's session, for admins with
// the analytics permission, over the requests within their API scopes.
// Without `query` they filter nothing, as API Umbrella's: denied requests
// count (the admin's pages hide them by default, and their download links
// say so in their `query`).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { adminFromToken, UNAUTHENTICATED_MESSAGE } from '../../admin-api/auth.js';
import { drawOf } from '../../admin-api/data-tables.js';
import { accessOf, sendForbidden } from '../../admin-groups/request-access.js';
import { sessionAdmin } from '../../admin-ui/session-auth.js';
import type { AppContext } from '../../context.js';
import { withoutApiKeys } from '../../lib/log-redaction.js';
import { apiUmbrellaCsvFilename, csvFilename, drilldownCsv, entriesCsv, locationsCsv, usersCsv } from '../csv.js';
import { RESULTS_SHOWN } from '../drilldown-queries.js';
import type { LoggedRow } from '../fields.js';
import { parseDrilldownQuery, type DrilldownQuery } from '../query/drilldown-prefix.js';
import { parseLogQuery, zoneOf, type LogQuery, type ViewDefaults } from '../query/log-query.js';
import { parseMapQuery, regionParam, type MapQuery } from '../query/map-region.js';
import { parseUsersQuery, type UsersQuery } from '../query/users-query.js';
import type { ReaderThread } from '../reader-thread.js';
import { withinAnalyticsScopes } from './analytics-access.js';

export function statsJsonRoutes(app: FastifyInstance, context: AppContext, reader: ReaderThread): void {
  const authenticated = { preHandler: requireAdmin(context) };

  app.get('/admin/stats/logs.json', authenticated, async (request, reply) => {
    const query = parsedOr400(context, request, reply, { length: 100 });
    if (query === null) return reply;
    const [total, entries] = await Promise.all([reader.count(query), reader.entries(query)]);
    // As API Umbrella: both totals are the number of matching entries, DataTables' draw comes back, and each entry has its request_url.
    const data = entries.map((entry) => ({ ...entry, request_url: requestUrlOf(entry) }));
    return { draw: drawOf(request.query as Record<string, unknown>), recordsTotal: total, recordsFiltered: total, data };
  });

  app.get('/admin/stats/logs.csv', authenticated, async (request, reply) => {
    const query = parsedOr400(context, request, reply);
    if (query === null) return reply;
    return sendCsv(reply, csvFilename('logs', query)).send(await entriesCsv(reader, query));
  });

  // The view's statistics (AnalyticsQueries.statistics) in two shapes, on one registration, so for the same admins and scopes: Parasol's summary.json and API Umbrella's search.json.
  const statistics = {
    summary: async (query: LogQuery) => ({
      start_at: new Date(query.range.startAt).toISOString(),
      end_at: new Date(query.range.endAt).toISOString(),
      interval: query.interval,
      ...(await reader.summary(query)),
      // A count over every API: for superusers, whose view is not limited to scopes.
      ...(query.scopes === undefined ? { dropped_entries: context.analytics.dropped } : {}),
    }),
    search: (query: LogQuery) => reader.search(query),
  };
  for (const [name, answer] of Object.entries(statistics)) {
    app.get(`/admin/stats/${name}.json`, authenticated, async (request, reply) => {
      const query = parsedOr400(context, request, reply);
      if (query === null) return reply;
      return answer(query);
    });
  }

  app.get('/admin/stats/users.json', authenticated, async (request, reply) => {
    const query = usersOr400(context, request, reply, { length: 100 });
    if (query === null) return reply;
    const { total, data } = await reader.usersPage(query);
    return { draw: drawOf(request.query as Record<string, unknown>), recordsTotal: total, recordsFiltered: total, data };
  });

  app.get('/admin/stats/users.csv', authenticated, async (request, reply) => {
    const query = usersOr400(context, request, reply);
    if (query === null) return reply;
    return sendCsv(reply, apiUmbrellaCsvFilename('users', context.clock.now(), zoneOf(query))).send(await usersCsv(reader, query));
  });

  app.get('/admin/stats/map.json', authenticated, async (request, reply) => {
    const query = mapOr400(context, request, reply);
    if (query === null) return reply;
    return reader.locations(query);
  });

  app.get('/admin/stats/map.csv', authenticated, async (request, reply) => {
    const query = mapOr400(context, request, reply);
    if (query === null) return reply;
    return sendCsv(reply, csvFilename(`locations-${regionParam(query.region)}`, query)).send(locationsCsv((await reader.locations(query)).regions));
  });

  // API Umbrella's paths too, so its operators' scripts keep working.
  for (const base of ['/admin/stats/drilldown', '/api-umbrella/v1/analytics/drilldown']) {
    app.get(`${base}.json`, authenticated, async (request, reply) => {
      const query = drilldownOr400(context, request, reply);
      if (query === null) return reply;
      const drilled = await reader.drilldown(query);
      return { ...drilled, results: drilled.results.slice(0, RESULTS_SHOWN) };
    });

    app.get(`${base}.csv`, authenticated, async (request, reply) => {
      const query = drilldownOr400(context, request, reply);
      if (query === null) return reply;
      return sendCsv(reply, csvFilename('drilldown', query)).send(drilldownCsv((await reader.drilldown(query)).results));
    });
  }
}

/** By Users' view: its `order` names one of its own columns. */
function usersOr400(context: AppContext, request: FastifyRequest, reply: FastifyReply, defaults?: ViewDefaults): UsersQuery | null {
  return queryOr400(context, request, reply, parseUsersQuery(request.query as Record<string, unknown>, context.clock.now(), defaults, context.config.analytics.timezone));
}

function mapOr400(context: AppContext, request: FastifyRequest, reply: FastifyReply): MapQuery | null {
  return queryOr400(context, request, reply, parseMapQuery(request.query as Record<string, unknown>, context.clock.now(), {}, context.config.analytics.timezone));
}

function drilldownOr400(context: AppContext, request: FastifyRequest, reply: FastifyReply): DrilldownQuery | null {
  return queryOr400(context, request, reply, parseDrilldownQuery(request.query as Record<string, unknown>, context.clock.now(), {}, context.config.analytics.timezone));
}

/** The admin behind the token or the session (anyone else gets the admin API's 401), holding analytics somewhere (else 403). */
function requireAdmin(context: AppContext) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    request.admin = adminFromToken(request, context.admins) ?? sessionAdmin(context, request);
    if (request.admin === null) {
      await reply.code(401).send({ error: UNAUTHENTICATED_MESSAGE });
      return;
    }
    const access = accessOf(context, request);
    if (!access.has('analytics')) await sendForbidden(reply, access);
  };
}

function parsedOr400(context: AppContext, request: FastifyRequest, reply: FastifyReply, defaults?: ViewDefaults): LogQuery | null {
  return queryOr400(context, request, reply, parseLogQuery(request.query as Record<string, unknown>, context.clock.now(), defaults, context.config.analytics.timezone));
}

/** The parsed query within the admin's scopes, or null once its one message has gone out as a 400. */
function queryOr400<Q extends LogQuery>(context: AppContext, request: FastifyRequest, reply: FastifyReply, parsed: { ok: true; query: Q } | { ok: false; error: string }): Q | null {
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
