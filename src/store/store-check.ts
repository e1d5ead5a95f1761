// What openStore() (src/store/db.ts) would refuse in an existing store, for
// `parasol config check`, found without changing anything on disk.
//
// The store is not opened through SQLite: even a read-only connection to a
// WAL store that nothing else has open creates its -wal and -shm files
// beside it and leaves them there (run as root by an init script, files the
// service's user then cannot open). What start-up refuses first is all in the
// file's 100-byte header (https://www.sqlite.org/fileformat2.html#the_database_header):
// not a SQLite file, a page count the file is too short for (a truncated
// copy; SQLite answers SQLITE_CORRUPT), and the schema version (user_version).
import Database from 'better-sqlite3';
import { accessSync, closeSync, constants, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { notAFile } from './data-dir.js';
import { DAMAGED_STORE, loadMigrations, newerStore, notAStore, notWritable, SQLITE_MAGIC as MAGIC, storePath } from './db.js';

const HEADER_BYTES = 100;

/** "…/parasol.db: reason", or null when start-up would take the store (or make it: none yet, or an empty file). */
export function storeProblemOf(dataDir: string): string | null {
  const path = storePath(dataDir);
  if (!existsSync(path)) return null;
  const problem = headerProblem(path);
  return problem === null ? null : `${path}: ${problem}`;
}

function headerProblem(path: string): string | null {
  // Before anything opens it: a FIFO would keep the check waiting for a writer.
  const wrongKind = notAFile(path);
  if (wrongKind !== null) return notAStore(wrongKind);
  let file: { header: Buffer; size: number };
  try {
    // Start-up opens it for appending before SQLite does.
    accessSync(path, constants.R_OK | constants.W_OK);
    file = readHeader(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return ['EACCES', 'EPERM', 'EROFS'].includes(code) ? notWritable(code) : `cannot be read (${code})`;
  }
  if (file.size === 0) return null;
  if (file.header.length < HEADER_BYTES || !file.header.subarray(0, MAGIC.length).equals(MAGIC)) return DAMAGED_STORE;
  if (isDamaged(file.header, file.size, existsSync(`${path}-wal`))) return DAMAGED_STORE;
  const version = file.header.readUInt32BE(60);
  const known = loadMigrations().at(-1)?.version ?? 0;
  return version > known ? newerStore(version, known) : null;
}

function readHeader(path: string): { header: Buffer; size: number } {
  const fd = openSync(path, 'r');
  try {
    const header = Buffer.alloc(HEADER_BYTES);
    return { header: header.subarray(0, readSync(fd, header, 0, HEADER_BYTES, 0)), size: fstatSync(fd).size };
  } finally {
    closeSync(fd);
  }
}

/**
 * SQLite's own tests when it reads the first page: a page size that is a power
 * of two from 512 to 65536, and the header's page count, if
 * valid (non-zero, and written by the same change as the version-valid-for
 * number), must fit in the file. With a -wal file beside it the store is in
 * use (or its last user stopped abruptly): a checkpoint may be writing the
 * file at this moment, so its length proves nothing.
 */
function isDamaged(header: Buffer, size: number, hasWal: boolean): boolean {
  const rawPageSize = header.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65_536 : rawPageSize;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return true;
  const pages = header.readUInt32BE(28);
  const pagesValid = pages > 0 && header.readUInt32BE(24) === header.readUInt32BE(92);
  return !hasWal && pagesValid && pages * pageSize > size;
}

/**
 * `read` given the store opened through SQLite, only when this process runs
 * as the store's owner (then whatever SQLite makes beside it, and removes
 * again as it closes, is the owner's, as the -wal and -shm of a running
 * gateway are); null for a store that is not there, is empty, or is
 * another user's. Call it once storeProblemOf() has found nothing wrong.
 */
export function readStoreAsOwner<T>(dataDir: string, read: (db: Database.Database) => T): T | null {
  const path = storePath(dataDir);
  if (!existsSync(path)) return null;
  const { uid, size } = statSync(path);
  if (size === 0 || uid !== process.getuid?.()) return null;
  const db = new Database(path, { fileMustExist: true, timeout: 5000 });
  try {
    return read(db);
  } finally {
    db.close();
  }
}
