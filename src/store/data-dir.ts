// The data directory holds the store and the secret key: made, when missing,
// for its owner alone.
import { mkdirSync } from 'node:fs';

/** data_dir cannot be used; the message names it and says why, in one line. */
export class DataDirError extends Error {}

export function ensureDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new DataDirError(dataDirProblem(dataDir, (error as NodeJS.ErrnoException).code));
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
