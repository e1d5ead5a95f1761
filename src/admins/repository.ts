// Admin accounts. Passwords are argon2id hashes; the admin API token is kept
// like an API key (HMAC + lookup prefix) and shown in clear only when issued.
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { ifUnchanged } from '../store/if-unchanged.js';
import { digestToken, generateToken, lookupPrefix, tokenMatches } from '../lib/secret-token.js';
import { hashPassword, verifyPassword } from './password.js';
import { trackSignIn } from './sign-ins.js';

export interface Admin {
  readonly id: string;
  /** As adminEmail() makes it: what they sign in with, and API Umbrella's `username`. */
  readonly email: string;
  /** API Umbrella's free-text name and notes, kept for the admin API. */
  readonly name: string | null;
  readonly notes: string | null;
  /** Whether they can sign in to the web admin: an admin made through the admin API without one cannot until it is set. */
  readonly has_password: boolean;
  readonly superuser: boolean;
  readonly enabled: boolean;
  readonly auth_token_preview: string | null;
  readonly created_at: string;
  readonly updated_at: string;
  /** API Umbrella's (Devise's) sign-in tracking (sign-ins.ts): the latest sign-in, the one before it, and how many there were. */
  readonly current_sign_in_at: string | null;
  readonly last_sign_in_at: string | null;
  readonly current_sign_in_ip: string | null;
  readonly last_sign_in_ip: string | null;
  readonly sign_in_count: number;
}

interface AdminRow {
  id: string;
  email: string;
  name: string | null;
  notes: string | null;
  password_hash: string | null;
  superuser: number;
  enabled: number;
  auth_token_prefix: string | null;
  auth_token_hash: Buffer | null;
  auth_token_preview: string | null;
  created_at: string;
  updated_at: string;
  current_sign_in_at: string | null;
  last_sign_in_at: string | null;
  current_sign_in_ip: string | null;
  last_sign_in_ip: string | null;
  sign_in_count: number;
}

export class LastSuperuserError extends Error {
  constructor() {
    super('The last superuser cannot be deleted, disabled or demoted.');
  }
}

/** An email another admin has. */
export class EmailTakenError extends Error {
  constructor() {
    super('has already been taken');
  }
}

/**
 * An admin's email as it is stored and looked up: trimmed, with A-Z
 * lowercased, as API Umbrella lowercases usernames (Lua's string.lower) and
 * as the email column's NOCASE collation compares them. Other letters are
 * kept as typed: SQLite folds none of them, so lowercasing them here would
 * make an email another admin already has (in another case) look free.
 */
export function adminEmail(email: string): string {
  return email.trim().replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** What a new admin is made of; no password (absent, null or empty) leaves them unable to sign in until one is set. */
export interface NewAdmin {
  readonly email: string;
  readonly password?: string | null;
  readonly superuser: boolean;
  readonly enabled?: boolean;
  readonly name?: string | null;
  readonly notes?: string | null;
}

/** What an update may change; an absent field stays as it is. */
export interface AdminChanges {
  readonly email?: string;
  readonly superuser?: boolean;
  readonly enabled?: boolean;
  readonly name?: string | null;
  readonly notes?: string | null;
}

export class AdminRepository {
  constructor(
    private readonly db: Db,
    private readonly secretKey: string,
  ) {}

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM admins').get() as { n: number }).n;
  }

  /**
   * Creates an admin (enabled unless input.enabled is false) with a fresh API
   * token, and a password when one is given. With onlyIfNone, the insert
   * happens only while no admin exists (checked inside the write
   * transaction), so two racing "first admin" forms cannot both succeed; null
   * tells the loser. Throws EmailTakenError when another admin has the email.
   */
  async create(input: NewAdmin, options: { onlyIfNone?: boolean } = {}): Promise<{ admin: Admin; authToken: string } | null> {
    // An empty password is none: nobody signs in with one (the callers refuse it as too short anyway).
    const passwordHash = input.password ? await hashPassword(input.password) : null;
    const authToken = generateToken();
    const digest = digestToken(this.secretKey, authToken);
    const now = new Date().toISOString();
    const id = randomUUID();
    const email = adminEmail(input.email);
    const inserted = this.db.transaction(() => {
      if (options.onlyIfNone && this.count() > 0) return false;
      // Checked again here: another creation may have taken the email while the password was hashed.
      if (this.rowByEmail(email) !== undefined) throw new EmailTakenError();
      this.db
        .prepare(
          `INSERT INTO admins (id, email, name, notes, password_hash, superuser, enabled, auth_token_prefix, auth_token_hash, auth_token_preview, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(id, email, input.name ?? null, input.notes ?? null, passwordHash, input.superuser ? 1 : 0, input.enabled === false ? 0 : 1, digest.prefix, digest.hash, digest.preview, now, now);
      return true;
    }).immediate();
    return inserted ? { admin: this.get(id)!, authToken } : null;
  }

  get(id: string): Admin | null {
    const row = this.db.prepare('SELECT * FROM admins WHERE id = ?').get(id) as AdminRow | undefined;
    return row === undefined ? null : toAdmin(row);
  }

  findByEmail(email: string): Admin | null {
    const row = this.rowByEmail(email);
    return row === undefined ? null : toAdmin(row);
  }

  list(): Admin[] {
    return (this.db.prepare('SELECT * FROM admins ORDER BY created_at, email').all() as AdminRow[]).map(toAdmin);
  }

  /** Signs in from the client IP `ip`: the enabled admin whose password this is, with the sign-in recorded, or null (unknown email, wrong password, no password set, disabled). */
  async authenticate(email: string, password: string, ip: string): Promise<Admin | null> {
    const admin = await this.checkPassword(email, password);
    if (admin === null) return null;
    this.recordSignIn(admin.id, ip);
    return this.get(admin.id);
  }

  /** Records a sign-in (a password, the first admin's sign-up; a reset or invite link: password-tokens.ts): an admin who has one gets no more invites. */
  recordSignIn(id: string, ip: string): void {
    trackSignIn(this.db, id, ip, new Date().toISOString());
  }

  /**
   * As authenticate(), without counting as a sign-in (My Account asks for the
   * current password). The admin is read again once the password is
   * verified (which may have waited its turn: password.ts), so one disabled
   * or given another password meanwhile is refused.
   */
  async checkPassword(email: string, password: string): Promise<Admin | null> {
    const row = this.rowByEmail(email);
    // Hash even for unknown emails and admins without a password, so that timing does not tell them apart.
    const hash = row?.password_hash ?? null;
    const ok = await verifyPassword(hash ?? (await dummyHash()), password);
    if (row === undefined || hash === null || !ok) return null;
    const now = this.db.prepare('SELECT * FROM admins WHERE id = ?').get(row.id) as AdminRow | undefined;
    return now === undefined || now.password_hash !== hash || now.enabled !== 1 ? null : toAdmin(now);
  }

  /** The enabled admin holding this API token, or null. */
  findByToken(token: string): Admin | null {
    if (token.length < 4 || token.length > 100) return null;
    const row = this.db.prepare('SELECT * FROM admins WHERE auth_token_prefix = ?').get(lookupPrefix(token)) as AdminRow | undefined;
    if (row === undefined || row.auth_token_hash === null || row.enabled !== 1) return null;
    return tokenMatches(this.secretKey, token, row.auth_token_hash) ? toAdmin(row) : null;
  }

  regenerateToken(id: string): string | null {
    const authToken = generateToken();
    const digest = digestToken(this.secretKey, authToken);
    const result = this.db
      .prepare('UPDATE admins SET auth_token_prefix = ?, auth_token_hash = ?, auth_token_preview = ?, updated_at = ? WHERE id = ?')
      .run(digest.prefix, digest.hash, digest.preview, new Date().toISOString(), id);
    return result.changes === 0 ? null : authToken;
  }

  /**
   * Sets a new password and ends every web admin session of the admin, so that
   * whoever held one (a taken-over account) is out; My Account then signs the
   * browser that made the change in again. A reset or invite link pending
   * goes too, as Devise clears it on a password change.
   */
  async setPassword(id: string, password: string): Promise<boolean> {
    const hash = await hashPassword(password);
    return this.db.transaction(() => {
      this.db.prepare('DELETE FROM admin_sessions WHERE admin_id = ?').run(id);
      return this.db.prepare(`UPDATE admins SET password_hash = ?, ${NO_RESET_TOKEN}, updated_at = ? WHERE id = ?`).run(hash, new Date().toISOString(), id).changes > 0;
    }).immediate();
  }

  /** Changes what `changes` names; an admin left disabled has no web admin session left (sign-in refuses them a new one). */
  update(id: string, changes: AdminChanges): Admin | null {
    return this.db.transaction(() => {
      const current = this.get(id);
      if (current === null) return null;
      const next = {
        email: changes.email === undefined ? current.email : adminEmail(changes.email),
        superuser: changes.superuser ?? current.superuser,
        enabled: changes.enabled ?? current.enabled,
        name: changes.name === undefined ? current.name : changes.name,
        notes: changes.notes === undefined ? current.notes : changes.notes,
      };
      if (current.superuser && current.enabled && !(next.superuser && next.enabled)) this.assertAnotherSuperuser(id);
      this.db
        .prepare('UPDATE admins SET email = ?, name = ?, notes = ?, superuser = ?, enabled = ?, updated_at = ? WHERE id = ?')
        .run(next.email, next.name, next.notes, next.superuser ? 1 : 0, next.enabled ? 1 : 0, new Date().toISOString(), id);
      // A link mailed to the old address must not reset the account of the new one (Devise clears it too); nor does one
      // mailed to an admin who was then disabled (perhaps because the invite went astray) work once they are enabled again.
      if (next.email !== current.email || !next.enabled) this.db.prepare(`UPDATE admins SET ${NO_RESET_TOKEN} WHERE id = ?`).run(id);
      // Disabling ends their web admin sessions, so that enabling them again brings none back.
      if (!next.enabled) this.db.prepare('DELETE FROM admin_sessions WHERE admin_id = ?').run(id);
      return this.get(id);
    }).immediate();
  }

  /** Runs `write` (a change of the account: updateAccount) only while the admin is as an edit form was filled (if-unchanged.ts). */
  ifUnchanged<T>(id: string, updatedAt: string, write: () => T): T | 'conflict' {
    return ifUnchanged(this.db, 'admins', id, updatedAt, write);
  }

  /** Whether the admin is the one enabled superuser: demoting, disabling or deleting them would leave none. */
  isLastSuperuser(id: string): boolean {
    const admin = this.get(id);
    return admin !== null && admin.superuser && admin.enabled && this.otherSuperusers(id) === 0;
  }

  delete(id: string): boolean {
    return this.db.transaction(() => {
      const current = this.get(id);
      if (current === null) return false;
      if (current.superuser && current.enabled) this.assertAnotherSuperuser(id);
      return this.db.prepare('DELETE FROM admins WHERE id = ?').run(id).changes > 0;
    }).immediate();
  }

  private assertAnotherSuperuser(id: string): void {
    if (this.otherSuperusers(id) === 0) throw new LastSuperuserError();
  }

  private otherSuperusers(id: string): number {
    return (this.db.prepare('SELECT count(*) AS n FROM admins WHERE superuser = 1 AND enabled = 1 AND id != ?').get(id) as { n: number }).n;
  }

  /** The column's NOCASE collation matches any case of A-Z; adminEmail() makes the rest the same as stored. */
  private rowByEmail(email: string): AdminRow | undefined {
    return this.db.prepare('SELECT * FROM admins WHERE email = ?').get(adminEmail(email)) as AdminRow | undefined;
  }
}

/** The SET clause that forgets a pending reset or invite link (src/admins/password-tokens.ts). */
export const NO_RESET_TOKEN = 'reset_password_token_hash = NULL, reset_password_sent_at = NULL, reset_password_kind = NULL';

// Verified against when the email is unknown, so that such a login costs as much as a real one.
let dummy: Promise<string> | null = null;
function dummyHash(): Promise<string> {
  dummy ??= hashPassword(generateToken());
  return dummy;
}

function toAdmin(row: AdminRow): Admin {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    notes: row.notes,
    has_password: row.password_hash !== null,
    superuser: row.superuser === 1,
    enabled: row.enabled === 1,
    auth_token_preview: row.auth_token_preview,
    created_at: row.created_at,
    updated_at: row.updated_at,
    current_sign_in_at: row.current_sign_in_at,
    last_sign_in_at: row.last_sign_in_at,
    current_sign_in_ip: row.current_sign_in_ip,
    last_sign_in_ip: row.last_sign_in_ip,
    sign_in_count: row.sign_in_count,
  };
}
