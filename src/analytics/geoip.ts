// Where a client IP is, from a GeoIP database in MaxMind's format (.mmdb):
// MaxMind's GeoLite2/GeoIP2 Country or City, DB-IP's, or the ip-location-db
// packages' (country_code, state1, city, …). Used by the analytics writer,
// never on the proxy's path. The file is re-read when it changes, as
// geoipupdate and similar jobs replace it.
import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { Reader, type Response } from 'mmdb-lib';
import { unreadableFile } from '../config/messages.js';

export interface IpLocation {
  /** ISO 3166-1 alpha-2, uppercase. */
  readonly country: string;
  /** The subdivision's ISO code where the database has one (US states: "CO"), else its name. */
  readonly region: string | null;
  readonly region_name: string | null;
  readonly city: string | null;
  readonly latitude: number | null;
  readonly longitude: number | null;
}

/** Located IPs remembered (a few MB of the writer thread's small heap), so a returning client costs no tree walk. */
const CACHE_SIZE = 10_000;
/** How often a lookup may look at the file's modification time. */
const CHECK_EVERY_MS = 60_000;
const IPV4_MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** Opens the database: throws with the reason when the file cannot be read or is not an .mmdb. */
function readDatabase(path: string): Reader<Response> {
  const bytes = readFileSync(path);
  try {
    return new Reader<Response>(bytes);
  } catch (error) {
    throw new Error(`not a MaxMind-format (.mmdb) database: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** What is wrong with the file, as "analytics.geoip_file: …", or null (config check, start-up). */
export function geoIpFileProblem(file: string): string | null {
  try {
    readDatabase(resolve(file));
    return null;
  } catch (error) {
    return unreadable(file, error);
  }
}

/** The one message for a file that cannot be used: no such file, a directory, … or what the reader found wrong. */
function unreadable(file: string, error: unknown): string {
  return unreadableFile('analytics.geoip_file', file, error);
}

export class GeoIpDatabase {
  private readonly path: string;
  private reader: Reader<Response> | null = null;
  private readonly cache = new Map<string, IpLocation | null>();
  private modifiedAt = 0;
  private checkedAt = -Infinity;

  /**
   * `file` as the config names it (resolved against the working directory).
   * Nothing is read until the first lookup. `onUnreadable` hears of a file
   * that could not be read, at most once a minute: the one read before stays
   * in use, and without one nothing is located (analytics go on).
   */
  constructor(
    file: string,
    private readonly onUnreadable: (problem: string) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.path = resolve(file);
  }

  /** The IP's country and, with a city database, region and city; null when the database has no country for it. */
  locate(ip: string): IpLocation | null {
    this.refreshIfChanged();
    let location = this.cache.get(ip);
    if (location === undefined) {
      location = this.lookUp(ip);
      if (this.cache.size >= CACHE_SIZE) this.cache.clear();
      this.cache.set(ip, location);
    }
    return location;
  }

  private lookUp(ip: string): IpLocation | null {
    if (this.reader === null) return null;
    const address = IPV4_MAPPED.exec(ip)?.[1] ?? ip;
    // The reader checks nothing: it walks any text (an odd X-Forwarded-For hop) as bits, and
    // an IPv6 address's first 32 bits through an IPv4-only database, into some country.
    const version = isIP(address);
    if (version === 0 || (version === 6 && this.reader.metadata.ipVersion === 4)) return null;
    return locationOf(this.reader.get(address));
  }

  private refreshIfChanged(): void {
    const now = this.now();
    if (now - this.checkedAt < CHECK_EVERY_MS) return;
    this.checkedAt = now;
    try {
      const modifiedAt = statSync(this.path).mtimeMs;
      if (this.reader !== null && modifiedAt === this.modifiedAt) return;
      this.reader = readDatabase(this.path);
      this.modifiedAt = modifiedAt;
      this.cache.clear();
    } catch (error) {
      this.onUnreadable(unreadable(this.path, error));
    }
  }
}

interface Named {
  readonly iso_code?: unknown;
  readonly names?: { readonly en?: unknown };
}

/** MaxMind's layout (country.iso_code, subdivisions, city.names, location) or ip-location-db's flat one (country_code, state1, city, latitude). */
export function locationOf(record: unknown): IpLocation | null {
  if (typeof record !== 'object' || record === null) return null;
  const flat = record as Record<string, unknown>;
  const nested = record as { country?: Named; subdivisions?: Named[]; city?: Named; location?: { latitude?: unknown; longitude?: unknown } };
  const country = text(nested.country?.iso_code) ?? text(flat.country_code);
  if (country === null) return null;
  const subdivision = nested.subdivisions?.[0];
  const regionName = text(subdivision?.names?.en) ?? text(flat.state1);
  return {
    country: country.toUpperCase(),
    region: text(subdivision?.iso_code) ?? regionName,
    region_name: regionName ?? text(subdivision?.iso_code),
    city: text(nested.city?.names?.en) ?? text(flat.city),
    latitude: coordinate(nested.location?.latitude ?? flat.latitude),
    longitude: coordinate(nested.location?.longitude ?? flat.longitude),
  };
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function coordinate(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
