// The data directory holds the store and the secret key: made, when missing,
// for its owner alone.
import { accessSync, constants, lstatSync, mkdirSync, readlinkSync, statfsSync, statSync, type Stats } from 'node:fs';
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
    // What is there says more than the code: a link to nowhere and a parent under /proc both answer ENOENT.
    throw new DataDirError(dataDirProblemOf(dataDir) ?? dataDirProblem(dataDir, (error as NodeJS.ErrnoException).code));
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
 * anything (for `parasol config check`, and for ensureDataDir()'s own
 * message); null when they would not.
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
      if (code === 'ENOENT') {
        // Not made through: mkdir answers EEXIST for the link, and what it points to may be a volume not mounted.
        const target = danglingLinkTarget(path);
        if (target !== null) {
          const link = `a symbolic link to ${target}, which does not exist`;
          return path === wanted ? `data_dir ${dataDir} is ${link}` : `data_dir ${dataDir} cannot be created: ${path} is ${link}`;
        }
        if (dirname(path) !== path) continue;
      }
      return dataDirProblem(dataDir, code);
    }
    if (!isDirectory) return dataDirProblem(dataDir, path === wanted ? 'EEXIST' : 'ENOTDIR');
    // Root may write anywhere, /proc included, by access(); the kernel's own file systems make nothing all the same.
    const kernel = kernelFileSystemOf(path);
    if (kernel !== null) {
      return path === wanted
        ? `data_dir ${dataDir} is on a kernel file system (${kernel}), which takes no new files`
        : `data_dir ${dataDir} cannot be created: ${path} is on a kernel file system (${kernel}), which takes no new directories`;
    }
    try {
      accessSync(path, constants.W_OK | constants.X_OK);
      return null;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return path === wanted ? `data_dir ${dataDir} is not writable by this user (${code})` : dataDirProblem(dataDir, code);
    }
  }
}

/** Where the symbolic link at `path` points (absolute), or null when it is no link. */
function danglingLinkTarget(path: string): string | null {
  try {
    return lstatSync(path).isSymbolicLink() ? resolve(dirname(path), readlinkSync(path)) : null;
  } catch {
    return null;
  }
}

/** statfs(2) f_type of the kernel's file systems that refuse new directories and files, even to root. */
const KERNEL_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x1cd1, 'devpts'],
]);

function kernelFileSystemOf(path: string): string | null {
  try {
    return KERNEL_FILE_SYSTEMS.get(statfsSync(path).type) ?? null;
  } catch {
    return null;
  }
}

/** "a directory, not a regular file" and the like for what stands at `path`; null for a regular file or nothing (the opener makes it). */
export function notAFile(path: string): string | null {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch {
    return null; // The opener says what is wrong.
  }
  if (stats.isFile()) return null;
  const kind = stats.isDirectory() ? 'a directory' : stats.isFIFO() ? 'a FIFO' : stats.isSocket() ? 'a socket' : 'a device';
  return `${kind}, not a regular file`;
}

function dataDirProblem(dataDir: string, code: string | undefined): string {
  switch (code) {
    case 'EEXIST':
      return `data_dir ${dataDir} is not a directory`;
    case 'ENOTDIR':
      return `data_dir ${dataDir} cannot be created: part of its path is a file`;
    case 'ELOOP':
      return `data_dir ${dataDir} cannot be created: its path has a loop of symbolic links (ELOOP)`;
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return `data_dir ${dataDir} cannot be created: permission denied (${code}); create it for the user Parasol runs as`;
    default:
      return `data_dir ${dataDir} cannot be created (${code ?? 'unknown error'})`;
  }
}
