import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

// This file sits two levels below the package root both as src/lib/*.ts and dist/lib/*.js.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A path inside the installed package (views/, public/, migrations/). */
export function packagePath(...parts: string[]): string {
  return join(ROOT, ...parts);
}
