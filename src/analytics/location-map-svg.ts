// What By Location's map shows (views/admin/analytics/_location-map.eta
// draws it): the world's countries or the United States' states shaded by
// hits, each with hits a link to its level, as API Umbrella's GeoChart; a
// country's or a state's outline with a dot per city. The outlines come made
// from location-map-shapes.ts; here a request only picks shades and dots.
import { countryCenter, countryShape, stateShape, unitedStatesShape, worldShape, type MapArea, type MapShape } from './location-map-shapes.js';
import { COUNTRY_WITH_REGIONS, type MapRegion } from './query/map-region.js';

/** 0: no hits; 1–5: more hits, darker. */
export type MapShade = 0 | 1 | 2 | 3 | 4 | 5;
const SHADES = 5;

/** A country or a state of the level, with its hits and the link to its own level. */
export interface AreaHits {
  /** "CA" on the world map; "US-CO" (or "US-Colorado", from databases that name states) on the United States'. */
  readonly id: string;
  readonly name: string;
  readonly hits: number;
  readonly url: string | null;
}

export interface CityHits {
  readonly name: string;
  /** Its state or province, where known and told apart. */
  readonly region: string | null;
  readonly hits: number;
  readonly latitude: number;
  readonly longitude: number;
}

export interface MapPath {
  readonly d: string;
  readonly shade: MapShade;
  readonly href: string | null;
  /** Name and hits; null for an area without hits, so that the page names only locations of the admin's view (as the table does). */
  readonly title: string | null;
}

export interface MapDot {
  /** A city; else a marker standing in for a small area, shaded as it. */
  readonly city: boolean;
  readonly x: number;
  readonly y: number;
  readonly r: number;
  readonly shade: MapShade;
  readonly href: string | null;
  readonly title: string;
}

export type MapLegend =
  | { readonly kind: 'shades'; readonly steps: readonly { readonly shade: MapShade; readonly label: string }[] }
  | { readonly kind: 'dots'; readonly min: string; readonly max: string };

export interface LocationMapSvg {
  readonly width: number;
  readonly height: number;
  /** The SVG's aria-label: what it shows, in a sentence. */
  readonly label: string;
  /** Those without hits first, so that a shaded one's outline is drawn over its neighbours'. */
  readonly paths: readonly MapPath[];
  /** Small countries' and states' markers (Singapore, the District of Columbia), or the cities; the largest first, so that none hides a smaller one. */
  readonly dots: readonly MapDot[];
  /** null for a map without dots or shades to tell (a level whose cities have no place on it). */
  readonly legend: MapLegend | null;
  /** Locations with hits the map has no place for (a city outside the frame, a country without an outline): they are only in the table. */
  readonly unplaced: number;
}

/**
 * A step of a logarithmic scale from 1 hit to the level's most: hits spread
 * over orders of magnitude, and a country with a tenth of the top one's hits
 * still shows.
 */
export function shadeOf(hits: number, max: number): MapShade {
  if (hits <= 0) return 0;
  if (max <= 1 || hits >= max) return SHADES;
  const step = Math.floor((Math.log(hits) / Math.log(max)) * SHADES) + 1;
  return Math.min(SHADES, Math.max(1, step)) as MapShade;
}

/** The hits each shade stands for: "1", "2–9", … "1,201–5,000"; a shade no whole number of hits falls in is left out. */
export function legendSteps(max: number): { shade: MapShade; label: string }[] {
  const steps: { shade: MapShade; label: string }[] = [];
  let from = 1;
  for (let shade = 1 as MapShade; shade <= SHADES && from <= max; shade = (shade + 1) as MapShade) {
    let to = shade === SHADES ? max : Math.min(max, Math.floor(Math.pow(max, shade / SHADES)));
    // The power is computed in floating point: step to the exact edge.
    while (to < max && shadeOf(to + 1, max) <= shade) to++;
    while (to >= from && shadeOf(to, max) > shade) to--;
    if (to >= from) steps.push({ shade, label: from === to ? count(from) : `${count(from)}–${count(to)}` });
    from = Math.max(from, to + 1);
  }
  return steps;
}

const count = (hits: number) => hits.toLocaleString('en-US');
const hitsText = (hits: number) => (hits === 1 ? '1 hit' : `${count(hits)} hits`);

/** The world's countries (region world) or the United States' states (region US), shaded by hits. */
export function areaMap(region: MapRegion, areas: readonly AreaHits[]): LocationMapSvg | null {
  const states = region.level === 'country' && region.country === COUNTRY_WITH_REGIONS;
  if (region.level !== 'world' && !states) return null;
  const shape = states ? unitedStatesShape() : worldShape();
  const max = areas.reduce((most, area) => Math.max(most, area.hits), 0);
  const hit = new Map<MapArea, AreaHits>();
  const dots: MapDot[] = [];
  let unplaced = 0;
  for (const area of areas) {
    // A database that names states gives "US-Colorado": its name finds it.
    const drawn = shape.find(area.id, states ? area.name : '');
    // Two rows for one area ("US-CO" and "US-Colorado" after a change of GeoIP database): the second is only in the table.
    if (drawn !== undefined && hit.has(drawn)) {
      unplaced++;
      continue;
    }
    const marker = drawn === undefined ? markerFor(shape, states, area.id) : drawn.small ? drawn.center : null;
    if (drawn !== undefined) hit.set(drawn, area);
    if (marker !== null) dots.push({ city: false, x: marker[0], y: marker[1], r: 4, shade: shadeOf(area.hits, max), href: area.url, title: `${area.name}: ${hitsText(area.hits)}` });
    else if (drawn === undefined) unplaced++;
  }
  const paths = shape.areas.map((area): MapPath => {
    const hits = hit.get(area);
    return hits === undefined
      ? { d: area.d, shade: 0, href: null, title: null }
      : { d: area.d, shade: shadeOf(hits.hits, max), href: hits.url, title: `${hits.name}: ${hitsText(hits.hits)}` };
  });
  const top = areas.find((area) => area.hits === max);
  const what = states ? (areas.length === 1 ? 'state' : 'states') : areas.length === 1 ? 'country' : 'countries';
  return {
    width: shape.width,
    height: shape.height,
    label: `Map of hits per ${states ? 'state of the United States' : 'country'}: ${areas.length} ${what} with hits${top === undefined ? '' : `, the most in ${top.name} (${hitsText(top.hits)})`}.`,
    paths: [...paths.filter((path) => path.shade === 0), ...paths.filter((path) => path.shade !== 0)],
    dots,
    legend: { kind: 'shades', steps: legendSteps(max) },
    unplaced,
  };
}

/** Where a country the 1:110m world has no outline for (Singapore) is marked: its centre at 1:50m. */
function markerFor(shape: MapShape, states: boolean, id: string): readonly [number, number] | null {
  if (states) return null;
  const center = countryCenter(id);
  return center === null ? null : shape.place(center[0], center[1]);
}

/**
 * A country's outline (or, below a country other than the United States,
 * still the country's) or a state's, with its cities as dots sized by hits.
 * `listed`: the level's rows, cities without coordinates too.
 */
export function cityMap(region: MapRegion, cities: readonly CityHits[], listed = cities.length): LocationMapSvg | null {
  if (region.level === 'world') return null;
  const inState = region.level === 'region' && region.country === COUNTRY_WITH_REGIONS;
  const shape = inState ? stateShape(region.region) : countryShape(region.country);
  if (shape === null) return null;
  const outline = shape.areas[0];
  const name = outline?.name ?? region.country;
  const max = cities.reduce((most, city) => Math.max(most, city.hits), 0);
  const dots: MapDot[] = [];
  for (const city of cities) {
    const at = shape.place(city.longitude, city.latitude);
    if (at === null) continue;
    // Area in proportion to hits, and never so small it cannot be pointed at.
    const r = Math.round((3 + 11 * Math.sqrt(city.hits / max)) * 10) / 10;
    dots.push({ city: true, x: at[0], y: at[1], r, shade: 0, href: null, title: `${city.region === null ? city.name : `${city.name}, ${city.region}`}: ${hitsText(city.hits)}` });
  }
  dots.sort((a, b) => b.r - a.r);
  const top = cities.find((city) => city.hits === max);
  return {
    width: shape.width,
    height: shape.height,
    label: `Map of ${name}: ${dots.length} ${dots.length === 1 ? 'city' : 'cities'} as dots sized by hits${top === undefined ? '' : `, the most in ${top.name} (${hitsText(top.hits)})`}.`,
    paths: outline === undefined ? [] : [{ d: outline.d, shade: 0, href: null, title: name }],
    dots,
    legend: dots.length === 0 ? null : { kind: 'dots', min: count(cities.reduce((least, city) => Math.min(least, city.hits), max)), max: count(max) },
    unplaced: Math.max(0, listed - dots.length),
  };
}
