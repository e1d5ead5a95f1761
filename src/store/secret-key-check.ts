// The store keeps an HMAC of a fixed text under the secret its API keys and
// admin tokens were made with. Started with another secret (a typo in the
// config's secret_key, the secret_key file of another data_dir), Parasol
// would refuse every one of them and say nothing; this check stops start-up
// instead, with one line.
import type { Config } from '../config/schema.js';
import { existingSecretKey, resolveSecretKey, secretKeyFile } from '../config/secret-key.js';
import { hmac, tokenMatches } from '../lib/secret-token.js';
import type { Db } from './db.js';

const CHECKED_TEXT = 'parasol secret_key check';

export interface StoreSecret {
  readonly secret: string;
  /**
   * For a store from before the check (migration 020) that holds keys or
   * tokens: records the secret as the store's once one of them has verified
   * under it. Recorded at once instead, a wrong secret (a restored backup
   * without its secret_key file) would be pinned, and the right one then
   * refused. null: nothing left to record.
   */
  readonly prove: (() => void) | null;
}

/**
 * The secret the store's API keys and admin tokens are checked with (the
 * config's secret_key, or data_dir's secret_key file, made for a store that
 * has none yet); throws one line when it is missing or not theirs.
 */
export function storeSecretKey(db: Db, config: Config): StoreSecret {
  const storeHasDigests = holdsDigests(db);
  const secret = resolveSecretKey(config, storeHasDigests);
  const record = () => void db.prepare('INSERT INTO secret_key_check (id, digest) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET digest = excluded.digest').run(hmac(secret, CHECKED_TEXT));
  // Without keys or tokens any secret is the store's from now on.
  if (!storeHasDigests) {
    record();
    return { secret, prove: null };
  }
  const recorded = recordedDigest(db);
  if (recorded === undefined) return { secret, prove: record };
  if (!tokenMatches(secret, CHECKED_TEXT, recorded)) throw new Error(notStoreSecret(config));
  return { secret, prove: null };
}

/** The warning for a store whose secret is not recorded yet (StoreSecret.prove). */
export const UNPROVEN_SECRET = 'this store is from before Parasol recorded the secret its API keys and admin tokens were made with: secret_key is taken to be it, and recorded once a key or token verifies under it (if every key is refused, it is the wrong secret: use the one they were made with)';

/**
 * The line storeSecretKey() would throw, found without writing anything (for
 * `parasol config check`); `db` null when the store is not there or not to
 * be read, whose keys are then not known of.
 */
export function secretKeyProblemOf(db: Db | null, config: Config): string | null {
  try {
    const storeHasDigests = db !== null && holdsDigests(db);
    const secret = existingSecretKey(config, storeHasDigests);
    return secret === null || db === null || isStoreSecret(recordedDigest(db), secret, storeHasDigests) ? null : notStoreSecret(config);
  } catch (error) {
    return (error as Error).message;
  }
}

function holdsDigests(db: Db): boolean {
  return db.prepare('SELECT EXISTS (SELECT 1 FROM api_users) OR EXISTS (SELECT 1 FROM admins)').pluck().get() === 1;
}

/**
 * Whether the store's keys and tokens were made with `secret`, as far as it
 * can tell: on a store without keys or tokens a new secret is fine, and a
 * store from before the check cannot tell (StoreSecret.prove).
 */
function isStoreSecret(recorded: Buffer | undefined, secret: string, storeHasDigests: boolean): boolean {
  return recorded === undefined || !storeHasDigests || tokenMatches(secret, CHECKED_TEXT, recorded);
}

function recordedDigest(db: Db): Buffer | undefined {
  return db.prepare('SELECT digest FROM secret_key_check').pluck().get() as Buffer | undefined;
}

function notStoreSecret(config: Config): string {
  const source = secretKeyFile(config) ?? "the config's secret_key";
  return `${source} is not the secret this store's API keys and admin tokens were made with, so every one of them would be refused; use that secret (a backup's secret_key file has it)`;
}
