// What the API Drilldown page shows: the listed paths with the links one
// level down, the trail of levels back up, and the chart of the prefix's hits.
import { RESULTS_SHOWN, type Drilldown } from '../drilldown-queries.js';
import { parseDrilldownPrefix, type DrilldownQuery } from '../query/drilldown-prefix.js';
import { zoneOf } from '../query/log-query.js';
import { chartModel, viewUrl, type ChartModel } from './view-model.js';

export const DRILLDOWN_PATH = '/admin/analytics/drilldown';

export interface DrilldownRow {
  readonly path: string;
  readonly hits: number;
  /** The level below; null for a path nothing is listed under. */
  readonly url: string | null;
}

export interface Crumb {
  readonly label: string;
  /** null for the level shown. */
  readonly url: string | null;
}

export interface DrilldownModel {
  readonly rows: readonly DrilldownRow[];
  /** How many paths the level has; more than the rows when it has over RESULTS_SHOWN. */
  readonly paths: number;
  readonly crumbs: readonly Crumb[];
  readonly chart: ChartModel;
}

export function drilldownModel(query: DrilldownQuery, drilled: Drilldown): DrilldownModel {
  const at = (prefix: string) => {
    const parsed = parseDrilldownPrefix(prefix);
    if (!parsed.ok) return null;
    const level: DrilldownQuery = { ...query, prefix: parsed.prefix };
    return viewUrl(DRILLDOWN_PATH, level);
  };
  const points = drilled.hits_over_time.rows.map((row) => ({ start_at: row.c[0]!.v, hits: row.c.slice(1).reduce((sum, cell) => sum + cell.v, 0) }));
  return {
    rows: drilled.results.slice(0, RESULTS_SHOWN).map((result) => ({ path: result.path, hits: result.hits, url: result.terminal ? null : at(result.descendent_prefix) })),
    paths: drilled.results.length,
    crumbs: drilled.breadcrumbs.map((crumb, index, all) => ({ label: crumb.crumb, url: index === all.length - 1 ? null : at(crumb.prefix) })),
    chart: chartModel(points, query.interval, zoneOf(query)),
  };
}
