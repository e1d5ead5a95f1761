// What the By Location page shows: the level's locations on a map and in a
// table, with their share of the hits and the link one level down, and the
// trail of levels back up.
import { areaMap, cityMap, type CityHits, type LocationMapSvg } from '../location-map-svg.js';
import type { LocationHits, LocationMap } from '../location-queries.js';
import { parseMapRegion, type MapQuery } from '../query/map-region.js';
import { viewUrl } from './view-model.js';

export const LOCATIONS_PATH = '/admin/analytics/locations';

export interface LocationRow {
  readonly name: string;
  /** Beside the name: the country's or state's code, a city's state or province; null for none. */
  readonly detail: string | null;
  readonly hits: number;
  /** Of the level's hits, 0–100, rounded to one decimal. */
  readonly percent: number;
  /** The level below; null for a city. */
  readonly url: string | null;
}

export interface LocationCrumb {
  readonly label: string;
  /** null for the level shown. */
  readonly url: string | null;
}

export interface LocationModel {
  readonly rows: readonly LocationRow[];
  readonly crumbs: readonly LocationCrumb[];
  /** What the rows are: "Country", "State", "City". */
  readonly heading: string;
  /** Above the table; null when the level has no hits (the table says so) or no outline to draw. */
  readonly map: LocationMapSvg | null;
}

const HEADINGS = { request_ip_country: 'Country', request_ip_region: 'State', request_ip_city: 'City' } as const;

export function locationModel(query: MapQuery, map: LocationMap): LocationModel {
  const at = (region: string) => {
    const parsed = parseMapRegion(region);
    return parsed.ok ? viewUrl(LOCATIONS_PATH, { ...query, region: parsed.region } as MapQuery) : null;
  };
  const total = map.regions.reduce((sum, region) => sum + region.hits, 0);
  const drills = map.region_field !== 'request_ip_city';
  const rows = map.regions.map((region) => ({
    name: region.name,
    detail: drills ? region.id : (region.region ?? null),
    hits: region.hits,
    percent: Math.round((region.hits / total) * 1000) / 10,
    url: drills ? at(region.id) : null,
  }));
  return {
    rows,
    // API Umbrella's trail is empty at the top.
    crumbs: map.map_breadcrumbs.length === 0 ? [{ label: 'World', url: null }] : map.map_breadcrumbs.map((crumb) => ({ label: crumb.name, url: crumb.region === undefined ? null : at(crumb.region) })),
    heading: HEADINGS[map.region_field],
    map:
      rows.length === 0
        ? null
        : drills
          ? areaMap(query.region, map.regions.map((region, index) => ({ id: region.id, name: region.name, hits: region.hits, url: rows[index]!.url })))
          : cityMap(query.region, placedCities(map), rows.length),
  };
}

/**
 * The cities with coordinates, each with its state or province. map_regions
 * has the placed ones in the order of regions, without their state: a run of
 * cities of one name and count is given theirs only when all of them are
 * placed, for then the two lists pair one to one.
 */
export function placedCities(map: LocationMap): CityHits[] {
  const key = (name: unknown, hits: unknown) => `${String(hits)}\u0000${String(name)}`;
  const runs = new Map<string, LocationHits[]>();
  for (const region of map.regions) {
    const run = runs.get(key(region.id, region.hits));
    if (run === undefined) runs.set(key(region.id, region.hits), [region]);
    else run.push(region);
  }
  const placed = map.map_regions.map(({ c }) => ({ latitude: Number(c[0]?.v), longitude: Number(c[1]?.v), name: String(c[2]?.v), hits: Number(c[3]?.v) }));
  const placedPerRun = new Map<string, number>();
  for (const city of placed) placedPerRun.set(key(city.name, city.hits), (placedPerRun.get(key(city.name, city.hits)) ?? 0) + 1);
  const seen = new Map<string, number>();
  return placed.map((city) => {
    const k = key(city.name, city.hits);
    const run = runs.get(k) ?? [];
    const index = seen.get(k) ?? 0;
    seen.set(k, index + 1);
    return { ...city, region: placedPerRun.get(k) === run.length ? (run[index]?.region ?? null) : null };
  });
}
