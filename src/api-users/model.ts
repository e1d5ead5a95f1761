import type { RateLimit, RateLimitMode } from '../api-backends/model.js';
import { withStoredId, type Embedded } from '../lib/record-ids.js';

/** Per-user settings, as the proxy reads them; rate limits here win over the backend's. */
export interface ApiUserSettings {
  readonly rate_limit_mode: RateLimitMode;
  readonly rate_limits: readonly RateLimit[];
  readonly allowed_ips: readonly string[];
  readonly allowed_referers: readonly string[];
}

/**
 * A user's settings as stored and as the admin answers them: each rate limit
 * with a UUID id, as in API Umbrella (record-ids.ts). The key index keeps
 * them without, as ApiUserSettings.
 */
export interface StoredUserSettings extends ApiUserSettings {
  readonly rate_limits: readonly Embedded<RateLimit>[];
}

export interface ApiUser {
  readonly id: string;
  readonly email: string;
  readonly first_name: string | null;
  readonly last_name: string | null;
  readonly website: string | null;
  readonly use_description: string | null;
  readonly roles: readonly string[];
  readonly enabled: boolean;
  /** The user has shown they own the address: their key went to them by email only, or an operator made them. */
  readonly email_verified: boolean;
  /** The key is shared (a demo key, one inside a public page): its limits by api_key count per client IP, as API Umbrella's throttle_by_ip does. */
  readonly throttle_by_ip: boolean;
  readonly settings: StoredUserSettings;
  /** From this instant on (ISO 8601, UTC) the key is refused with API_KEY_EXPIRED; null: never. */
  readonly expires_at: string | null;
  readonly registration_source: string | null;
  readonly registration_ip: string | null;
  readonly registration_user_agent: string | null;
  readonly registration_referer: string | null;
  readonly registration_origin: string | null;
  readonly api_key_preview: string;
  /** The key replaced last with a grace period, and when that ends (or ended); null: none, or ended early. */
  readonly previous_api_key_preview: string | null;
  readonly previous_api_key_expires_at: string | null;
  readonly created_at: string;
  readonly updated_at: string;
  /**
   * The id of the admin who created the user; null for a signup by the form,
   * the key creator's user id for one through the API, "cli" for the command
   * line (or the email of an admin deleted before migration 028).
   */
  readonly created_by: string | null;
  /** API Umbrella's creator and updater: the email of the admin created_by (updated_by) names, null when that is no admin's or the admin is gone. */
  readonly creator: AuditName;
  /** Who changed the user last, as created_by: the admin's id, or the creator's for a user unchanged since. */
  readonly updated_by: string | null;
  readonly updater: AuditName;
  /** Since when the user is disabled (ISO 8601, UTC); null while it is enabled. */
  readonly disabled_at: string | null;
}

/** An admin as API Umbrella's audit fields name them: by username (the email here). */
export interface AuditName {
  readonly username: string | null;
}

/** What the proxy needs of a key's user, and all the key index keeps in memory for each of them. */
export type KeyHolder = Pick<ApiUser, 'id' | 'email' | 'api_key_preview' | 'enabled' | 'email_verified' | 'throttle_by_ip' | 'roles'> & {
  readonly settings: ApiUserSettings;
  /** created_at in milliseconds since the epoch (api_key_verification_level transition_email compares it). */
  readonly created_at_ms: number;
  /** expires_at in milliseconds since the epoch; Infinity: never. */
  readonly expires_at_ms: number;
};

/** The editable fields of an API user. */
export type ApiUserInput = Pick<
  ApiUser,
  | 'email'
  | 'first_name'
  | 'last_name'
  | 'website'
  | 'use_description'
  | 'roles'
  | 'enabled'
  | 'email_verified'
  | 'throttle_by_ip'
  | 'settings'
  | 'expires_at'
  | 'registration_source'
>;

/** Who a user signed up from, as API Umbrella records it: the request that created them (null fields: not known). */
export type RegistrationDetails = Pick<ApiUser, 'registration_ip' | 'registration_user_agent' | 'registration_referer' | 'registration_origin'>;

export const NO_REGISTRATION_DETAILS: RegistrationDetails = Object.freeze({
  registration_ip: null,
  registration_user_agent: null,
  registration_referer: null,
  registration_origin: null,
});

export const DEFAULT_USER_SETTINGS: StoredUserSettings = Object.freeze({
  rate_limit_mode: null,
  rate_limits: [],
  allowed_ips: [],
  allowed_referers: [],
});

/**
 * A user's stored settings (of the user `userId`) as the current model: a
 * document from before a field ('{}') takes its default, and rate limits
 * from before ids get ids derived from the user's id and their place
 * (withStoredId), the same on every read until the user is saved.
 */
export function withCurrentUserSettings(stored: Partial<StoredUserSettings>, userId: string): StoredUserSettings {
  const settings = { ...DEFAULT_USER_SETTINGS, ...stored };
  return { ...settings, rate_limits: settings.rate_limits.map((limit, index) => withStoredId(limit, `api_user ${userId} settings.rate_limits[${index}]`)) };
}

/** Role that lets a key create other keys through the JSON signup API. */
export const KEY_CREATOR_ROLE = 'api-umbrella-key-creator';
