// Server-side admin sessions in SQLite with idle and absolute expiry, timed
// by the injectable clock. The cookie carries a random id; the table keeps its
// SHA-256 only.
import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import { storeFailure, type Db } from '../store/db.js';

export interface SessionLimits {
  readonly idleMs: number;
  readonly maxAgeMs: number;
}

export interface AdminSession {
  readonly adminId: string;
  readonly createdAt: number;
}

interface SessionRow {
  admin_id: string;
  created_at: number;
  last_seen_at: number;
}

export class SessionStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly limits: SessionLimits,
  ) {}

  /** Starts a session and returns the id for the cookie (never stored in clear). */
  create(adminId: string): string {
    const id = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    this.purgeExpired(now);
    this.db.prepare('INSERT INTO admin_sessions (id_hash, admin_id, created_at, last_seen_at) VALUES (?, ?, ?, ?)').run(hashId(id), adminId, now, now);
    return id;
  }

  /** The live session for this cookie id, marked as seen now; null (and removed) once idle or too old. */
  use(id: string): AdminSession | null {
    const now = this.clock.now();
    const idHash = hashId(id);
    const row = this.db.prepare('SELECT admin_id, created_at, last_seen_at FROM admin_sessions WHERE id_hash = ?').get(idHash) as SessionRow | undefined;
    if (row === undefined) return null;
    if (this.isExpired(row, now)) {
      this.destroy(id);
      return null;
    }
    this.touch(idHash, now);
    return { adminId: row.admin_id, createdAt: row.created_at };
  }

  /**
   * Best effort: reading a page must not depend on a write a busy store
   * refuses (the session then looks idle a little early). Never moved back:
   * a request while the clock was stepped back would end the session once
   * the clock is right.
   */
  private touch(idHash: string, now: number): void {
    try {
      this.db.prepare('UPDATE admin_sessions SET last_seen_at = MAX(last_seen_at, ?) WHERE id_hash = ?').run(now, idHash);
    } catch (error) {
      if (storeFailure(error) === null) throw error;
    }
  }

  destroy(id: string): void {
    this.db.prepare('DELETE FROM admin_sessions WHERE id_hash = ?').run(hashId(id));
  }

  private isExpired(row: SessionRow, now: number): boolean {
    return now - row.last_seen_at > this.limits.idleMs || now - row.created_at > this.limits.maxAgeMs;
  }

  private purgeExpired(now: number): void {
    this.db.prepare('DELETE FROM admin_sessions WHERE last_seen_at < ? OR created_at < ?').run(now - this.limits.idleMs, now - this.limits.maxAgeMs);
  }
}

function hashId(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}
