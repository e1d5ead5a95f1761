// The pages link every asset with a version of the assets' content
// (/assets/css/parasol.css?v=…), so that a browser can keep them for good and
// still fetches the new ones the first time a page of a new release links
// them: with plain names and an hour's caching, an upgrade showed the old
// look for up to an hour. One version for all of them: any file changed
// changes every link, which costs a release's first page a few fetches.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { packagePath } from '../lib/package-path.js';

/** Ten URL-safe characters of a SHA-256 over the files the layout links. */
export function assetVersion(files: readonly string[]): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(readFileSync(file));
  return hash.digest('base64url').slice(0, 10);
}

/** Pico's stylesheet, which the layout links beside Parasol's own. */
export const PICO_CSS_FILE = createRequire(import.meta.url).resolve('@picocss/pico/css/pico.min.css');

let linked: string | null = null;

/** The version the pages link every asset by (Pico's stylesheet and all of public/), worked out once. */
export function linkedAssetsVersion(): string {
  return (linked ??= assetVersion([PICO_CSS_FILE, ...filesUnder(packagePath('public'))]));
}

/** In a fixed order, so that the same files give the same version. */
function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(directory, entry.name);
      return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
    })
    .sort();
}
