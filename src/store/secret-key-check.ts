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

/**
 * The secret the store's API keys and admin tokens are checked with (the
 * config's secret_key, or data_dir's secret_key file, made for a store that
 * has none yet); throws one line when it is missing or not theirs.
 */
export function storeSecretKey(db: Db, config: Config): string {
  const storeHasDigests = holdsDigests(db);
  const secret = resolveSecretKey(config, storeHasDigests);
  const recorded = recordedDigest(db);
  if (recorded !== undefined && tokenMatches(secret, CHECKED_TEXT, recorded)) return secret;
  if (!isStoreSecret(recorded, secret, storeHasDigests)) throw new Error(notStoreSecret(config));
  db.prepare('INSERT INTO secret_key_check (id, digest) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET digest = excluded.digest').run(hmac(secret, CHECKED_TEXT));
  return secret;
}

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
 * store from before the check trusts the secret it has now.
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
