// The outlines By Location's map draws, projected to SVG path strings once
// per level and kept: the world's countries (Natural Earth through
// world-atlas), the United States' states and one state (the Census Bureau's
// through us-atlas), one country. The atlas files are read when a level first
// needs them, once; a request then only picks shades for paths made already.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  geoAlbersUsa,
  geoArea,
  geoAzimuthalEqualArea,
  geoCentroid,
  geoDistance,
  geoIdentity,
  geoNaturalEarth1,
  geoPath,
  type GeoIdentityTransform,
  type GeoPermissibleObjects,
  type GeoProjection,
} from 'd3-geo';
import type { Feature, MultiPoint, MultiPolygon, Polygon, Position } from 'geojson';
import { iso31661NumericToAlpha2, iso31662 } from 'iso-3166';
import { feature } from 'topojson-client';
import { path, type Draw } from './svg-path-data.js';

/** The frame's width; the height follows from the shape. */
const MAP_WIDTH = 960;
const MAX_HEIGHT = 500;
const PADDING = 6;
/** An area smaller than this (square units of the frame) is hard to see or point at: a marker stands in for it. */
const SMALL_AREA = 20;
/** A country's parts this far (radians, about 30°) from its largest one are drawn but not framed: France's overseas departments, not Corsica. */
const FAR_PART = Math.PI / 6;
/** The least a frame shows around a small country's centre, in degrees each way: Singapore is a dot on its sea, not a polygon of 1:50m's few points blown up. */
const LEAST_REACH = 0.5;

export interface MapArea {
  /** "CA" on the world map, "US-CO" on the United States'; null for an area ISO gives no code (Northern Cyprus, Somaliland). */
  readonly code: string | null;
  readonly name: string;
  /** SVG path data, in the frame's units. */
  readonly d: string;
  /** Where a marker stands in for the area when it is small (on the world's and the United States' maps). */
  readonly center: readonly [number, number];
  readonly small: boolean;
}

export interface MapShape {
  readonly width: number;
  readonly height: number;
  readonly areas: readonly MapArea[];
  /** A level's area by its code ("CA", "US-CO") or, failing that, its name (any case); undefined for none. */
  find(code: string, name: string): MapArea | undefined;
  /** Where a place falls in the frame; null when outside it. */
  place(longitude: number, latitude: number): readonly [number, number] | null;
}

// ---- the atlas files, each read and parsed once, when first needed -------

type Topology = Parameters<typeof feature>[0];
type AtlasGeometry = { readonly id?: string; readonly properties?: { readonly name?: string } };

const packageFile = createRequire(import.meta.url).resolve;

function lazy<T>(make: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: make() }).v;
}

function readTopology(file: string): Topology {
  return JSON.parse(readFileSync(packageFile(file), 'utf8')) as Topology;
}

// The two read for one map each are let go once it is made; the two read for one country or state at a time are kept.
/** Natural Earth's countries at 1:110m: the world map. */
const world110m = () => readTopology('world-atlas/countries-110m.json');
/** At 1:50m: one country's outline, and the small countries 1:110m leaves out (Singapore, Malta, Hong Kong). */
const world50m = lazy(() => readTopology('world-atlas/countries-50m.json'));
/** The states, projected by us-atlas to its Albers USA frame (975×610, Alaska and Hawaii inset) and simplified for it. */
const statesAlbers = () => readTopology('us-atlas/states-albers-10m.json');
/** The states in longitude and latitude: one state's outline, with its cities placed. */
const states10m = lazy(() => readTopology('us-atlas/states-10m.json'));

/** ISO gives Kosovo no code; GeoIP databases (MaxMind's, DB-IP's) use the user-assigned XK, which Natural Earth names without a number. */
const UNNUMBERED: Readonly<Record<string, string>> = { Kosovo: 'XK' };

function countryCode(geometry: AtlasGeometry): string | null {
  if (geometry.id !== undefined) return (iso31661NumericToAlpha2 as Record<string, string | undefined>)[geometry.id] ?? null;
  return UNNUMBERED[geometry.properties?.name ?? ''] ?? null;
}

/** "US-CO" for "Colorado", from ISO 3166-2's names of the United States' subdivisions (us-atlas names states, with FIPS numbers). */
const stateCodes = lazy(() => new Map(iso31662.filter((entry) => entry.parent === 'US').map((entry) => [entry.name.toLowerCase(), entry.code])));
const stateNames = lazy(() => new Map(iso31662.filter((entry) => entry.parent === 'US').map((entry) => [entry.code, entry.name.toLowerCase()])));

function geometriesOf(topology: Topology, object: string): readonly AtlasGeometry[] {
  return (topology.objects[object] as unknown as { geometries: AtlasGeometry[] }).geometries;
}

function featureOf(topology: Topology, geometry: AtlasGeometry): Feature {
  return feature(topology, geometry as Parameters<typeof feature>[1]) as Feature;
}

// ---- shapes, made once per level ----------------------------------------

/** Fit to the frame's width; a shape taller than MAX_HEIGHT is fitted to that instead (Chile). */
function fitFrame(projection: GeoProjection | GeoIdentityTransform, object: GeoPermissibleObjects): { width: number; height: number } {
  const fit = (height: number) =>
    projection.fitExtent(
      [
        [PADDING, PADDING],
        [MAP_WIDTH - PADDING, height - PADDING],
      ],
      object,
    );
  // First as wide as the frame and as tall as it takes (a box far taller than wide fits the width), then in the height that takes.
  fit(100 * MAP_WIDTH);
  const [[, top], [, bottom]] = geoPath(projection).bounds(object);
  const height = Math.min(MAX_HEIGHT, Math.ceil(bottom - top + 2 * PADDING));
  fit(height);
  return { width: MAP_WIDTH, height };
}

function inFrame(width: number, height: number, point: [number, number] | null): readonly [number, number] | null {
  if (point === null || !Number.isFinite(point[0]) || !Number.isFinite(point[1])) return null;
  const [x, y] = point;
  return x < 0 || y < 0 || x > width || y > height ? null : [round(x), round(y)];
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function makeShape(
  frame: { width: number; height: number },
  areas: MapArea[],
  place: (longitude: number, latitude: number) => [number, number] | null,
): MapShape {
  const byCode = new Map(areas.flatMap((area) => (area.code === null ? [] : [[area.code, area] as const])));
  const byName = new Map(areas.map((area) => [area.name.toLowerCase(), area]));
  return {
    ...frame,
    areas,
    find: (code, name) => byCode.get(code.toUpperCase()) ?? byName.get(name.toLowerCase()),
    place: (longitude, latitude) => inFrame(frame.width, frame.height, place(longitude, latitude)),
  };
}

/** An area of a map of many; `alone`: the only one (a country's or a state's level), which needs no marker, so its size and centre are not measured. */
function areaOf(draw: Draw, code: string | null, name: string, object: GeoPermissibleObjects, alone = false): MapArea | null {
  const d = draw(object);
  if (d === '') return null;
  if (alone) return { code, name, d, center: [0, 0], small: false };
  const [x, y] = draw.centroid(object);
  return { code, name, d, center: [round(x), round(y)], small: draw.area(object) < SMALL_AREA };
}

/** Every country but Antarctica (no one's requests come from there, and it would take a fifth of the frame), in the Natural Earth projection. */
export const worldShape = lazy((): MapShape => {
  const topology = world110m();
  const countries = geometriesOf(topology, 'countries')
    .filter((geometry) => geometry.id !== '010')
    .map((geometry) => ({ code: countryCode(geometry), name: geometry.properties?.name ?? '', feature: featureOf(topology, geometry) }));
  const projection = geoNaturalEarth1();
  const frame = fitFrame(projection, { type: 'FeatureCollection', features: countries.map((country) => country.feature) });
  const draw = path(projection);
  return makeShape(
    frame,
    countries.flatMap((country) => areaOf(draw, country.code, country.name, country.feature) ?? []),
    (longitude, latitude) => projection([longitude, latitude]),
  );
});

/** The states and the District of Columbia, as us-atlas projected them (Albers USA), scaled to the frame. */
export const unitedStatesShape = lazy((): MapShape => {
  const topology = statesAlbers();
  const states = geometriesOf(topology, 'states').map((geometry) => {
    const name = geometry.properties?.name ?? '';
    return { code: stateCodes().get(name.toLowerCase()) ?? null, name, feature: featureOf(topology, geometry) };
  });
  const identity = geoIdentity();
  const frame = fitFrame(identity, { type: 'FeatureCollection', features: states.map((state) => state.feature) });
  const draw = path(identity);
  // us-atlas's projection, as its README gives it: places go through it, then through the same fit.
  const albers = geoAlbersUsa().scale(1300).translate([487.5, 305]);
  return makeShape(
    frame,
    states.flatMap((state) => areaOf(draw, state.code, state.name, state.feature) ?? []),
    (longitude, latitude) => {
      const projected = albers([longitude, latitude]);
      return projected === null ? null : identity(projected);
    },
  );
});

interface Outline {
  readonly shape: MapShape;
  /** The centre of its main parts, as longitude and latitude. */
  readonly center: readonly [number, number];
}

const countryOutlines = new Map<string, Outline | null>();
const stateOutlines = new Map<string, Outline>();

/** One country ("CA"), at 1:50m, framed on its main parts; null for a code the atlas has no outline for. */
export function countryShape(code: string): MapShape | null {
  return countryOutline(code)?.shape ?? null;
}

/** A country's centre (longitude, latitude) at 1:50m: a marker on the world map where 1:110m has no outline (Singapore); null for none. */
export function countryCenter(code: string): readonly [number, number] | null {
  return countryOutline(code)?.center ?? null;
}

function countryOutline(code: string): Outline | null {
  const key = code.toUpperCase();
  // Two letters (see parseMapRegion), so remembering misses too stays small.
  if (!/^[A-Z]{2}$/.test(key)) return null;
  if (!countryOutlines.has(key)) {
    const topology = world50m();
    const parts = geometriesOf(topology, 'countries').filter((geometry) => countryCode(geometry) === key);
    const first = parts[0];
    countryOutlines.set(key, first === undefined ? null : outline(key, first.properties?.name ?? key, parts.map((part) => featureOf(topology, part))));
  }
  return countryOutlines.get(key)!;
}

/** One state of the United States, by its code ("CO", any case) or name ("Colorado"); null for neither. */
export function stateShape(region: string): MapShape | null {
  const name = stateNames().get(`US-${region.toUpperCase()}`) ?? region.toLowerCase();
  const topology = states10m();
  const geometry = geometriesOf(topology, 'states').find((state) => state.properties?.name?.toLowerCase() === name);
  if (geometry === undefined) return null;
  // Remembered by the atlas's name, not by region: that is any text a URL brings.
  const atlasName = geometry.properties!.name!;
  if (!stateOutlines.has(atlasName)) stateOutlines.set(atlasName, outline(stateCodes().get(name) ?? null, atlasName, [featureOf(topology, geometry)]));
  return stateOutlines.get(atlasName)!.shape;
}

/**
 * An outline alone in the frame, seen from above its main parts (Lambert's
 * azimuthal equal-area projection, centred there): parts far from the largest
 * (overseas territories) are cut at the frame's edge; a small country keeps
 * some of its surroundings.
 */
function outline(code: string | null, name: string, features: readonly Feature[]): Outline {
  const polygons = features.flatMap((part) => polygonsOf(part));
  const areas = polygons.map((polygon) => geoArea(polygon));
  const largest = polygons[areas.indexOf(Math.max(...areas))]!;
  const middle = geoCentroid(largest);
  // For the smaller parts (islands, exclaves), their first point tells near from far well enough, and costs nothing.
  const near = polygons.filter((polygon) => polygon === largest || geoDistance(polygon.coordinates[0]![0] as [number, number], middle) <= FAR_PART);
  const main: MultiPolygon = { type: 'MultiPolygon', coordinates: near.map((polygon) => polygon.coordinates) };
  const center = geoCentroid(main);
  const projection = geoAzimuthalEqualArea().rotate([-center[0], -center[1]]);
  const [x, y] = center;
  const reach: MultiPoint = { type: 'MultiPoint', coordinates: [[x - LEAST_REACH, y], [x + LEAST_REACH, y], [x, y - LEAST_REACH], [x, y + LEAST_REACH]] };
  const frame = fitFrame(projection, { type: 'GeometryCollection', geometries: [main, reach] });
  projection.clipExtent([
    [0, 0],
    [frame.width, frame.height],
  ]);
  const whole: MultiPolygon = { type: 'MultiPolygon', coordinates: polygons.map((polygon) => polygon.coordinates) };
  const area = areaOf(path(projection), code, name, whole, true);
  return { shape: makeShape(frame, area === null ? [] : [area], (longitude, latitude) => projection([longitude, latitude])), center };
}

function polygonsOf(part: Feature): Polygon[] {
  const geometry = part.geometry;
  if (geometry.type === 'Polygon') return [geometry];
  if (geometry.type === 'MultiPolygon') return geometry.coordinates.map((coordinates: Position[][]) => ({ type: 'Polygon', coordinates }));
  return [];
}
