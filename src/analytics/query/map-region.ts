// By Location's level, as API Umbrella's map.json `region` parameter names
// it: "world" lists countries; "US" lists the states of the United States
// and any other country code its cities; "US-CO" lists a state's cities.
import type { TimeZoneName } from '../../lib/time-zone.js';
import { parseLogQuery, type LogQuery, type ViewDefaults } from './log-query.js';

export type MapRegion =
  | { readonly level: 'world' }
  | { readonly level: 'country'; readonly country: string }
  | { readonly level: 'region'; readonly country: string; readonly region: string };

export interface MapQuery extends LogQuery {
  readonly region: MapRegion;
}

export const WORLD: MapRegion = { level: 'world' };

/** API Umbrella goes from the United States to its states, from any other country to its cities. */
export const COUNTRY_WITH_REGIONS = 'US';

export type MapRegionResult = { ok: true; region: MapRegion } | { ok: false; error: string };

export function parseMapRegion(raw: unknown): MapRegionResult {
  if (raw === undefined || raw === '' || raw === 'world') return { ok: true, region: WORLD };
  // A region is an ISO code ("CO") or, from databases without codes, a name ("Québec"): any text but control characters.
  const match = typeof raw === 'string' ? /^([A-Za-z]{2})(?:-([^\p{Cc}]{1,100}))?$/u.exec(raw) : null;
  if (match === null) return { ok: false, error: 'region must be world, a two-letter country code (US) or a country and region (US-CO)' };
  const country = match[1]!.toUpperCase();
  return { ok: true, region: match[2] === undefined ? { level: 'country', country } : { level: 'region', country, region: match[2] } };
}

/** The region as its parameter: "world", "US", "US-CO". */
export function regionParam(region: MapRegion): string {
  if (region.level === 'world') return 'world';
  return region.level === 'country' ? region.country : `${region.country}-${region.region}`;
}

/** The parameters of a view and its level: the query, or the one message for a 400. */
export function parseMapQuery(params: Record<string, unknown>, now: number, defaults?: ViewDefaults, zone?: TimeZoneName): { ok: true; query: MapQuery } | { ok: false; error: string } {
  const parsed = parseLogQuery(params, now, defaults, zone);
  if (!parsed.ok) return parsed;
  const region = parseMapRegion(params.region);
  if (!region.ok) return region;
  return { ok: true, query: { ...parsed.query, region: region.region } };
}
