// What the API Drilldown page shows: the listed paths with the links one
// level down, the trail of levels back up, and the chart of the prefix's hits.
import type { Drilldown } from '../drilldown-queries.js';
import { parseDrilldownPrefix, ROOT_PREFIX, type DrilldownQuery } from '../query/drilldown-prefix.js';
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
  readonly crumbs: readonly Crumb[];
  readonly chart: ChartModel;
  readonly hits: number;
}

export function drilldownModel(query: DrilldownQuery, drilled: Drilldown): DrilldownModel {
  const at = (prefix: string) => {
    const level: DrilldownQuery = { ...query, prefix: parsedPrefix(prefix) };
    return viewUrl(DRILLDOWN_PATH, level);
  };
  const points = drilled.hits_over_time.rows.map((row) => ({ start_at: row.c[0]!.v, hits: row.c.slice(1).reduce((sum, cell) => sum + cell.v, 0) }));
  return {
    rows: drilled.results.map((result) => ({ path: result.path, hits: result.hits, url: result.terminal ? null : at(result.descendent_prefix) })),
    crumbs: crumbs(query).map((crumb, index, all) => ({ label: crumb.label, url: index === all.length - 1 ? null : at(crumb.prefix) })),
    chart: chartModel(points, query.interval),
    hits: drilled.results.reduce((sum, result) => sum + result.hits, 0),
  };
}

/** All hosts, then one level per "/" of the prefix's base: "api.example.com/", "api.example.com/v1/", … */
function crumbs(query: DrilldownQuery): { label: string; prefix: string }[] {
  const { depth, base } = query.prefix;
  const levels = [{ label: 'All hosts', prefix: ROOT_PREFIX }];
  for (let level = 1, end = base.indexOf('/'); level <= depth; level++, end = base.indexOf('/', end + 1)) {
    const path = base.slice(0, end + 1);
    levels.push({ label: path, prefix: `${level}/${path}` });
  }
  return levels;
}

function parsedPrefix(prefix: string): DrilldownQuery['prefix'] {
  const parsed = parseDrilldownPrefix(prefix);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.prefix;
}
