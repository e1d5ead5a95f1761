// What the By Location page shows: the level's locations on a map and in a
// table, with their share of the hits and the link one level down, and the
// trail of levels back up.
import { areaMap, cityMap, type CityHits, type LocationMapSvg } from '../location-map-svg.js';
import { locationMap, UNKNOWN_LOCATION, type LevelHits, type PlaceHits } from '../location-queries.js';
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
  /** The hits placed at no location of the level. */
  readonly unknown: boolean;
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

/** `level`: the level's rows, as the query sums them (locationRows). */
export function locationModel(query: MapQuery, level: LevelHits): LocationModel {
  const map = locationMap(query.region, level);
  const at = (region: string) => {
    const parsed = parseMapRegion(region);
    return parsed.ok ? viewUrl(LOCATIONS_PATH, { ...query, region: parsed.region } as MapQuery) : null;
  };
  const total = map.regions.reduce((sum, region) => sum + region.hits, 0);
  const drills = map.region_field !== 'request_ip_city';
  const rows = map.regions.map((region) => {
    // Unknown is no place to go down into, nor to draw.
    const unknown = region.id === UNKNOWN_LOCATION.id;
    return {
      name: region.name,
      detail: drills && !unknown ? region.id : (region.region ?? null),
      hits: region.hits,
      percent: Math.round((region.hits / total) * 1000) / 10,
      url: drills && !unknown ? at(region.id) : null,
      unknown,
    };
  });
  const { places } = level;
  return {
    rows,
    // API Umbrella's trail is empty at the top.
    crumbs: map.map_breadcrumbs.length === 0 ? [{ label: 'World', url: null }] : map.map_breadcrumbs.map((crumb) => ({ label: crumb.name, url: crumb.region === undefined ? null : at(crumb.region) })),
    heading: HEADINGS[map.region_field],
    // The regions are the places, in their order, then Unknown: the map draws the places.
    map:
      places.length === 0
        ? null
        : drills
          ? areaMap(query.region, places.map((_, index) => ({ ...map.regions[index]!, url: rows[index]!.url })))
          : cityMap(query.region, placedCities(places), places.length),
  };
}

/** A city level's cities with coordinates, each with its state or province: what the map draws. */
function placedCities(rows: readonly PlaceHits[]): CityHits[] {
  return rows.flatMap((row) =>
    row.latitude === null || row.longitude === null ? [] : [{ name: row.id, region: row.region_name, hits: row.hits, latitude: row.latitude, longitude: row.longitude }],
  );
}
