import { readFileSync } from 'node:fs';
import { packagePath } from './package-path.js';

/** The running Parasol's version, from its package.json (shipped beside dist/ in every install). */
export const PARASOL_VERSION: string = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
