// The store keeps an HMAC of a fixed text under the secret its API keys and
// admin tokens were made with. Started with another secret (a typo in the
// config's secret_key, the secret_key file of another data_dir), Parasol
// would refuse every one of them and say nothing; this check stops start-up
// instead, with one line.
import type { Config } from '../config/schema.js';
import { resolveSecretKey, secretKeyFile } from '../config/secret-key.js';
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
  checkSecretKey(db, secret, storeHasDigests, secretKeyFile(config) ?? "the config's secret_key");
  return secret;
}

function holdsDigests(db: Db): boolean {
  return db.prepare('SELECT EXISTS (SELECT 1 FROM api_users) OR EXISTS (SELECT 1 FROM admins)').pluck().get() === 1;
}

/**
 * Throws when `secret` is not the one the store's keys and tokens were made
 * with. Otherwise records it: on a store without keys or tokens a new secret
 * is fine, and a store from before the check trusts the secret it has now.
 * `source` names where the secret came from, for the message.
 */
function checkSecretKey(db: Db, secret: string, storeHasDigests: boolean, source: string): void {
  const recorded = db.prepare('SELECT digest FROM secret_key_check').pluck().get() as Buffer | undefined;
  if (recorded !== undefined && tokenMatches(secret, CHECKED_TEXT, recorded)) return;
  if (recorded !== undefined && storeHasDigests) {
    throw new Error(
      `${source} is not the secret this store's API keys and admin tokens were made with, so every one of them would be refused; use that secret (a backup's secret_key file has it)`,
    );
  }
  db.prepare('INSERT INTO secret_key_check (id, digest) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET digest = excluded.digest').run(hmac(secret, CHECKED_TEXT));
}
