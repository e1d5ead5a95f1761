// The one-time links that let an admin choose a password without knowing the
// old one: API Umbrella's (Devise's) "Forgot password" reset link, good for
// 6 hours, and its invitation, good for 7 days (API Umbrella's runs two
// weeks). The token is 32 random bytes (base64url); the store keeps only its
// HMAC-SHA256 under the secret key, as for API keys and admin tokens, with
// the time it was made, by the injectable clock. An admin has one link at
// most: a new one replaces the old. Using it sets the password, forgets the
// link and ends the admin's sessions in one transaction, so a link works once
// however many tabs submit it.
import { randomBytes } from 'node:crypto';
import { perContext } from '../lib/per-context.js';
import type { Clock } from '../lib/clock.js';
import { hmac, tokenMatches } from '../lib/secret-token.js';
import type { Db } from '../store/db.js';
import { hashPassword } from './password.js';
import { NO_RESET_TOKEN, type Admin } from './repository.js';
import { trackSignIn } from './sign-ins.js';

export type PasswordLinkKind = 'reset' | 'invite';

/** How long a link is good for after it was made. */
export const LINK_VALIDITY_MS: Readonly<Record<PasswordLinkKind, number>> = {
  reset: 6 * 3_600_000,
  invite: 7 * 24 * 3_600_000,
};

/** What a presented token is: a link to use, one that is no more (used, replaced, never made) or one that ran out. */
export type LinkCheck =
  | { readonly status: 'valid'; readonly admin: Admin; readonly kind: PasswordLinkKind }
  | { readonly status: 'invalid' }
  | { readonly status: 'expired'; readonly kind: PasswordLinkKind };

interface TokenRow {
  id: string;
  enabled: number;
  reset_password_token_hash: Buffer;
  reset_password_sent_at: number;
  reset_password_kind: PasswordLinkKind;
}

/** 32 bytes in base64url, unpadded. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** One per running Parasol (the store is in SQLite; a reloaded config's context gets its own, on the same rows). */
export const passwordTokens = perContext((context) => new PasswordTokens(context.db, context.secretKey, context.clock, (id) => context.admins.get(id)));

export class PasswordTokens {
  constructor(
    private readonly db: Db,
    private readonly secretKey: string,
    private readonly clock: Clock,
    private readonly adminById: (id: string) => Admin | null,
  ) {}

  /** A new link's token for the admin (replacing any earlier one), shown only in the mail; null when there is no such admin. */
  issue(adminId: string, kind: PasswordLinkKind): string | null {
    const token = randomBytes(32).toString('base64url');
    const changed = this.db
      .prepare('UPDATE admins SET reset_password_token_hash = ?, reset_password_sent_at = ?, reset_password_kind = ? WHERE id = ?')
      .run(hmac(this.secretKey, token), this.clock.now(), kind, adminId).changes;
    return changed === 0 ? null : token;
  }

  /** What the token is now; a disabled admin's link is none (they could not sign in after it). */
  check(token: unknown): LinkCheck {
    const row = this.rowOf(token);
    if (row === null) return { status: 'invalid' };
    if (this.hasExpired(row)) return { status: 'expired', kind: row.reset_password_kind };
    const admin = this.adminById(row.id);
    return admin === null ? { status: 'invalid' } : { status: 'valid', admin, kind: row.reset_password_kind };
  }

  /**
   * Sets the password of the link's admin (checked beforehand: its length and
   * confirmation), forgets the link, ends every session of the admin (whoever
   * had the old password is out) and records the sign-in from `ip` the caller
   * then makes; what check() would have said otherwise, nothing changed. The
   * password is hashed first and the token checked again inside the write
   * transaction: of two submissions of one link, one wins.
   */
  async redeem(token: unknown, password: string, ip: string): Promise<LinkCheck> {
    const before = this.check(token);
    if (before.status !== 'valid') return before;
    const hash = await hashPassword(password);
    return this.db.transaction((): LinkCheck => {
      const row = this.rowOf(token);
      if (row === null) return { status: 'invalid' };
      if (this.hasExpired(row)) return { status: 'expired', kind: row.reset_password_kind };
      const now = new Date(this.clock.now()).toISOString();
      this.db.prepare('DELETE FROM admin_sessions WHERE admin_id = ?').run(row.id);
      this.db.prepare(`UPDATE admins SET password_hash = ?, ${NO_RESET_TOKEN}, updated_at = ? WHERE id = ?`).run(hash, now, row.id);
      trackSignIn(this.db, row.id, ip, now);
      const admin = this.adminById(row.id);
      return admin === null ? { status: 'invalid' } : { status: 'valid', admin, kind: row.reset_password_kind };
    }).immediate();
  }

  /**
   * The enabled admin whose pending link this token is. Found by its HMAC
   * (an index lookup on a value the presenter cannot steer), then compared
   * in constant time as every stored secret is.
   */
  private rowOf(token: unknown): TokenRow | null {
    if (typeof token !== 'string' || !TOKEN_SHAPE.test(token)) return null;
    const row = this.db
      .prepare('SELECT id, enabled, reset_password_token_hash, reset_password_sent_at, reset_password_kind FROM admins WHERE reset_password_token_hash = ?')
      .get(hmac(this.secretKey, token)) as TokenRow | undefined;
    if (row === undefined || row.enabled !== 1 || !tokenMatches(this.secretKey, token, row.reset_password_token_hash)) return null;
    return row;
  }

  private hasExpired(row: TokenRow): boolean {
    return this.clock.now() - row.reset_password_sent_at > LINK_VALIDITY_MS[row.reset_password_kind];
  }
}
