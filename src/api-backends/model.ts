// The API backend model, with API Umbrella's field names so that its
// operators' scripts keep working against /api-umbrella/v1/apis.
import type { Embedded, Identified } from '../lib/record-ids.js';
import { withStoredIds } from './embedded-ids.js';

export const HTTP_METHODS = ['any', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'CONNECT'] as const;
export type SubSettingMethod = (typeof HTTP_METHODS)[number];

export const BALANCE_ALGORITHMS = ['round_robin', 'least_conn', 'ip_hash'] as const;
export type BalanceAlgorithm = (typeof BALANCE_ALGORITHMS)[number];

export const BACKEND_PROTOCOLS = ['http', 'https'] as const;
export type BackendProtocol = (typeof BACKEND_PROTOCOLS)[number];

export const RATE_LIMIT_MODES = ['custom', 'unlimited'] as const;
/** null means "inherit the default limits". */
export type RateLimitMode = (typeof RATE_LIMIT_MODES)[number] | null;

export type LimitBy = 'ip' | 'api_key';

/** Requests without a key: `ip_fallback` counts limits by api_key per IP too, `ip_only` applies only the limits by ip. */
export const ANONYMOUS_RATE_LIMIT_BEHAVIORS = ['ip_fallback', 'ip_only'] as const;
export type AnonymousRateLimitBehavior = (typeof ANONYMOUS_RATE_LIMIT_BEHAVIORS)[number];

/** Requests with a key: `all` limits, or `api_key_only` the limits by api_key alone. */
export const AUTHENTICATED_RATE_LIMIT_BEHAVIORS = ['all', 'api_key_only'] as const;
export type AuthenticatedRateLimitBehavior = (typeof AUTHENTICATED_RATE_LIMIT_BEHAVIORS)[number];

/** API Umbrella's require_https mode for "new keys need HTTPS, older ones may keep using HTTP". */
export const HTTPS_TRANSITION = 'transition_return_error';

/**
 * Which keys need a verified email (API Umbrella's api_key_verification_level):
 * none; those of users created from api_key_verification_transition_start_at
 * on (older keys keep working); or all of them.
 */
export const API_KEY_VERIFICATION_LEVELS = ['none', 'transition_email', 'required_email'] as const;
export type ApiKeyVerificationLevel = (typeof API_KEY_VERIFICATION_LEVELS)[number];

export interface RateLimit {
  /** Window length in milliseconds. */
  readonly duration: number;
  readonly limit_by: LimitBy;
  readonly limit: number;
  readonly response_headers: boolean;
}

export interface HeaderSetting {
  readonly key: string;
  readonly value: string;
}

/**
 * Header settings as API Umbrella's admin edits them, and as its API answers
 * them beside the list (headers_string, …): "Key: value" lines, "" for none.
 * parseHeaders (validate.ts) reads them back.
 */
export function headerLines(headers: readonly HeaderSetting[] = []): string {
  return headers.map((header) => `${header.key}: ${header.value}`).join('\n');
}

/** An error's data as written: text, or a number or boolean as YAML and JSON give them (status_code: 401). */
export type ErrorDataValues = Readonly<Record<string, string | number | boolean>>;

export interface ApiSettings {
  readonly append_query_string: string | null;
  readonly headers: readonly Embedded<HeaderSetting>[];
  /** Set on the upstream's response when it has no header of that name. */
  readonly default_response_headers: readonly Embedded<HeaderSetting>[];
  /** Set on the upstream's response in place of any header of that name. */
  readonly override_response_headers: readonly Embedded<HeaderSetting>[];
  readonly http_basic_auth: string | null;
  /** true: HTTPS only; false: HTTP too; transition_return_error: HTTPS only for keys of users created from require_https_transition_start_at on. */
  readonly require_https: boolean | typeof HTTPS_TRANSITION | null;
  /** ISO date-time; stamped when a backend with the transition is published (see transition-starts.ts). */
  readonly require_https_transition_start_at: string | null;
  readonly disable_api_key: boolean | null;
  /** The client's key goes upstream as X-Api-Key. */
  readonly pass_api_key_header: boolean | null;
  /** The client's key goes upstream as the api_key query parameter. */
  readonly pass_api_key_query_param: boolean | null;
  readonly required_roles: readonly string[];
  readonly required_roles_override: boolean;
  readonly allowed_ips: readonly string[];
  readonly allowed_referers: readonly string[];
  readonly rate_limit_mode: RateLimitMode;
  readonly rate_limits: readonly Embedded<RateLimit>[];
  readonly rate_limit_bucket_name: string | null;
  /** null: ip_fallback. */
  readonly anonymous_rate_limit_behavior: AnonymousRateLimitBehavior | null;
  /** null: all. */
  readonly authenticated_rate_limit_behavior: AuthenticatedRateLimitBehavior | null;
  readonly error_templates: Readonly<Record<string, string>>;
  /** Per error code (and `common`), the values its templates show, each a template too. */
  readonly error_data: Readonly<Record<string, ErrorDataValues>>;
  readonly disable_analytics: boolean | null;
  /** null: inherit (none at the top). */
  readonly api_key_verification_level: ApiKeyVerificationLevel | null;
  /** ISO date-time; with transition_email, users created from then on need a verified email (stamped at publish as for HTTPS). */
  readonly api_key_verification_transition_start_at: string | null;
}

/** require_https says keys made from its start on need HTTPS. */
export function inHttpsTransition(settings: ApiSettings): boolean {
  return settings.require_https === HTTPS_TRANSITION;
}

/** api_key_verification_level says keys made from its start on need a verified email. */
export function inVerificationTransition(settings: ApiSettings): boolean {
  return settings.api_key_verification_level === 'transition_email';
}

export interface SubSetting extends Identified {
  readonly http_method: SubSettingMethod;
  readonly regex: string;
  readonly settings: ApiSettings;
}

/** `route`: a path pattern with :name and *name captures; `regex`: a case-insensitive regular expression. */
export const REWRITE_MATCHER_TYPES = ['route', 'regex'] as const;
export type RewriteMatcherType = (typeof REWRITE_MATCHER_TYPES)[number];

/** One of a backend's URL rewrites, applied in order to the upstream path and query. */
export interface UrlRewrite {
  readonly matcher_type: RewriteMatcherType;
  readonly http_method: SubSettingMethod;
  readonly frontend_matcher: string;
  readonly backend_replacement: string;
}

export interface ServerAddress {
  readonly host: string;
  readonly port: number;
}

export interface UrlMatch {
  readonly frontend_prefix: string;
  readonly backend_prefix: string;
}

/** What an operator edits: everything about a backend except its identity and bookkeeping. */
export interface ApiBackendConfig {
  readonly name: string;
  readonly frontend_host: string;
  readonly backend_host: string;
  readonly backend_protocol: BackendProtocol;
  readonly balance_algorithm: BalanceAlgorithm;
  readonly servers: readonly Embedded<ServerAddress>[];
  readonly url_matches: readonly Embedded<UrlMatch>[];
  readonly settings: ApiSettings;
  readonly sub_settings: readonly SubSetting[];
  readonly rewrites: readonly Embedded<UrlRewrite>[];
}

export interface ApiBackend extends ApiBackendConfig {
  readonly id: string;
  /**
   * The backends' order, API Umbrella's: new backends go last (0, 10000,
   * 20000, …), unless created with a sort_order; move_after places one
   * between two others. Ties between equally long prefixes on the same
   * request go to the backend first in this order (compareBackendOrder).
   */
  readonly sort_order: number;
  readonly created_at: string;
  readonly updated_at: string;
  readonly created_by: string | null;
  readonly updated_by: string | null;
}

export const EMPTY_SETTINGS: ApiSettings = Object.freeze({
  append_query_string: null,
  headers: [],
  default_response_headers: [],
  override_response_headers: [],
  http_basic_auth: null,
  require_https: null,
  require_https_transition_start_at: null,
  disable_api_key: null,
  pass_api_key_header: null,
  pass_api_key_query_param: null,
  required_roles: [],
  required_roles_override: false,
  allowed_ips: [],
  allowed_referers: [],
  rate_limit_mode: null,
  rate_limits: [],
  rate_limit_bucket_name: null,
  anonymous_rate_limit_behavior: null,
  authenticated_rate_limit_behavior: null,
  error_templates: {},
  error_data: {},
  disable_analytics: null,
  api_key_verification_level: null,
  api_key_verification_transition_start_at: null,
});

/**
 * A stored backend document (of the backend `backendId`) as the current
 * model: settings and rewrites added since it was written take their empty
 * defaults, so drafts and published versions from before them compare and
 * compile like new ones, and embedded records from before ids get theirs
 * (withStoredIds).
 */
export function withCurrentSettings<T extends ApiBackendConfig>(api: T, backendId: string): T {
  return withStoredIds(
    {
      ...api,
      rewrites: api.rewrites ?? [],
      settings: { ...EMPTY_SETTINGS, ...api.settings },
      sub_settings: api.sub_settings.map((sub) => ({ ...sub, settings: { ...EMPTY_SETTINGS, ...sub.settings } })),
    },
    backendId,
  );
}

/**
 * A stored backend as the base an admin API update's changes go over. Its
 * settings without a rate_limit_mode may keep limits from before such input
 * was saved as custom (parseRateLimitSettings), which mean nothing: passed
 * through the parser again with the changes, they would become custom. They
 * are dropped, so the backend keeps meaning the defaults.
 */
export function asUpdateBase<T extends ApiBackendConfig>(api: T): T {
  const unusedLimitsDropped = (settings: ApiSettings): ApiSettings =>
    settings.rate_limit_mode === null && settings.rate_limits.length > 0 ? { ...settings, rate_limits: [] } : settings;
  return {
    ...api,
    settings: unusedLimitsDropped(api.settings),
    sub_settings: api.sub_settings.map((sub) => ({ ...sub, settings: unusedLimitsDropped(sub.settings) })),
  };
}

/** Paths the gateway serves itself; no backend may claim them. */
export const RESERVED_PREFIXES = ['/admin', '/admins', '/signup', '/contact', '/api-umbrella', '/assets'] as const;

/** API Umbrella's bounds and step for sort_order (a PostgreSQL integer there). */
export const MIN_SORT_ORDER = -2147483648;
export const MAX_SORT_ORDER = 2147483647;
export const SORT_ORDER_GAP = 10000;

/**
 * The backends' order: by sort_order, then the one created first, then by
 * id, so that two backends never compare equal (two may share a sort_order:
 * a draft and a deleted backend still live, or versions published apart).
 */
export function compareBackendOrder(a: Pick<ApiBackend, 'sort_order' | 'created_at' | 'id'>, b: Pick<ApiBackend, 'sort_order' | 'created_at' | 'id'>): number {
  if (a.sort_order !== b.sort_order) return a.sort_order - b.sort_order;
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
