// Draft API backends: the operator's working copy, which changes nothing live
// until it is published.
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { ifUnchanged } from '../store/if-unchanged.js';
import { MAX_SORT_ORDER, MIN_SORT_ORDER, SORT_ORDER_GAP, withCurrentSettings, type ApiBackend, type ApiBackendConfig } from './model.js';

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

/** The parsed drafts as of a count of the backends' changes (migration 031), each with the row it was parsed from. */
interface Listed {
  readonly changes: number;
  readonly backends: readonly ApiBackend[];
  readonly parsed: ReadonlyMap<string, Parsed>;
}

interface Parsed {
  readonly row: BackendRow;
  readonly backend: ApiBackend;
}

export class ApiBackendRepository {
  private listed: Listed | null = null;

  constructor(private readonly db: Db) {}

  /**
   * Every draft, in the backends' order (compareBackendOrder). Every admin
   * page lists them (for its count of unpublished changes), which with 1,000
   * backends took 22 ms of the event loop the proxy shares, so the list is
   * kept until a backend changes, by a write here or by another process; and
   * a backend whose row did not change keeps its object, so what is worked
   * out from it and kept by object (its canonical form, its YAML, its
   * compiled routes) is kept too. A list read inside a transaction is not
   * kept: the transaction may still roll back.
   */
  list(): readonly ApiBackend[] {
    const changes = this.db.prepare("SELECT value FROM sequences WHERE name = 'api_backend_change'").pluck().get() as number;
    const listed = this.listed;
    if (listed !== null && listed.changes === changes) return listed.backends;
    const rows = this.db.prepare('SELECT * FROM api_backends ORDER BY sort_order, created_at, id').all() as BackendRow[];
    const parsed = new Map(rows.map((row) => [row.id, parsedAgain(row, listed?.parsed.get(row.id))]));
    const backends = rows.map((row) => parsed.get(row.id)!.backend);
    if (!this.db.inTransaction) this.listed = { changes, backends, parsed };
    return backends;
  }

  get(id: string): ApiBackend | null {
    const row = this.db.prepare('SELECT * FROM api_backends WHERE id = ?').get(id) as BackendRow | undefined;
    return row === undefined ? null : toBackend(row);
  }

  /**
   * `sortOrder`: where the backend goes in the order; by default last
   * (API Umbrella's: 0 for the first, then 10000 after the greatest).
   */
  create(config: ApiBackendConfig, by: string | null, options: { id?: string; sortOrder?: number | null } = {}): ApiBackend {
    const id = options.id ?? randomUUID();
    const now = new Date().toISOString();
    return this.db.transaction(() => {
      const sortOrder = options.sortOrder ?? this.endSortOrder();
      this.db
        .prepare('INSERT INTO api_backends (id, name, document, sort_order, created_at, updated_at, created_by, updated_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(id, config.name, JSON.stringify(config), sortOrder, now, now, by, by);
      this.ensureUniqueSortOrder(id, sortOrder);
      return this.get(id)!;
    }).immediate();
  }

  /** `sortOrder`: a new place in the order; null or absent keeps the backend's. */
  update(id: string, config: ApiBackendConfig, by: string | null, sortOrder: number | null = null): ApiBackend | null {
    return this.db.transaction(() => {
      const before = this.db.prepare('SELECT sort_order FROM api_backends WHERE id = ?').pluck().get(id) as number | undefined;
      if (before === undefined) return null;
      const moved = sortOrder !== null && sortOrder !== before;
      this.db
        .prepare('UPDATE api_backends SET name = ?, document = ?, sort_order = ?, updated_at = ?, updated_by = ? WHERE id = ?')
        .run(config.name, JSON.stringify(config), moved ? sortOrder : before, new Date().toISOString(), by, id);
      if (moved) this.ensureUniqueSortOrder(id, sortOrder);
      return this.get(id);
    }).immediate();
  }

  /**
   * API Umbrella's move_after: the backend goes halfway between `afterId`
   * and the backend after that one (rounded towards 0), or SORT_ORDER_GAP
   * after `afterId` when it is the last; a backend whose place that takes is
   * pushed aside (ensureUniqueSortOrder). False when either is not there.
   */
  moveAfter(id: string, afterId: string, by: string | null): boolean {
    return this.db.transaction(() => {
      const after = this.get(afterId);
      if (after === null || this.get(id) === null) return false;
      const next = this.db.prepare('SELECT sort_order FROM api_backends WHERE id != ? AND sort_order > ? ORDER BY sort_order LIMIT 1').get(id, after.sort_order) as
        | { sort_order: number }
        | undefined;
      let order = next === undefined ? after.sort_order + SORT_ORDER_GAP : towardZero((after.sort_order + next.sort_order) / 2);
      if (order > MAX_SORT_ORDER) order = Math.ceil((after.sort_order + MAX_SORT_ORDER) / 2);
      else if (order < MIN_SORT_ORDER) order = Math.floor((after.sort_order + MIN_SORT_ORDER) / 2);
      this.setSortOrder(id, order, by);
      return true;
    }).immediate();
  }

  /** API Umbrella's move_to_beginning: SORT_ORDER_GAP before the first backend (this one included). False when it is not there. */
  moveToBeginning(id: string, by: string | null): boolean {
    return this.db.transaction(() => {
      if (this.get(id) === null) return false;
      const { first } = this.db.prepare('SELECT MIN(sort_order) AS first FROM api_backends').get() as { first: number };
      const order = first - SORT_ORDER_GAP < MIN_SORT_ORDER ? Math.floor((first + MIN_SORT_ORDER) / 2) : first - SORT_ORDER_GAP;
      this.setSortOrder(id, order, by);
      return true;
    }).immediate();
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM api_backends WHERE id = ?').run(id).changes > 0;
  }

  transaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  /**
   * Runs `write` (a save: saveApiBackend) only while the backend is as an
   * edit form was filled (if-unchanged.ts): a move of its own changes its
   * updated_at; another's move pushing it aside changes only its place, no
   * field of the form.
   */
  ifUnchanged<T>(id: string, updatedAt: string, write: () => T): T | 'conflict' {
    return ifUnchanged(this.db, 'api_backends', id, updatedAt, write);
  }

  private setSortOrder(id: string, order: number, by: string | null): void {
    this.db.prepare('UPDATE api_backends SET sort_order = ?, updated_at = ?, updated_by = ? WHERE id = ?').run(order, new Date().toISOString(), by, id);
    this.ensureUniqueSortOrder(id, order);
  }

  /**
   * The last place in the order: SORT_ORDER_GAP after the greatest, or
   * halfway to MAX_SORT_ORDER near it (API Umbrella's get_new_end_sort_order).
   * (The sequence 'api_backend_sort_order', which numbered backends 1, 2, 3
   * before, is no longer used.)
   */
  private endSortOrder(): number {
    const { last } = this.db.prepare('SELECT MAX(sort_order) AS last FROM api_backends').get() as { last: number | null };
    if (last === null) return 0;
    return last + SORT_ORDER_GAP > MAX_SORT_ORDER ? Math.ceil((last + MAX_SORT_ORDER) / 2) : last + SORT_ORDER_GAP;
  }

  /**
   * API Umbrella's ensure_unique_sort_order: the backends that share the
   * sort_order just given to `id` move aside by 1, 2, … (down when `original`
   * is 0 or more, up when below, away from the end of the range it is near),
   * and so on for those they then share theirs with. Only sort_order changes,
   * as in API Umbrella; each backend moved is a pending change to publish.
   */
  private ensureUniqueSortOrder(id: string, original: number): void {
    const conflicting = this.db.prepare('SELECT id, sort_order FROM api_backends WHERE id != ? AND sort_order = ? ORDER BY created_at, id');
    const shift = this.db.prepare('UPDATE api_backends SET sort_order = ? WHERE id = ?');
    const order = this.db.prepare('SELECT sort_order FROM api_backends WHERE id = ?').pluck();
    const pending = [id];
    while (pending.length > 0) {
      const current = pending.pop()!;
      const rows = conflicting.all(current, order.get(current)) as { id: string; sort_order: number }[];
      rows.forEach((row, index) => shift.run(original < 0 ? row.sort_order + index + 1 : row.sort_order - index - 1, row.id));
      // Depth first, in order, as API Umbrella's recursion goes.
      for (let index = rows.length - 1; index >= 0; index--) pending.push(rows[index]!.id);
    }
  }
}

/** Halfway values rounded towards 0 (API Umbrella: ceil below 0, floor from 0), never -0. */
function towardZero(value: number): number {
  const rounded = value < 0 ? Math.ceil(value) : Math.floor(value);
  return rounded === 0 ? 0 : rounded;
}

/** The row parsed, or what was parsed from it before when no field of it changed. */
function parsedAgain(row: BackendRow, before: Parsed | undefined): Parsed {
  if (before !== undefined && sameRow(before.row, row)) return before;
  return { row, backend: toBackend(row) };
}

function sameRow(a: BackendRow, b: BackendRow): boolean {
  return (Object.keys(a) as (keyof BackendRow)[]).every((field) => a[field] === b[field]);
}

function toBackend(row: BackendRow): ApiBackend {
  const config = withCurrentSettings(JSON.parse(row.document) as ApiBackendConfig, row.id);
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
