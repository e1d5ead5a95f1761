// Compact SVG path data for d3-geo's path generator: the atlases are finer
// than a map on a page shows, and the map is sent with every page.
import { geoPath, type GeoIdentityTransform, type GeoPermissibleObjects, type GeoProjection } from 'd3-geo';

/**
 * SVG path data for d3-geo's path: tenths of the frame's units, each point
 * relative to the one before, and a point closer than TOLERANCE to the last
 * one kept left out (the atlases are finer than the frame shows: Canada's
 * 1:50m outline is a third as long). Rings left with fewer than three points
 * are dropped.
 */
class SvgPathData {
  private readonly rings: string[] = [];
  private ring: string[] = [];
  private points = 0;
  private x = 0;
  private y = 0;

  moveTo(x: number, y: number): void {
    this.endRing();
    this.x = Math.round(x * 10);
    this.y = Math.round(y * 10);
    this.ring = [`M${pair(this.x, this.y)}`];
    this.points = 1;
  }

  lineTo(x: number, y: number): void {
    const [tx, ty] = [Math.round(x * 10), Math.round(y * 10)];
    if (Math.hypot(tx - this.x, ty - this.y) < TOLERANCE * 10) return;
    this.ring.push(`${this.points === 1 ? 'l' : ' '}${pair(tx - this.x, ty - this.y)}`);
    [this.x, this.y] = [tx, ty];
    this.points++;
  }

  closePath(): void {
    this.ring.push('z');
  }

  /** Points are not drawn as paths here. */
  arc(): void {}

  beginPath(): void {}

  /** The path data drawn since the last call. */
  take(): string {
    this.endRing();
    return this.rings.splice(0).join('');
  }

  private endRing(): void {
    if (this.points >= 3) this.rings.push(this.ring.join(''));
    this.ring = [];
    this.points = 0;
  }
}

/** Of the frame's units: under a screen pixel at the widths the page is shown. */
const TOLERANCE = 0.75;

/** Two numbers in tenths, as "12.3,-4" reads: without leading zeros, and without the comma a minus sign makes needless. */
function pair(x: number, y: number): string {
  const text = (tenths: number) => String(tenths / 10).replace(/^(-?)0\./, '$1.');
  return `${text(x)}${y < 0 ? '' : ','}${text(y)}`;
}

export interface Draw {
  (object: GeoPermissibleObjects): string;
  area(object: GeoPermissibleObjects): number;
  centroid(object: GeoPermissibleObjects): [number, number];
}

/** Draws objects in the projection as path data (and measures their area and centre in it). */
export function path(projection: GeoProjection | GeoIdentityTransform): Draw {
  const data = new SvgPathData();
  const generator = geoPath(projection, data);
  return Object.assign(
    (object: GeoPermissibleObjects) => {
      generator(object);
      return data.take();
    },
    { area: (object: GeoPermissibleObjects) => generator.area(object), centroid: (object: GeoPermissibleObjects) => generator.centroid(object) },
  );
}
