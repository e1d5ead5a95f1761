// Draft API backends: the operator's working copy, which changes nothing live
// until it is published.
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { withCurrentSettings, type ApiBackend, type ApiBackendConfig } from './model.js';

interface BackendRow {
  id: string;
  name: string;
  document: string;
  sort_order: number;
  created_at: string;
  updated_at: string;
  created_by: string | null;
  updated_by: string | null;
}

/** The parsed drafts as of a revision of this repository and a data_version of the store. */
interface Listed {
  readonly revision: number;
  readonly dataVersion: number;
  readonly backends: readonly ApiBackend[];
}

export class ApiBackendRepository {
  /** Bumped by every write made here, so that list() knows its copy is stale. */
  private revision = 0;
  private listed: Listed | null = null;

  constructor(private readonly db: Db) {}

  /**
   * Every draft, in creation order. Every admin page lists them (for its
   * count of unpublished changes), which with 1,000 backends took 22 ms of
   * the event loop the proxy shares, so the list is kept until a write made
   * here or another connection's commit (SQLite's data_version) may have
   * changed it. A list read inside a transaction is not kept: the
   * transaction may still roll back.
   */
  list(): readonly ApiBackend[] {
    const dataVersion = this.db.pragma('data_version', { simple: true }) as number;
    const listed = this.listed;
    if (listed !== null && listed.revision === this.revision && listed.dataVersion === dataVersion) return listed.backends;
    const backends = (this.db.prepare('SELECT * FROM api_backends ORDER BY sort_order').all() as BackendRow[]).map(toBackend);
    if (!this.db.inTransaction) this.listed = { revision: this.revision, dataVersion, backends };
    return backends;
  }

  get(id: string): ApiBackend | null {
    const row = this.db.prepare('SELECT * FROM api_backends WHERE id = ?').get(id) as BackendRow | undefined;
    return row === undefined ? null : toBackend(row);
  }

  create(config: ApiBackendConfig, by: string | null, id: string = randomUUID()): ApiBackend {
    const now = new Date().toISOString();
    this.revision++;
    // A sequence that never goes back, so a new backend never shares its order with a deleted one still published.
    const { value: sortOrder } = this.db
      .prepare("UPDATE sequences SET value = value + 1 WHERE name = 'api_backend_sort_order' RETURNING value")
      .get() as { value: number };
    this.db
      .prepare('INSERT INTO api_backends (id, name, document, sort_order, created_at, updated_at, created_by, updated_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(id, config.name, JSON.stringify(config), sortOrder, now, now, by, by);
    return this.get(id)!;
  }

  update(id: string, config: ApiBackendConfig, by: string | null): ApiBackend | null {
    this.revision++;
    const result = this.db
      .prepare('UPDATE api_backends SET name = ?, document = ?, updated_at = ?, updated_by = ? WHERE id = ?')
      .run(config.name, JSON.stringify(config), new Date().toISOString(), by, id);
    return result.changes === 0 ? null : this.get(id);
  }

  delete(id: string): boolean {
    this.revision++;
    return this.db.prepare('DELETE FROM api_backends WHERE id = ?').run(id).changes > 0;
  }

  transaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }
}

function toBackend(row: BackendRow): ApiBackend {
  const config = withCurrentSettings(JSON.parse(row.document) as ApiBackendConfig);
  return {
    ...config,
    id: row.id,
    sort_order: row.sort_order,
    created_at: row.created_at,
    updated_at: row.updated_at,
    created_by: row.created_by,
    updated_by: row.updated_by,
  };
}
