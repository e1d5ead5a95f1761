// The hot path's view of API keys: every user's key in memory, by lookup
// prefix. Writes in this process reach it at once through the repository's
// change events; writes by another process (the CLI) are picked up by
// refresh(), which the context runs every second. A request never waits on
// SQLite to check a key.
//
// A gateway holds 100,000 users or more, so they are kept as columns by slot
// number rather than as an object each: HMACs, flags and creation times in typed arrays,
// prefix → slot and id → slot in open-addressing tables of slot numbers
// (key-prefix-table.ts, key-slots-by-id.ts), and only the id and email as
// strings (handed out with every found key). What few users have beyond the
// defaults (roles, own settings, an expiry, an imported preview) sits in a sparse map,
// and so do the replaced keys that still work for a while (previous keys).
// 100,000 users took about 23 MB (11 MB of it in typed arrays), against 49 MB
// as a record object each; creation times (for api_key_verification_level) add 1 MB.
import { timingSafeEqual } from 'node:crypto';
import { hmac, lookupPrefix, previewOf } from '../lib/secret-token.js';
import { INITIAL_SLOTS, withRoom } from './key-columns.js';
import { NO_SLOT, PrefixTable } from './key-prefix-table.js';
import { SlotsById } from './key-slots-by-id.js';
import { DEFAULT_USER_SETTINGS, type ApiUserSettings, type KeyHolder, type StoredUserSettings } from './model.js';
import type { ApiUserRepository, KeyRow } from './repository.js';

export const MIN_KEY_LENGTH = 4;
export const MAX_KEY_LENGTH = 60;

/** HMAC-SHA256 bytes per slot. */
const HASH_BYTES = 32;

/** Bits of a slot's flags. */
const ENABLED = 1;
const EMAIL_VERIFIED = 2;
const THROTTLE_BY_IP = 4;

/** A key that find() verified: its user, and the lookup prefix its rate limits count under. */
export interface FoundKey {
  readonly prefix: string;
  readonly user: KeyHolder;
}

/** A user's fields that differ from what almost every user has. */
interface Extras {
  /** Only when it is not previewOf(key), as for some imported users. */
  preview?: string;
  roles?: readonly string[];
  settings?: ApiUserSettings;
  /** expires_at in milliseconds. */
  expiresAt?: number;
}

/** A replaced key that works until `expiresAt`: its user's slot and its own HMAC. */
interface PreviousKey {
  readonly slot: number;
  readonly hash: Buffer;
  readonly expiresAt: number;
  /** The current key's lookup prefix: both keys count against the same rate limits. */
  readonly keyPrefix: string;
}

const NO_ROLES: readonly string[] = Object.freeze([]);
const DEFAULT_SETTINGS_JSON = new Set(['{}', JSON.stringify(DEFAULT_USER_SETTINGS)]);

export class KeyIndex {
  private readonly prefixes = new PrefixTable();
  private readonly ids: string[] = [];
  private readonly slotsById = new SlotsById(this.ids);
  private readonly emails: string[] = [];
  private hashes = new Uint8Array(INITIAL_SLOTS * HASH_BYTES);
  /** ENABLED and EMAIL_VERIFIED bits per slot. */
  private flags = new Uint8Array(INITIAL_SLOTS);
  /** created_at in milliseconds per slot. */
  private createdAt = new Float64Array(INITIAL_SLOTS);
  private readonly extras = new Map<number, Extras>();
  /** By lookup prefix; few at a time, so a Map rather than columns. */
  private readonly previousKeys = new Map<string, PreviousKey>();
  /** The lookup prefix of each slot's previous key, to drop it when the user is filed again. */
  private readonly previousPrefixes = new Map<number, string>();
  /** The change number refresh() has read up to. */
  private lastChangeSeq: number;
  private lastDataVersion: number;
  private filed = 0;

  /**
   * `firstVerified`: called once, off the request, when a key first verifies
   * (StoreSecret.prove: the secret is then the store's); null for none.
   */
  constructor(
    private readonly repository: ApiUserRepository,
    private readonly secretKey: string,
    private firstVerified: (() => void) | null = null,
  ) {
    this.lastDataVersion = repository.externalDataVersion();
    this.lastChangeSeq = repository.inOneSnapshot(() => {
      for (const row of repository.keyRows()) this.file(row);
      return repository.lastChangeSeq();
    });
    // Writes here are filed at once, but only refresh() moves lastChangeSeq: a number taken
    // here may come after one another process took and committed before, which refresh() must still read.
    repository.onChange((change) => (change.kind === 'upsert' ? this.file(change.row) : this.forget(change.id)));
  }

  /**
   * The key's user, or null: wrong length, unknown prefix, or an HMAC
   * mismatch. A previous key finds its user with the earlier of the user's
   * expiry and its own. Builds a fresh record each call.
   */
  find(apiKey: string): FoundKey | null {
    if (apiKey.length < MIN_KEY_LENGTH || apiKey.length > MAX_KEY_LENGTH) return null;
    const slot = this.prefixes.slotOf(apiKey);
    const previous = this.previousKeys.size === 0 ? undefined : this.previousKeys.get(lookupPrefix(apiKey));
    if (slot === NO_SLOT && previous === undefined) return null;
    const digest = hmac(this.secretKey, apiKey);
    if (slot !== NO_SLOT && this.hashMatches(slot, digest)) return this.verified({ prefix: lookupPrefix(apiKey), user: this.holder(slot, apiKey, Infinity) });
    if (previous !== undefined && timingSafeEqual(digest, previous.hash)) return this.verified({ prefix: previous.keyPrefix, user: this.holder(previous.slot, apiKey, previous.expiresAt) });
    return null;
  }

  private verified(found: FoundKey): FoundKey {
    if (this.firstVerified !== null) {
      setImmediate(this.firstVerified);
      this.firstVerified = null;
    }
    return found;
  }

  /** Takes in users written by other processes since the last look; cheap when nothing changed. */
  refresh(): void {
    const dataVersion = this.repository.externalDataVersion();
    if (dataVersion === this.lastDataVersion) return;
    const since = this.lastChangeSeq;
    const { repository } = this;
    this.lastChangeSeq = repository.inOneSnapshot(() => {
      for (const row of repository.keyRows(since)) this.file(row);
      // After the writes: a deleted user has no row left, so no write of it can come after its deletion.
      for (const id of repository.deletions(since)) this.forget(id);
      return repository.lastChangeSeq();
    });
    // Only once read: a read that failed is tried again at the next refresh.
    this.lastDataVersion = dataVersion;
  }

  /** Goes up whenever a user is filed or forgotten (here, or taken in by refresh()): what find() answered before may have changed. */
  get generation(): number {
    return this.filed;
  }

  /** Keys that find() can answer for. */
  get size(): number {
    return this.prefixes.size;
  }

  private hashMatches(slot: number, digest: Buffer): boolean {
    const start = slot * HASH_BYTES;
    return timingSafeEqual(digest, this.hashes.subarray(start, start + HASH_BYTES));
  }

  /** The slot's user; its key, already verified, gives the preview. The key ends at `keyExpiresAt` or the user's expiry, whichever comes first. */
  private holder(slot: number, apiKey: string, keyExpiresAt: number): KeyHolder {
    const extras = this.extras.get(slot);
    return Object.freeze({
      id: this.ids[slot]!,
      email: this.emails[slot]!,
      api_key_preview: extras?.preview ?? previewOf(apiKey),
      enabled: (this.flags[slot]! & ENABLED) !== 0,
      email_verified: (this.flags[slot]! & EMAIL_VERIFIED) !== 0,
      throttle_by_ip: (this.flags[slot]! & THROTTLE_BY_IP) !== 0,
      created_at_ms: this.createdAt[slot]!,
      roles: extras?.roles ?? NO_ROLES,
      settings: extras?.settings ?? DEFAULT_USER_SETTINGS,
      expires_at_ms: Math.min(extras?.expiresAt ?? Infinity, keyExpiresAt),
    });
  }

  /** Files a user written now, in its own slot (a user is filed again on every write); its old key stops working. */
  private file(row: KeyRow): void {
    const slot = this.slotOf(row.id);
    this.prefixes.file(slot, row.api_key_prefix);
    this.hashes.set(row.api_key_hash, slot * HASH_BYTES);
    this.flags[slot] = (row.enabled === 1 ? ENABLED : 0) | (row.email_verified === 1 ? EMAIL_VERIFIED : 0) | (row.throttle_by_ip === 1 ? THROTTLE_BY_IP : 0);
    // A creation time that cannot be read counts as new: transitions then hold the key to the newer rule.
    const createdAt = Date.parse(row.created_at);
    this.createdAt[slot] = Number.isNaN(createdAt) ? Infinity : createdAt;
    this.emails[slot] = row.email;
    const extras = extrasOf(row);
    if (extras === undefined) this.extras.delete(slot);
    else this.extras.set(slot, extras);
    this.filePreviousKey(slot, row);
    this.filed++;
  }

  private filePreviousKey(slot: number, row: KeyRow): void {
    this.forgetPreviousKey(slot);
    if (row.previous_api_key_prefix === null || row.previous_api_key_hash === null) return;
    const expiresAt = instantOrPast(row.previous_api_key_expires_at);
    this.previousKeys.set(row.previous_api_key_prefix, { slot, hash: row.previous_api_key_hash, expiresAt, keyPrefix: lookupPrefix(row.api_key_prefix) });
    this.previousPrefixes.set(slot, row.previous_api_key_prefix);
  }

  private forgetPreviousKey(slot: number): void {
    const prefix = this.previousPrefixes.get(slot);
    if (prefix === undefined) return;
    // Another user's previous key filed later under the same prefix stays.
    if (this.previousKeys.get(prefix)?.slot === slot) this.previousKeys.delete(prefix);
    this.previousPrefixes.delete(slot);
  }

  /** A deleted user's key stops working. Its slot stays taken (ids are never reused), empty. */
  private forget(id: string): void {
    const slot = this.slotsById.get(id);
    if (slot !== NO_SLOT) {
      this.prefixes.remove(slot);
      this.hashes.fill(0, slot * HASH_BYTES, (slot + 1) * HASH_BYTES);
      this.flags[slot] = 0;
      this.emails[slot] = '';
      this.extras.delete(slot);
      this.forgetPreviousKey(slot);
    }
    this.filed++;
  }

  /** The user's slot; a new user takes the next one. A deleted user's slot is never freed. */
  private slotOf(id: string): number {
    const existing = this.slotsById.get(id);
    if (existing !== NO_SLOT) return existing;
    const slot = this.ids.length;
    this.ids.push(id);
    this.slotsById.add(slot);
    this.hashes = withRoom(this.hashes, (slot + 1) * HASH_BYTES);
    this.flags = withRoom(this.flags, slot + 1);
    this.createdAt = withRoom(this.createdAt, slot + 1);
    return slot;
  }
}

function extrasOf(row: KeyRow): Extras | undefined {
  const extras: Extras = {};
  if (row.api_key_preview !== previewOf(row.api_key_prefix)) extras.preview = row.api_key_preview;
  if (row.roles !== '[]') extras.roles = Object.freeze(JSON.parse(row.roles) as string[]);
  if (!DEFAULT_SETTINGS_JSON.has(row.settings)) extras.settings = proxySettings(row.settings);
  if (row.expires_at !== null) extras.expiresAt = instantOrPast(row.expires_at);
  return Object.keys(extras).length === 0 ? undefined : extras;
}

/**
 * A user's stored settings as the proxy reads them: rate limits without their
 * ids, admin data that would cost about 64 bytes a limit here (13 MB for
 * 100,000 users with two limits each). Limits so stripped have the hidden
 * class of those stored before ids: the proxy's reads of them cost the same.
 */
function proxySettings(json: string): ApiUserSettings {
  // Partial: a document written by hand may lack the list; the proxy takes it as before.
  const settings = JSON.parse(json) as Partial<StoredUserSettings>;
  // Assigned in place: a spread copy of the settings object took twice the memory.
  if (settings.rate_limits !== undefined) Object.assign(settings, { rate_limits: settings.rate_limits.map(({ id, ...limit }) => limit) });
  return Object.freeze(settings) as ApiUserSettings;
}

/** An expiry in milliseconds; one that cannot be read counts as passed: a key meant to end must not work for ever. */
function instantOrPast(iso: string | null): number {
  const instant = Date.parse(iso ?? '');
  return Number.isNaN(instant) ? -Infinity : instant;
}
