// Which settings govern a request, decided once per publish: each backend's
// settings and each sub-setting merged over them, compiled into what the
// hot path needs (header sets, query edits, limits) so a request only picks one.
import { inHttpsTransition, type ApiBackend, type ApiSettings, type ErrorDataValues, type HeaderSetting, type RateLimit, type SubSettingMethod } from '../api-backends/model.js';
import type { KeyHolder } from '../api-users/model.js';
import type { Config } from '../config/schema.js';
import { isHeaderValue } from '../lib/header-value.js';
import { ClientRestrictions } from './client-restrictions.js';
import { compileErrorResponses, type ErrorResponses } from './error-templates.js';
import { HeaderTemplates } from './header-templates.js';
import { GATEWAY_OWNED, NOT_FORWARDED } from './headers.js';
import { parseQueryAppend, type QueryAppend } from './request-url.js';
import { compileResponseHeaders, type ResponseHeaderSettings } from './response-header-settings.js';

/** An empty list of limits: unlimited. */
const UNLIMITED: readonly RateLimit[] = Object.freeze([]);

/** What the config gives backends and sub-settings that leave a setting empty (default_api_backend_settings), resolved once per publish. */
export interface BackendDefaults {
  /** For settings without a rate_limit_mode: none under the config's unlimited. */
  readonly rateLimits: readonly RateLimit[];
  /** For settings whose require_https is empty: API Umbrella's required_return_error, or plain HTTP too. */
  readonly requireHttps: boolean;
}

export function backendDefaultsOf(defaults: Config['default_api_backend_settings']): BackendDefaults {
  return { rateLimits: defaults.rate_limit_mode === 'unlimited' ? UNLIMITED : defaults.rate_limits, requireHttps: defaults.require_https === 'required_return_error' };
}

export interface EffectiveSettings {
  readonly disableApiKey: boolean;
  /** Send the client's key upstream as X-Api-Key (unless a `headers` setting names X-Api-Key: the backend's own key wins). */
  readonly passApiKeyHeader: boolean;
  /** Send the client's key upstream as api_key, after the other parameters (unless append_query_string sets an api_key). */
  readonly passApiKeyQueryParam: boolean;
  readonly requireHttps: boolean;
  /** require_https transition_return_error: keys of users created at or after this time (ms) need HTTPS; null: no transition. */
  readonly httpsRequiredSince: number | null;
  /** The user must hold all of these. */
  readonly requiredRoles: readonly string[];
  /** null: the backend's frontend_host. */
  readonly rateLimitBucket: string | null;
  /** After backend/sub-setting modes and the global defaults, for requests without a user; [] = unlimited. */
  readonly anonymousLimits: readonly RateLimit[];
  /** The same for requests with a user who has no limits of their own. */
  readonly authenticatedLimits: readonly RateLimit[];
  /** authenticated_rate_limit_behavior api_key_only: a user's own limits count by api_key only as well. */
  readonly apiKeyLimitsOnly: boolean;
  readonly disableAnalytics: boolean;
  /** Keys of users created at or after this time (ms) need a verified email; -Infinity: every key; null: none. */
  readonly verifiedEmailSince: number | null;
  /** Headers set on the upstream request, replacing the client's of the same name: those with fixed values. */
  readonly headers: readonly HeaderSetting[];
  /** Those whose values are templates, rendered per request; null when none is. */
  readonly headerTemplates: HeaderTemplates | null;
  /** Client headers not passed upstream: hop-by-hop and gateway headers, and those `headers` or basic auth replace. */
  readonly droppedHeaders: ReadonlySet<string>;
  /** default_response_headers and override_response_headers; null when neither sets any. */
  readonly responseHeaders: ResponseHeaderSettings | null;
  readonly queryAppend: QueryAppend | null;
  /** "Basic …" for http_basic_auth, replacing the client's Authorization. */
  readonly authorization: string | null;
  /** allowed_ips and allowed_referers; null when neither is set. */
  readonly clientRestrictions: ClientRestrictions | null;
  /** error_templates and error_data; null when neither is set. */
  readonly errorResponses: ErrorResponses | null;
}

interface CompiledSubSetting {
  readonly method: SubSettingMethod;
  readonly regex: RegExp;
  readonly settings: EffectiveSettings;
}

/** A backend's settings and its sub-settings, ready to choose from. */
export class SettingsChooser {
  private constructor(
    private readonly base: EffectiveSettings,
    private readonly subSettings: readonly CompiledSubSetting[],
  ) {}

  static compile(api: ApiBackend, defaults: BackendDefaults): SettingsChooser {
    // As API Umbrella: one without a regex (the admin refuses it; a document stored otherwise may lack it) is skipped, not matched everywhere.
    const subSettings = api.sub_settings.filter((sub) => typeof sub.regex === 'string' && sub.regex !== '').map((sub) => ({
      method: sub.http_method,
      regex: new RegExp(sub.regex, 'i'),
      settings: compileSettings(mergeSettings(api.settings, sub.settings), defaults),
    }));
    return new SettingsChooser(compileSettings(api.settings, defaults), subSettings);
  }

  /** The first sub-setting for this method whose regex matches the backend path + query, else the backend's. */
  choose(method: string, backendPath: string, query: string): EffectiveSettings {
    const { subSettings } = this;
    if (subSettings.length === 0) return this.base;
    const target = query === '' ? backendPath : `${backendPath}?${query}`;
    for (const sub of subSettings) {
      if ((sub.method === 'any' || sub.method === method) && sub.regex.test(target)) return sub.settings;
    }
    return this.base;
  }
}

/**
 * A sub-setting over its backend's settings: null fields inherit, non-empty
 * lists replace, required roles add up unless overridden.
 */
export function mergeSettings(parent: ApiSettings, child: ApiSettings): ApiSettings {
  const ownLimits = child.rate_limit_mode !== null;
  // A mode and its transition start go together, as the rate limit mode and its limits do.
  const https = child.require_https !== null ? child : parent;
  const verification = child.api_key_verification_level !== null ? child : parent;
  return {
    append_query_string: child.append_query_string ?? parent.append_query_string,
    headers: child.headers.length > 0 ? child.headers : parent.headers,
    default_response_headers: child.default_response_headers.length > 0 ? child.default_response_headers : parent.default_response_headers,
    override_response_headers: child.override_response_headers.length > 0 ? child.override_response_headers : parent.override_response_headers,
    http_basic_auth: child.http_basic_auth ?? parent.http_basic_auth,
    require_https: https.require_https,
    require_https_transition_start_at: https.require_https_transition_start_at,
    disable_api_key: child.disable_api_key ?? parent.disable_api_key,
    pass_api_key_header: child.pass_api_key_header ?? parent.pass_api_key_header,
    pass_api_key_query_param: child.pass_api_key_query_param ?? parent.pass_api_key_query_param,
    required_roles: child.required_roles_override ? child.required_roles : [...new Set([...parent.required_roles, ...child.required_roles])],
    required_roles_override: child.required_roles_override,
    allowed_ips: child.allowed_ips.length > 0 ? child.allowed_ips : parent.allowed_ips,
    allowed_referers: child.allowed_referers.length > 0 ? child.allowed_referers : parent.allowed_referers,
    rate_limit_mode: ownLimits ? child.rate_limit_mode : parent.rate_limit_mode,
    rate_limits: ownLimits ? child.rate_limits : parent.rate_limits,
    rate_limit_bucket_name: child.rate_limit_bucket_name ?? parent.rate_limit_bucket_name,
    anonymous_rate_limit_behavior: child.anonymous_rate_limit_behavior ?? parent.anonymous_rate_limit_behavior,
    authenticated_rate_limit_behavior: child.authenticated_rate_limit_behavior ?? parent.authenticated_rate_limit_behavior,
    error_templates: { ...parent.error_templates, ...child.error_templates },
    error_data: mergedErrorData(parent.error_data, child.error_data),
    disable_analytics: child.disable_analytics ?? parent.disable_analytics,
    api_key_verification_level: verification.api_key_verification_level,
    api_key_verification_transition_start_at: verification.api_key_verification_transition_start_at,
  };
}

/** From when (ms) users' keys need a verified email: -Infinity for all, null for none. */
function verifiedEmailSince(settings: ApiSettings): number | null {
  switch (settings.api_key_verification_level) {
    case 'required_email':
      return -Infinity;
    case 'transition_email':
      return transitionStart(settings.api_key_verification_transition_start_at);
    default:
      return null;
  }
}

/** Publishing stamps every transition's start; one that somehow has none applies to every key rather than to none. */
function transitionStart(startAt: string | null): number {
  return startAt === null ? -Infinity : Date.parse(startAt);
}

export function compileSettings(settings: ApiSettings, defaults: BackendDefaults): EffectiveSettings {
  // A Host or Content-Length setting would otherwise go out twice, and undici would refuse every request with a 500.
  // A value stored before values were checked on saving would make undici refuse every request.
  const headers = settings.headers.filter((header) => !GATEWAY_OWNED.has(header.key.toLowerCase()) && isHeaderValue(header.value));
  const { fixed, templates } = HeaderTemplates.split(headers, settings.pass_api_key_header === true);
  const queryAppend = parseQueryAppend(settings.append_query_string);
  return {
    disableApiKey: settings.disable_api_key === true,
    passApiKeyHeader: settings.pass_api_key_header === true && !headers.some((header) => header.key.toLowerCase() === 'x-api-key'),
    // An api_key in append_query_string replaces the client's, as the one parameter the backend gets (API Umbrella appends it last).
    passApiKeyQueryParam: settings.pass_api_key_query_param === true && queryAppend?.names.has('api_key') !== true,
    requireHttps: (settings.require_https ?? defaults.requireHttps) === true,
    httpsRequiredSince: inHttpsTransition(settings) ? transitionStart(settings.require_https_transition_start_at) : null,
    requiredRoles: settings.required_roles,
    rateLimitBucket: settings.rate_limit_bucket_name,
    ...limitsByCaller(settings, defaults.rateLimits),
    disableAnalytics: settings.disable_analytics === true,
    verifiedEmailSince: verifiedEmailSince(settings),
    headers: fixed,
    headerTemplates: templates,
    // A template's header replaces the client's even when it renders empty (or could not be parsed), as in API Umbrella.
    droppedHeaders: new Set([
      ...NOT_FORWARDED,
      ...headers.map((header) => header.key.toLowerCase()),
      ...(settings.http_basic_auth === null ? [] : ['authorization']),
    ]),
    responseHeaders: compileResponseHeaders(settings),
    queryAppend,
    authorization: settings.http_basic_auth === null ? null : `Basic ${Buffer.from(settings.http_basic_auth).toString('base64')}`,
    clientRestrictions: ClientRestrictions.compile(settings),
    errorResponses: compileErrorResponses(settings),
  };
}


/** The backend's limits for callers without and with a key, after API Umbrella's rate limit behaviors. */
function limitsByCaller(settings: ApiSettings, defaultRateLimits: readonly RateLimit[]): Pick<EffectiveSettings, 'anonymousLimits' | 'authenticatedLimits' | 'apiKeyLimitsOnly'> {
  const limits = settings.rate_limit_mode === 'unlimited' ? UNLIMITED : settings.rate_limit_mode === 'custom' ? settings.rate_limits : defaultRateLimits;
  const apiKeyLimitsOnly = settings.authenticated_rate_limit_behavior === 'api_key_only';
  return {
    anonymousLimits: settings.anonymous_rate_limit_behavior === 'ip_only' ? limitedBy(limits, 'ip') : limits,
    authenticatedLimits: apiKeyLimitsOnly ? limitedBy(limits, 'api_key') : limits,
    apiKeyLimitsOnly,
  };
}

/** The user's own limit mode wins over the backend's (already resolved against the defaults). */
export function limitsFor(settings: EffectiveSettings, user: KeyHolder | null): readonly RateLimit[] {
  if (user === null) return settings.anonymousLimits;
  const mode = user.settings.rate_limit_mode;
  if (mode === 'unlimited') return UNLIMITED;
  if (mode === 'custom') return settings.apiKeyLimitsOnly ? apiKeyLimitsOf(user.settings.rate_limits) : user.settings.rate_limits;
  return settings.authenticatedLimits;
}

/** A user's own limits by api_key, kept per limits list: filtered once, not per request. */
const apiKeyLimitsCache = new WeakMap<readonly RateLimit[], readonly RateLimit[]>();

function apiKeyLimitsOf(limits: readonly RateLimit[]): readonly RateLimit[] {
  let filtered = apiKeyLimitsCache.get(limits);
  if (filtered === undefined) apiKeyLimitsCache.set(limits, (filtered = limitedBy(limits, 'api_key')));
  return filtered;
}

/** The limits counted by `by`; an empty result is unlimited. */
function limitedBy(limits: readonly RateLimit[], by: RateLimit['limit_by']): readonly RateLimit[] {
  return limits.every((limit) => limit.limit_by === by) ? limits : Object.freeze(limits.filter((limit) => limit.limit_by === by));
}

/** Per error code, the child's entries over the parent's (a sub-setting that only rewords a message keeps the backend's status_code), as API Umbrella deep-merges. */
function mergedErrorData(parent: ApiSettings['error_data'], child: ApiSettings['error_data']): ApiSettings['error_data'] {
  const merged: Record<string, ErrorDataValues> = { ...parent };
  for (const [code, data] of Object.entries(child)) merged[code] = { ...parent[code], ...data };
  return merged;
}
