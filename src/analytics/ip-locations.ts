// Keeps analytics_ip_locations: the writer hands it each batch's IP rollup
// rows, in the batch's transaction, and it stores where the GeoIP database
// places each distinct IP. A row that would not change is not rewritten.
import type { Db } from '../store/db.js';
import type { GeoIpDatabase, IpLocation } from './geoip.js';

export class IpLocations {
  private readonly upsert: (ip: string, location: IpLocation) => void;

  constructor(
    db: Db,
    private readonly geoip: GeoIpDatabase,
  ) {
    const statement = db.prepare(`INSERT INTO analytics_ip_locations (request_ip, country, region, region_name, city, latitude, longitude)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (request_ip) DO UPDATE SET
        country = excluded.country, region = excluded.region, region_name = excluded.region_name,
        city = excluded.city, latitude = excluded.latitude, longitude = excluded.longitude
      WHERE (country, region, region_name, city, latitude, longitude)
        IS NOT (excluded.country, excluded.region, excluded.region_name, excluded.city, excluded.latitude, excluded.longitude)`);
    this.upsert = (ip, at) => statement.run(ip, at.country, at.region, at.region_name, at.city, at.latitude, at.longitude);
  }

  /** Call inside the transaction that inserts the batch's rows, with its rollup rows per IP. */
  add(rows: Iterable<{ readonly request_ip: string }>): void {
    const seen = new Set<string>();
    for (const { request_ip: ip } of rows) {
      if (seen.has(ip)) continue;
      seen.add(ip);
      const location = this.geoip.locate(ip);
      if (location !== null) this.upsert(ip, location);
    }
  }
}
