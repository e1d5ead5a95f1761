// Devise's trackable fields, as API Umbrella keeps them for its admins: at
// each sign-in the last_sign_in_* fields take the current ones (at the first,
// this one's, as Devise does), which become this sign-in's time and client IP,
// and sign_in_count goes up. The IP is
// personal data: it is kept in these two columns only, and never logged.
import type { Db } from '../store/db.js';

/** Records a sign-in of the admin `id` from the client IP `ip` at `at` (ISO 8601). */
export function trackSignIn(db: Db, id: string, ip: string, at: string): void {
  db.prepare(
    // The right-hand sides read the row as it was: the last sign-in is the one that was current.
    `UPDATE admins SET last_sign_in_at = coalesce(current_sign_in_at, @at), last_sign_in_ip = coalesce(current_sign_in_ip, @ip),
       current_sign_in_at = @at, current_sign_in_ip = @ip, sign_in_count = sign_in_count + 1 WHERE id = @id`,
  ).run({ id, ip, at });
}
