// Analytics › By Location: a view's hits per country, per state of the
// United States, or per city, in API Umbrella's map.json shape (its
// map_regions rows are a Google Charts GeoChart's data). The hits come per
// client IP (from the daily rollups where the view allows, else the rows)
// and are summed by where analytics_ip_locations places each IP. Hits of IPs
// the GeoIP database does not place at the level (no country; in a country,
// no state or no city) are its "Unknown" row, as API Umbrella lists them, so
// that the level's hits add up to the view's.
import type { Db } from '../store/db.js';
import type { LocationField } from './fields.js';
import type { SqlCondition } from './query/filter-rules.js';
import { COUNTRY_WITH_REGIONS, regionParam, WORLD, type MapQuery, type MapRegion } from './query/map-region.js';

export interface LocationHits {
  /** A country code ("US"), a state as "US-CO", or a city's name. */
  readonly id: string;
  readonly name: string;
  readonly hits: number;
  /** A city's state or province (its name where known): two cities of one name are two rows. Not in API Umbrella's answer. */
  readonly region?: string;
}

export type GeoChartCell = { readonly v: string | number; readonly f?: string };

export interface MapBreadcrumb {
  /** The level's region parameter; absent for the level shown. */
  readonly region?: string;
  readonly name: string;
}

export interface LocationMap {
  readonly region_field: LocationField;
  /** Most hits first. */
  readonly regions: readonly LocationHits[];
  readonly map_regions: readonly { readonly c: readonly GeoChartCell[] }[];
  readonly map_breadcrumbs: readonly MapBreadcrumb[];
}

/** The id and name of the row for hits placed nowhere at the level, as API Umbrella names it. */
export const UNKNOWN_LOCATION = { id: 'missing', name: 'Unknown' } as const;

/** A level's locations, and the hits of its IPs placed at none of them. */
export interface LevelHits {
  /** Most hits first. */
  readonly places: readonly PlaceHits[];
  readonly unknown: number;
}

/** One location of a level, as the query sums it. */
export interface PlaceHits {
  readonly id: string;
  /** The name of the row's state (the database's, where it has one). */
  readonly region_name: string | null;
  readonly hits: number;
  readonly latitude: number | null;
  readonly longitude: number | null;
}

const COUNTRY_NAMES = new Intl.DisplayNames(['en'], { type: 'region' });

/** "United States" for "US"; the code itself for one Intl does not know. */
function countryName(code: string): string {
  try {
    return COUNTRY_NAMES.of(code) ?? code;
  } catch {
    return code;
  }
}

/** `ipHits` selects request_ip and hits for the view; its parameters come first. */
export function locationRows(db: Db, query: MapQuery, ipHits: SqlCondition): LevelHits {
  const level = levelOf(query.region);
  // A LEFT JOIN: at the world level an IP without a location counts too, as Unknown (its id is null).
  const rows = db
    .prepare(
      `SELECT ${level.id} AS id, max(l.region_name) AS region_name, sum(h.hits) AS hits, round(avg(l.latitude), 4) AS latitude, round(avg(l.longitude), 4) AS longitude
       FROM (${ipHits.sql}) AS h LEFT JOIN analytics_ip_locations AS l USING (request_ip)
       WHERE ${level.where} GROUP BY ${level.groupBy} ORDER BY hits DESC, id, region_name`,
    )
    .all(...ipHits.params, ...level.params) as (Omit<PlaceHits, 'id'> & { id: string | null })[];
  const places = rows.filter((row): row is PlaceHits => row.id !== null);
  return { places, unknown: rows.reduce((sum, row) => (row.id === null ? sum + row.hits : sum), 0) };
}

/** The level's rows in API Umbrella's map.json shape: Unknown last in `regions`, and on no map. */
export function locationMap(region: MapRegion, { places: rows, unknown }: LevelHits): LocationMap {
  const level = levelOf(region);
  const unknownRow: LocationHits[] = unknown > 0 ? [{ ...UNKNOWN_LOCATION, hits: unknown }] : [];
  const count = (hits: number): GeoChartCell => ({ v: hits, f: hits.toLocaleString('en-US') });
  if (level.field === 'request_ip_city') {
    return {
      region_field: level.field,
      regions: [...rows.map((row) => ({ id: row.id, name: row.id, hits: row.hits, ...(row.region_name === null ? {} : { region: row.region_name }) })), ...unknownRow],
      // A city the database gives no coordinates has no point on the map; it is still listed.
      map_regions: rows.flatMap((row) => (row.latitude === null || row.longitude === null ? [] : [{ c: [{ v: row.latitude }, { v: row.longitude }, { v: row.id }, count(row.hits)] }])),
      map_breadcrumbs: breadcrumbs(region, rows[0]?.region_name ?? null),
    };
  }
  // Countries and states: the map takes the code ("US", "CO"); the list takes a state as "US-CO".
  const states = level.field === 'request_ip_region';
  const named = rows.map((row) => ({ code: row.id, name: states ? (row.region_name ?? row.id) : countryName(row.id), hits: row.hits }));
  return {
    region_field: level.field,
    regions: [...named.map(({ code, name, hits }) => ({ id: states ? `${COUNTRY_WITH_REGIONS}-${code}` : code, name, hits })), ...unknownRow],
    map_regions: named.map(({ code, name, hits }) => ({ c: [{ v: code, f: name }, count(hits)] })),
    map_breadcrumbs: breadcrumbs(region, null),
  };
}

interface Level {
  readonly field: LocationField;
  readonly id: string;
  readonly groupBy: string;
  readonly where: string;
  readonly params: readonly string[];
}

function levelOf(region: MapRegion): Level {
  if (region.level === 'world') return { field: 'request_ip_country', id: 'l.country', groupBy: 'l.country', where: '1', params: [] };
  if (region.level === 'country' && region.country === COUNTRY_WITH_REGIONS) {
    return { field: 'request_ip_region', id: 'l.region', groupBy: 'l.region', where: 'l.country = ?', params: [region.country] };
  }
  // "us-co" finds "CO"; a region that is a name ("Québec") matches in any ASCII case too.
  const inRegion = region.level === 'region' ? ' AND l.region = ? COLLATE NOCASE' : '';
  const params = region.level === 'region' ? [region.country, region.region] : [region.country];
  return { field: 'request_ip_city', id: 'l.city', groupBy: 'l.region, l.city', where: `l.country = ?${inRegion}`, params };
}

/** World, then the country (a link when a state is shown), then the state (by its name, where known); the last is the level shown. */
function breadcrumbs(region: MapRegion, regionName: string | null): MapBreadcrumb[] {
  if (region.level === 'world') return [];
  const country = countryName(region.country);
  const world = { region: regionParam(WORLD), name: 'World' };
  if (region.level === 'country') return [world, { name: country }];
  return [world, { region: region.country, name: country }, { name: regionName ?? region.region }];
}
