// An edit form's save, made only while its record is as the form was filled:
// by its updated_at, which every write of these records sets. The check and
// the write run in one transaction, so that no other write (another process:
// the CLI) lands between. (Two writes in one millisecond share an
// updated_at: the one gap left. API users carry a change number instead.)
import type { Db } from './db.js';

export type VersionedTable = 'admins' | 'api_backends' | 'api_scopes' | 'admin_groups';

/** `write`'s result, or 'conflict' (nothing written) when another write came first or the record is gone. */
export function ifUnchanged<T>(db: Db, table: VersionedTable, id: string, updatedAt: string, write: () => T): T | 'conflict' {
  return db
    .transaction(() => {
      const current = db.prepare(`SELECT updated_at FROM ${table} WHERE id = ?`).pluck().get(id);
      return current === updatedAt ? write() : 'conflict';
    })
    .immediate();
}
