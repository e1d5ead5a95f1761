// The API backend form: what its fields hold (text, as typed), how a saved
// backend fills them, and how they become API Umbrella's JSON shape for
// parseApiBackend(). Validation itself stays in src/api-backends.
import { headerLines, type ApiBackendConfig, type ApiSettings, type SubSetting } from '../../api-backends/model.js';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { Config } from '../../config/schema.js';
import { backendDefaultsOf } from '../../gateway/settings.js';
import type { FieldErrors } from '../../lib/validation-errors.js';
import { joinLines, splitLines } from '../line-list.js';
import { rowsOf, textareaOf, textOf, treeOf, type FormTree } from '../../lib/nested-form.js';
import { BLANK_RATE_LIMIT_ROW, isBlankRow, rateLimitRowsInput, rowFromForm, rowFromRateLimit, type RateLimitRow } from '../rate-limit-rows.js';

export const ERROR_FORMATS = ['json', 'xml', 'csv', 'html'] as const;

export interface SettingsForm {
  disable_api_key: string;
  pass_api_key_header: string;
  pass_api_key_query_param: string;
  require_https: string;
  require_https_transition_start_at: string;
  required_roles: string;
  required_roles_override: boolean;
  append_query_string: string;
  headers: string;
  default_response_headers: string;
  override_response_headers: string;
  http_basic_auth: string;
  rate_limit_mode: string;
  rate_limits: RateLimitRow[];
  allowed_ips: string;
  allowed_referers: string;
  rate_limit_bucket_name: string;
  anonymous_rate_limit_behavior: string;
  authenticated_rate_limit_behavior: string;
  disable_analytics: string;
  api_key_verification_level: string;
  api_key_verification_transition_start_at: string;
  error_templates: Record<(typeof ERROR_FORMATS)[number], string>;
  error_data: string;
}

export interface SubSettingForm {
  id: string;
  http_method: string;
  regex: string;
  settings: SettingsForm;
}

export interface RewriteForm {
  id: string;
  matcher_type: string;
  http_method: string;
  frontend_matcher: string;
  backend_replacement: string;
}

/**
 * Each row (server, URL prefix, sub-setting, rewrite, rate limit) carries its
 * record's id in a hidden field, so that saving the form unchanged keeps
 * every id; a new row's is '' until saved. Header lines are matched instead
 * (backendInput).
 */
export interface ApiBackendForm {
  name: string;
  backend_protocol: string;
  balance_algorithm: string;
  frontend_host: string;
  backend_host: string;
  servers: { id: string; host: string; port: string }[];
  url_matches: { id: string; frontend_prefix: string; backend_prefix: string }[];
  settings: SettingsForm;
  sub_settings: SubSettingForm[];
  rewrites: RewriteForm[];
}

const tristate = (value: boolean | null): string => (value === null ? '' : String(value));

function blankSettings(): SettingsForm {
  return settingsFromConfig(null);
}

/** Blank rows for "Add …" buttons, by list name. */
export const BLANK_ROWS = {
  servers: () => ({ id: '', host: '', port: '' }),
  url_matches: () => ({ id: '', frontend_prefix: '', backend_prefix: '' }),
  rate_limits: () => ({ ...BLANK_RATE_LIMIT_ROW }),
  sub_settings: blankSubSetting,
  rewrites: (): RewriteForm => ({ id: '', matcher_type: 'route', http_method: 'any', frontend_matcher: '', backend_replacement: '' }),
} as const;

export function blankSubSetting(): SubSettingForm {
  return { id: '', http_method: 'any', regex: '', settings: blankSettings() };
}

/**
 * The labels of the empty ("Default") choice of the global settings' selects
 * whose default the config sets (default_api_backend_settings): what such a
 * backend gets, as the gateway resolves it. Sub-settings inherit instead.
 */
export interface DefaultChoiceLabels {
  readonly require_https: string;
  readonly rate_limit_mode: string;
}

export function defaultChoiceLabels(defaults: Config['default_api_backend_settings']): DefaultChoiceLabels {
  const resolved = backendDefaultsOf(defaults);
  return {
    require_https: resolved.requireHttps ? 'Default — HTTPS only' : 'Default — HTTP and HTTPS',
    rate_limit_mode: resolved.rateLimits.length === 0 ? 'Default — unlimited requests' : 'Default rate limits',
  };
}

/** A request through the form's first URL prefix and where it goes, as API Umbrella's form shows them; null until host and prefixes are filled in. */
export interface RequestExample {
  readonly incoming: string;
  readonly outgoing: string;
}

const EXAMPLE_PATH = 'example.json?param=value';

export function requestExample(form: ApiBackendForm, frontendScheme: 'http' | 'https'): RequestExample | null {
  const [match] = form.url_matches;
  const backendHost = form.backend_host || form.servers[0]?.host;
  if (match === undefined || form.frontend_host === '' || !backendHost || match.frontend_prefix === '' || match.backend_prefix === '') return null;
  const frontendHost = form.frontend_host === '*' ? 'any-host.example' : form.frontend_host.replace(/^\*\./, 'sub.');
  return {
    incoming: `${frontendScheme}://${frontendHost}${match.frontend_prefix}${EXAMPLE_PATH}`,
    outgoing: `${form.backend_protocol || 'http'}://${backendHost}${match.backend_prefix}${EXAMPLE_PATH}`,
  };
}

export function emptyBackendForm(): ApiBackendForm {
  return {
    name: '',
    backend_protocol: 'http',
    balance_algorithm: 'least_conn',
    frontend_host: '',
    backend_host: '',
    servers: [BLANK_ROWS.servers()],
    url_matches: [BLANK_ROWS.url_matches()],
    settings: blankSettings(),
    sub_settings: [],
    rewrites: [],
  };
}

export function formFromBackend(api: ApiBackendConfig): ApiBackendForm {
  return {
    name: api.name,
    backend_protocol: api.backend_protocol,
    balance_algorithm: api.balance_algorithm,
    frontend_host: api.frontend_host,
    backend_host: api.backend_host,
    servers: api.servers.map((server) => ({ id: server.id, host: server.host, port: String(server.port) })),
    url_matches: api.url_matches.map((match) => ({ ...match })),
    settings: settingsFromConfig(api.settings),
    sub_settings: api.sub_settings.map((sub: SubSetting) => ({ id: sub.id, http_method: sub.http_method, regex: sub.regex, settings: settingsFromConfig(sub.settings) })),
    rewrites: api.rewrites.map((rewrite) => ({ ...rewrite })),
  };
}

function settingsFromConfig(settings: ApiSettings | null): SettingsForm {
  const templates = settings?.error_templates ?? {};
  return {
    disable_api_key: tristate(settings?.disable_api_key ?? null),
    pass_api_key_header: tristate(settings?.pass_api_key_header ?? null),
    pass_api_key_query_param: tristate(settings?.pass_api_key_query_param ?? null),
    require_https: String(settings?.require_https ?? ''),
    require_https_transition_start_at: settings?.require_https_transition_start_at ?? '',
    required_roles: (settings?.required_roles ?? []).join(', '),
    required_roles_override: settings?.required_roles_override ?? false,
    append_query_string: settings?.append_query_string ?? '',
    headers: headerLines(settings?.headers),
    default_response_headers: headerLines(settings?.default_response_headers),
    override_response_headers: headerLines(settings?.override_response_headers),
    http_basic_auth: settings?.http_basic_auth ?? '',
    rate_limit_mode: settings?.rate_limit_mode ?? '',
    rate_limits: (settings?.rate_limits ?? []).map(rowFromRateLimit),
    allowed_ips: joinLines(settings?.allowed_ips ?? []),
    allowed_referers: joinLines(settings?.allowed_referers ?? []),
    rate_limit_bucket_name: settings?.rate_limit_bucket_name ?? '',
    anonymous_rate_limit_behavior: settings?.anonymous_rate_limit_behavior ?? '',
    authenticated_rate_limit_behavior: settings?.authenticated_rate_limit_behavior ?? '',
    disable_analytics: tristate(settings?.disable_analytics ?? null),
    api_key_verification_level: settings?.api_key_verification_level ?? '',
    api_key_verification_transition_start_at: settings?.api_key_verification_transition_start_at ?? '',
    error_templates: { json: templates.json ?? '', xml: templates.xml ?? '', csv: templates.csv ?? '', html: templates.html ?? '' },
    error_data: settings !== null && Object.keys(settings.error_data).length > 0 ? stringifyYaml(settings.error_data) : '',
  };
}

/** The submitted form, with rows the operator left entirely blank dropped. */
export function formFromSubmission(tree: FormTree): ApiBackendForm {
  return {
    name: textOf(tree, 'name').trim(),
    backend_protocol: textOf(tree, 'backend_protocol'),
    balance_algorithm: textOf(tree, 'balance_algorithm'),
    frontend_host: textOf(tree, 'frontend_host').trim(),
    backend_host: textOf(tree, 'backend_host').trim(),
    servers: rowsOf(tree, 'servers')
      .map((row) => ({ id: textOf(row, 'id'), host: textOf(row, 'host').trim(), port: textOf(row, 'port').trim() }))
      .filter((row) => row.host !== '' || row.port !== ''),
    url_matches: rowsOf(tree, 'url_matches')
      .map((row) => ({ id: textOf(row, 'id'), frontend_prefix: textOf(row, 'frontend_prefix').trim(), backend_prefix: textOf(row, 'backend_prefix').trim() }))
      .filter((row) => row.frontend_prefix !== '' || row.backend_prefix !== ''),
    settings: settingsFromTree(treeOf(tree, 'settings')),
    sub_settings: rowsOf(tree, 'sub_settings')
      .map((row) => ({ id: textOf(row, 'id'), http_method: textOf(row, 'http_method'), regex: textOf(row, 'regex'), settings: settingsFromTree(treeOf(row, 'settings')) }))
      .filter((row) => row.regex !== '' || !isBlankSettings(row.settings)),
    rewrites: rowsOf(tree, 'rewrites')
      .map((row) => ({
        id: textOf(row, 'id'),
        matcher_type: textOf(row, 'matcher_type'),
        http_method: textOf(row, 'http_method'),
        frontend_matcher: textOf(row, 'frontend_matcher').trim(),
        backend_replacement: textOf(row, 'backend_replacement').trim(),
      }))
      .filter((row) => row.frontend_matcher !== '' || row.backend_replacement !== ''),
  };
}

function settingsFromTree(tree: FormTree): SettingsForm {
  const text = (key: string) => textOf(tree, key);
  // Textareas: LF line endings whatever the browser sent (textareaOf).
  const lines = (key: string) => textareaOf(tree, key);
  const templates = treeOf(tree, 'error_templates');
  return {
    disable_api_key: text('disable_api_key'),
    pass_api_key_header: text('pass_api_key_header'),
    pass_api_key_query_param: text('pass_api_key_query_param'),
    require_https: text('require_https'),
    require_https_transition_start_at: text('require_https_transition_start_at').trim(),
    required_roles: text('required_roles'),
    required_roles_override: text('required_roles_override') !== '',
    append_query_string: text('append_query_string'),
    headers: lines('headers'),
    default_response_headers: lines('default_response_headers'),
    override_response_headers: lines('override_response_headers'),
    http_basic_auth: text('http_basic_auth'),
    rate_limit_mode: text('rate_limit_mode'),
    rate_limits: rowsOf(tree, 'rate_limits').map(rowFromForm).filter((row) => !isBlankRow(row)),
    allowed_ips: lines('allowed_ips'),
    allowed_referers: lines('allowed_referers'),
    rate_limit_bucket_name: text('rate_limit_bucket_name'),
    anonymous_rate_limit_behavior: text('anonymous_rate_limit_behavior'),
    authenticated_rate_limit_behavior: text('authenticated_rate_limit_behavior'),
    disable_analytics: text('disable_analytics'),
    api_key_verification_level: text('api_key_verification_level'),
    api_key_verification_transition_start_at: text('api_key_verification_transition_start_at').trim(),
    error_templates: { json: textareaOf(templates, 'json'), xml: textareaOf(templates, 'xml'), csv: textareaOf(templates, 'csv'), html: textareaOf(templates, 'html') },
    error_data: lines('error_data'),
  };
}

function isBlankSettings(settings: SettingsForm): boolean {
  return JSON.stringify(settings) === JSON.stringify(blankSettings());
}

/**
 * The JSON shape parseApiBackend() takes, plus the errors only the form can
 * have (error data that is not JSON), keyed like the API's field errors.
 * `saved`: the backend edited (null for a new one), whose headers go beside
 * the form's header text, as the API takes them, so that unchanged lines keep
 * their ids: a textarea has no row to hold one.
 */
export function backendInput(form: ApiBackendForm, saved: ApiBackendConfig | null): { input: Record<string, unknown>; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const savedSub = (id: string) => saved?.sub_settings.find((sub) => sub.id === id)?.settings ?? null;
  const input = {
    ...form,
    // A server without a port takes the protocol's (API Umbrella's form fills in 443 for https).
    servers: form.servers.map((server) => (server.port === '' && server.host !== '' ? { ...server, port: defaultPort(form.backend_protocol) } : server)),
    settings: settingsInput(form.settings, saved?.settings ?? null, 'settings', errors),
    sub_settings: form.sub_settings.map((sub, index) => ({ ...sub, settings: settingsInput(sub.settings, savedSub(sub.id), `sub_settings[${index}].settings`, errors) })),
  };
  return { input, errors };
}

function defaultPort(protocol: string): string {
  return protocol === 'https' ? '443' : '80';
}

function settingsInput(settings: SettingsForm, saved: ApiSettings | null, at: string, errors: FieldErrors): Record<string, unknown> {
  return {
    ...settings,
    ...headersBesideText(settings, saved),
    rate_limits: rateLimitRowsInput(settings.rate_limit_mode, settings.rate_limits, at, errors),
    allowed_ips: splitLines(settings.allowed_ips),
    allowed_referers: splitLines(settings.allowed_referers),
    error_templates: Object.fromEntries(Object.entries(settings.error_templates).filter(([, template]) => template.trim() !== '')),
    error_data: parseErrorData(settings.error_data, `${at}.error_data`, errors),
  };
}

const HEADER_FIELDS = ['headers', 'default_response_headers', 'override_response_headers'] as const;

/** Each header field's text as *_string, with the saved list of that field beside it. */
function headersBesideText(settings: SettingsForm, saved: ApiSettings | null): Record<string, unknown> {
  return Object.fromEntries(HEADER_FIELDS.flatMap((field) => [[`${field}_string`, settings[field]], [field, saved?.[field] ?? []]]));
}

/** YAML, as API Umbrella's form takes error data (so JSON too, which is YAML). */
function parseErrorData(text: string, field: string, errors: FieldErrors): unknown {
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = parseYaml(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed;
  } catch {
    // reported below
  }
  errors[field] = ['must be a mapping of error names to their data, in YAML or JSON, such as {"api_key_missing": {"signup_url": "https://example.com"}}'];
  return {};
}

const FIELD_LABELS: Record<string, string> = {
  name: 'Name',
  backend_protocol: 'Backend Protocol',
  balance_algorithm: 'Balance Algorithm',
  frontend_host: 'Frontend Host',
  backend_host: 'Backend Host',
  servers: 'Server',
  host: 'Host',
  port: 'Port',
  url_matches: 'URL Prefix',
  frontend_prefix: 'Frontend Prefix',
  backend_prefix: 'Backend Prefix',
  settings: 'Global Request Settings',
  sub_settings: 'Sub-URL Setting',
  http_method: 'HTTP Method',
  regex: 'Regex',
  rewrites: 'URL Rewrite',
  matcher_type: 'Matcher Type',
  frontend_matcher: 'Frontend Matcher',
  backend_replacement: 'Backend Replacement',
  disable_api_key: 'API Key Checks',
  pass_api_key_header: 'Pass API Key in Header',
  pass_api_key_query_param: 'Pass API Key in Query',
  require_https: 'HTTPS Requirements',
  require_https_transition_start_at: 'HTTPS Required From',
  api_key_verification_level: 'API Key Verification',
  api_key_verification_transition_start_at: 'Verification Required From',
  required_roles: 'Required Roles',
  append_query_string: 'Append Query String Parameters',
  headers: 'Set Request Headers line',
  default_response_headers: 'Default Response Headers line',
  override_response_headers: 'Override Response Headers line',
  key: 'name',
  value: 'value',
  http_basic_auth: 'HTTP Basic Authentication',
  rate_limit_mode: 'Rate Limit',
  rate_limits: 'Rate Limit',
  duration: 'Duration',
  duration_unit: 'Duration Unit',
  limit: 'Limit',
  limit_by: 'Limit By',
  allowed_ips: 'Allowed IP Addresses',
  anonymous_rate_limit_behavior: 'Anonymous Rate Limit Behavior',
  authenticated_rate_limit_behavior: 'Authenticated Rate Limit Behavior',
  error_templates: 'Error Template',
  json: 'JSON',
  xml: 'XML',
  csv: 'CSV',
  html: 'HTML',
  error_data: 'Error Data',
};

/** "sub_settings[0].settings.rate_limits[1].limit" → "Sub-URL Setting 1 › Rate Limit 2 › Limit". */
export function backendFieldLabel(field: string): string {
  const parts: string[] = [];
  const segments = field.split('.');
  segments.forEach((segment, position) => {
    const match = /^([a-z_]+)(?:\[(\d+)\])?$/.exec(segment);
    if (match === null) return parts.push(segment);
    const [, name, index] = match;
    // Inside a sub-setting, its "settings" is not a level of its own.
    if (name === 'settings' && position > 0) return;
    const label = FIELD_LABELS[name!] ?? name!;
    parts.push(index === undefined ? label : `${label} ${Number(index) + 1}`);
  });
  return parts.join(' › ');
}
