// By Location's map: the outlines from the real atlases (world-atlas,
// us-atlas), the shades and dots a level's hits give them, and the SVG the
// page's partial draws from that, rendered by Eta as the page renders it.
import { Eta } from 'eta';
import { describe, expect, it } from 'vitest';
import { countryShape, stateShape, unitedStatesShape, worldShape } from '../../src/analytics/location-map-shapes.js';
import { areaMap, cityMap, legendSteps, shadeOf, type AreaHits, type CityHits, type LocationMapSvg } from '../../src/analytics/location-map-svg.js';
import type { PlaceHits } from '../../src/analytics/location-queries.js';
import { parseMapQuery, WORLD, type MapRegion } from '../../src/analytics/query/map-region.js';
import { locationModel } from '../../src/analytics/routes/location-view.js';
import { packagePath } from '../../src/lib/package-path.js';

const eta = new Eta({ views: packagePath('views') });
const render = (map: LocationMapSvg) => eta.render('/admin/analytics/_location-map', map);
const US: MapRegion = { level: 'country', country: 'US' };
const level = (region: string) => `/admin/analytics/locations?range=last_7_days&region=${region}`;
const country = (id: string, name: string, hits: number): AreaHits => ({ id, name, hits, url: level(id) });

describe('the world map', () => {
  it("draws each country of Natural Earth's 1:110m map but Antarctica, in grey and unnamed when it has no hits", () => {
    const map = areaMap(WORLD, [])!;
    expect(map.paths).toHaveLength(176);
    expect(map.paths.every((path) => path.shade === 0 && path.href === null && path.title === null && path.d.startsWith('M'))).toBe(true);
    const svg = render(map);
    expect(svg.match(/<path d="M[^"]+" class="area shade-0"\/>/g)).toHaveLength(176);
    expect(svg).not.toContain('<title>');
    expect(svg).toMatch(/<svg viewBox="0 0 960 \d+" role="img" aria-label="Map of hits per country: 0 countries with hits\."/);
    expect(svg).not.toContain('style=');
  });

  it('shades a country with hits and links it to its level, the most hits darkest', () => {
    const map = areaMap(WORLD, [country('GB', 'United Kingdom', 800), country('CA', 'Canada', 30), country('US', 'United States', 2)])!;
    const shaded = map.paths.filter((path) => path.shade > 0);
    expect(shaded.map(({ shade, href, title }) => ({ shade, href, title })).sort((a, b) => b.shade - a.shade)).toEqual([
      { shade: 5, href: level('GB'), title: 'United Kingdom: 800 hits' },
      { shade: 3, href: level('CA'), title: 'Canada: 30 hits' },
      { shade: 1, href: level('US'), title: 'United States: 2 hits' },
    ]);
    // Drawn after the grey ones, so that their outlines are on top.
    expect(map.paths.slice(-3)).toEqual(shaded);
    const svg = render(map);
    expect(svg).toMatch(/<a href="\/admin\/analytics\/locations\?range=last_7_days&amp;region=GB" tabindex="-1"><path d="M[^"]+" class="area shade-5"><title>United Kingdom: 800 hits<\/title><\/path><\/a>/);
    expect(svg).toContain('aria-label="Map of hits per country: 3 countries with hits, the most in United Kingdom (800 hits)."');
    expect(map.legend).toEqual({ kind: 'shades', steps: legendSteps(800) });
    expect(svg).toMatch(/<span class="legend-step"><span class="swatch shade-5"><\/span>[\d,]+–800<\/span>/);
  });

  it('marks a country too small to see with a linked dot: Singapore (only at 1:50m) and Luxembourg (a few points at 1:110m)', () => {
    const map = areaMap(WORLD, [country('SG', 'Singapore', 30), country('LU', 'Luxembourg', 1)])!;
    expect(map.dots).toEqual([
      { city: false, x: expect.any(Number), y: expect.any(Number), r: 4, shade: 5, href: level('SG'), title: 'Singapore: 30 hits' },
      { city: false, x: expect.any(Number), y: expect.any(Number), r: 4, shade: 1, href: level('LU'), title: 'Luxembourg: 1 hit' },
    ]);
    // Singapore is at the tip of the Malay peninsula: east of India, south of China.
    const [singapore] = map.dots;
    const at = (code: string) => worldShape().find(code, '')!.center;
    expect(singapore!.x).toBeGreaterThan(at('IN')[0]);
    expect(singapore!.y).toBeGreaterThan(at('CN')[1]);
    expect(map.paths.find((path) => path.href === level('LU'))?.shade).toBe(1);
    expect(render(map)).toMatch(/<a href="[^"]+region=SG" tabindex="-1"><circle cx="[\d.]+" cy="[\d.]+" r="4" class="marker shade-5"><title>Singapore: 30 hits<\/title><\/circle><\/a>/);
  });

  it('shades an area once when two rows name it (a state by code and by name, after a change of GeoIP database), the second only in the table', () => {
    const map = areaMap(US, [
      { id: 'US-CO', name: 'Colorado', hits: 5, url: '/co' },
      { id: 'US-Colorado', name: 'Colorado', hits: 2, url: '/colorado' },
    ])!;
    expect(map.paths.filter((path) => path.shade !== 0)).toEqual([expect.objectContaining({ href: '/co', title: 'Colorado: 5 hits' })]);
    expect(map.unplaced).toBe(1);
  });

  it('counts a location it has no place for, which is then only in the table', () => {
    const map = areaMap(WORLD, [country('EU', 'Europe', 4), country('GB', 'United Kingdom', 1)])!;
    expect(map.unplaced).toBe(1);
    expect(render(map)).toContain('1 location is only in the table (no place on this map)');
  });

  it('escapes names in titles and links', () => {
    const map = areaMap(WORLD, [{ id: 'GB', name: '<script>alert(1)</script> & Sons', hits: 1, url: '/admin/analytics/locations?a=1&region=GB' }])!;
    const svg = render(map);
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('<title>&lt;script&gt;alert(1)&lt;/script&gt; &amp; Sons: 1 hit</title>');
    expect(svg).toContain('aria-label="Map of hits per country: 1 country with hits, the most in &lt;script&gt;alert(1)&lt;/script&gt; &amp; Sons (1 hit)."');
    expect(svg).toContain('<a href="/admin/analytics/locations?a=1&amp;region=GB"');
  });

  it('makes the outlines once: a later map reuses the same path strings', () => {
    expect(worldShape()).toBe(worldShape());
    const first = areaMap(WORLD, [country('GB', 'United Kingdom', 1)])!;
    const later = areaMap(WORLD, [country('FR', 'France', 1)])!;
    const drawn = (map: LocationMapSvg) => new Set(map.paths.map((path) => path.d));
    expect(drawn(later)).toEqual(drawn(first));
    expect(countryShape('ca')).toBe(countryShape('CA'));
    expect(stateShape('co')).toBe(stateShape('Colorado'));
  });
});

describe('the shades', () => {
  it('step up a logarithmic scale from 1 hit to the most', () => {
    expect([1, 3, 4, 15, 16, 63, 64, 251, 252, 1000].map((hits) => shadeOf(hits, 1000))).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
    expect(shadeOf(0, 1000)).toBe(0);
    expect(shadeOf(1, 1)).toBe(5);
  });

  it('are told in the legend as the hits each stands for, leaving out those no whole number falls in', () => {
    expect(legendSteps(1000)).toEqual([
      { shade: 1, label: '1–3' },
      { shade: 2, label: '4–15' },
      { shade: 3, label: '16–63' },
      { shade: 4, label: '64–251' },
      { shade: 5, label: '252–1,000' },
    ]);
    expect(legendSteps(3)).toEqual([
      { shade: 1, label: '1' },
      { shade: 4, label: '2' },
      { shade: 5, label: '3' },
    ]);
    expect(legendSteps(1)).toEqual([{ shade: 5, label: '1' }]);
    for (const max of [2, 7, 100, 12_345, 1_000_000]) {
      let next = 1;
      for (const { shade, label } of legendSteps(max)) {
        const [from, to = from] = label.split('–').map((part) => Number(part.replaceAll(',', ''))) as [number, number?];
        expect([from, shadeOf(from, max), shadeOf(to, max)]).toEqual([next, shade, shade]);
        next = to + 1;
      }
      expect(next).toBe(max + 1);
    }
  });
});

describe('the United States map', () => {
  it('draws the 50 states and the District of Columbia, shaded by hits and linked to each state', () => {
    const map = areaMap(US, [country('US-CO', 'Colorado', 20), country('US-CA', 'California', 2)])!;
    expect(unitedStatesShape().areas.map((area) => area.code)).toHaveLength(51);
    expect(map.paths).toHaveLength(51);
    expect(map.paths.filter((path) => path.shade > 0).map(({ shade, href, title }) => ({ shade, href, title })).sort((a, b) => b.shade - a.shade)).toEqual([
      { shade: 5, href: level('US-CO'), title: 'Colorado: 20 hits' },
      { shade: 2, href: level('US-CA'), title: 'California: 2 hits' },
    ]);
    expect(map.label).toBe('Map of hits per state of the United States: 2 states with hits, the most in Colorado (20 hits).');
  });

  it('finds a state by its name, as databases that name states give it, and marks the District of Columbia with a dot', () => {
    const map = areaMap(US, [country('US-Colorado', 'Colorado', 5), country('US-DC', 'District of Columbia', 5)])!;
    expect(map.paths.find((path) => path.href === level('US-Colorado'))?.title).toBe('Colorado: 5 hits');
    expect(map.dots).toEqual([{ city: false, x: expect.any(Number), y: expect.any(Number), r: 4, shade: 5, href: level('US-DC'), title: 'District of Columbia: 5 hits' }]);
  });
});

describe("a country's or a state's map", () => {
  const toronto: CityHits = { name: 'Toronto', region: 'Ontario', hits: 8, latitude: 43.6949, longitude: -79.5323 };
  const richmond: CityHits = { name: 'Richmond', region: null, hits: 1, latitude: 49.1666, longitude: -123.1336 };

  it('draws the country alone, framed, with a dot per city sized by hits, the largest first', () => {
    const map = cityMap({ level: 'country', country: 'CA' }, [toronto, richmond])!;
    expect(map.paths).toEqual([{ d: countryShape('CA')!.areas[0]!.d, shade: 0, href: null, title: 'Canada' }]);
    expect(map.dots.map(({ r, title, href }) => ({ r, title, href }))).toEqual([
      { r: 14, title: 'Toronto, Ontario: 8 hits', href: null },
      { r: 6.9, title: 'Richmond: 1 hit', href: null },
    ]);
    // Richmond, British Columbia, is west of Toronto and north of it.
    const [east, west] = map.dots;
    expect(west!.x).toBeLessThan(east!.x);
    expect(west!.y).toBeLessThan(east!.y);
    for (const dot of map.dots) expect(dot.x <= map.width && dot.y <= map.height).toBe(true);
    const svg = render(map);
    expect(svg).toMatch(/<circle cx="[\d.]+" cy="[\d.]+" r="14" class="city"><title>Toronto, Ontario: 8 hits<\/title><\/circle>/);
    expect(svg).toContain('aria-label="Map of Canada: 2 cities as dots sized by hits, the most in Toronto (8 hits)."');
    expect(svg).toMatch(/Cities by hits<\/span>[\s\S]*r="3" class="city"\/><\/svg>1<\/span>[\s\S]*r="14" class="city"\/><\/svg>8<\/span>/);
  });

  it('leaves a city outside the frame, or without coordinates, to the table, and counts them', () => {
    const map = cityMap({ level: 'country', country: 'CA' }, [toronto, { name: 'Paris', region: null, hits: 1, latitude: 48.85, longitude: 2.35 }], 3)!;
    expect(map.dots.map((dot) => dot.title)).toEqual(['Toronto, Ontario: 8 hits']);
    expect(map.unplaced).toBe(2);
    expect(render(map)).toContain('2 locations are only in the table (no place on this map)');
    const none = cityMap({ level: 'country', country: 'CA' }, [], 1)!;
    expect([none.dots, none.legend, none.unplaced]).toEqual([[], null, 1]);
    expect(render(none)).not.toContain('Cities by hits');
  });

  it("draws a state of the United States for its level, by code or name, and a province's country for a province's", () => {
    const golden: CityHits = { name: 'Golden', region: 'Colorado', hits: 2, latitude: 39.7146, longitude: -105.2433 };
    const colorado = cityMap({ level: 'region', country: 'US', region: 'co' }, [golden])!;
    expect(colorado.paths.map((path) => path.title)).toEqual(['Colorado']);
    expect(colorado.dots.map((dot) => dot.title)).toEqual(['Golden, Colorado: 2 hits']);
    expect(cityMap({ level: 'region', country: 'US', region: 'Colorado' }, [golden])).toEqual(colorado);
    expect(cityMap({ level: 'region', country: 'CA', region: 'QC' }, [toronto])!.paths.map((path) => path.title)).toEqual(['Canada']);
    expect(cityMap({ level: 'region', country: 'US', region: 'Atlantis' }, [golden])).toBeNull();
    expect(cityMap({ level: 'country', country: 'ZZ' }, [golden])).toBeNull();
  });
});

describe('the page model of a city level', () => {
  it('draws each placed city with its state, and counts the one without coordinates as only in the table', () => {
    const parsed = parseMapQuery({ range: 'last_7_days', region: 'CA' }, Date.UTC(2026, 10, 25));
    if (!parsed.ok) throw new Error(parsed.error);
    const city = (id: string, region: string, hits: number, latitude: number | null, longitude: number | null): PlaceHits => ({ id, region_name: region, hits, latitude, longitude });
    const places = [
      city('Toronto', 'Ontario', 2, 43.6949, -79.5323),
      city('Richmond', 'British Columbia', 1, 49.1666, -123.1336),
      city('Richmond', 'Quebec', 1, 45.6668, -72.1497),
      city('London', 'Ontario', 1, 42.9834, -81.233),
      city('London', 'Unknown Place', 1, null, null),
    ];
    const model = locationModel(parsed.query, { places, unknown: 0 });
    expect(model.rows.map((row) => `${row.name}, ${row.detail}`)).toEqual(['Toronto, Ontario', 'Richmond, British Columbia', 'Richmond, Quebec', 'London, Ontario', 'London, Unknown Place']);
    expect(model.map!.dots.map((dot) => dot.title).sort()).toEqual(['London, Ontario: 1 hit', 'Richmond, British Columbia: 1 hit', 'Richmond, Quebec: 1 hit', 'Toronto, Ontario: 2 hits']);
    expect(model.map!.unplaced).toBe(1);
  });
});
