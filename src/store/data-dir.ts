// The data directory holds the store and the secret key: made, when missing,
// for its owner alone.
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigValueError } from '../config/config-error.js';

/** data_dir cannot be used; the message names it and says why, in one line (the command line adds where it was set). */
export class DataDirError extends ConfigValueError {
  constructor(message: string) {
    super(['data_dir'], message);
  }
}

export function ensureDataDir(dataDir: string): void {
  try {
    makeDirectory(resolve(dataDir));
  } catch (error) {
    throw new DataDirError(dataDirProblem(dataDir, (error as NodeJS.ErrnoException).code));
  }
}

/**
 * mkdir -p, one level at a time, each tried once more after its parent is
 * made: Node's recursive mkdirSync spins forever where a parent exists but
 * refuses children with ENOENT (a data_dir under /proc).
 */
function makeDirectory(path: string): void {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && statSync(path).isDirectory()) return;
    if (code !== 'ENOENT' || dirname(path) === path) throw error;
    makeDirectory(dirname(path));
    mkdirSync(path, { mode: 0o700 });
  }
}

/**
 * Why ensureDataDir() and the store would fail, found without making
 * anything (for `parasol config check`); null when they would not.
 */
export function dataDirProblemOf(dataDir: string): string | null {
  const wanted = resolve(dataDir);
  // The directory itself, else the nearest one above it that exists: where it would be made.
  for (let path = wanted; ; path = dirname(path)) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && dirname(path) !== path) continue;
      return dataDirProblem(dataDir, code);
    }
    if (!isDirectory) return dataDirProblem(dataDir, path === wanted ? 'EEXIST' : 'ENOTDIR');
    try {
      accessSync(path, constants.W_OK | constants.X_OK);
      return null;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return path === wanted ? `data_dir ${dataDir} is not writable by this user (${code})` : dataDirProblem(dataDir, code);
    }
  }
}

function dataDirProblem(dataDir: string, code: string | undefined): string {
  switch (code) {
    case 'EEXIST':
      return `data_dir ${dataDir} is not a directory`;
    case 'ENOTDIR':
      return `data_dir ${dataDir} cannot be created: part of its path is a file`;
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return `data_dir ${dataDir} cannot be created: permission denied (${code}); create it for the user Parasol runs as`;
    default:
      return `data_dir ${dataDir} cannot be created (${code ?? 'unknown error'})`;
  }
}
