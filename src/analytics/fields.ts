// The logged fields as the admin sees them: which can be filtered, sorted and
// exported, whether they compare as numbers, and how long a stored string may be.
import type { AnalyticsEntry } from './log-entry.js';

/** A field of the stored entry. */
export type EntryField = keyof AnalyticsEntry;
/** Where the client IP is, by analytics_ip_locations (null: placed nowhere). */
export type LocationField = 'request_ip_country' | 'request_ip_region' | 'request_ip_city';
export type FieldName = EntryField | LocationField;
export type FieldKind = 'string' | 'number';

/** An entry as the queries read it: its fields and its IP's location. */
export type LoggedRow = AnalyticsEntry & Readonly<Record<LocationField, string | null>>;

/**
 * The strings of who called and how, and the type of answer they got:
 * request after request from one client they are all the same, so the
 * writer stores them once per client (in analytics_contexts, see
 * request-contexts.ts). A batch holds them first, in this order
 * (entry-batch.ts).
 */
export const CONTEXT_FIELDS = [
  'request_method',
  'request_scheme',
  'request_ip',
  'request_user_agent',
  'api_backend_id',
  'user_id',
  'user_email',
  'api_key_preview',
  'request_origin',
  'response_content_type',
] as const satisfies readonly EntryField[];

export interface FieldInfo {
  readonly name: FieldName;
  readonly label: string;
  readonly kind: FieldKind;
  /** The field in SQL over analytics_logs: its column, or the IP's location by a lookup of the IP. */
  readonly sql: string;
  /**
   * For a field of the client's context (CONTEXT_FIELDS, and the IP's
   * location): the field in SQL over analytics_contexts. A filter on it picks
   * contexts, once per query, instead of looking up every row's context.
   */
  readonly contextSql: string | null;
}

const CONTEXT = new Set<FieldName>(CONTEXT_FIELDS);

const field = (name: EntryField, label: string, kind: FieldKind = 'string'): FieldInfo => ({ name, label, kind, sql: name, contextSql: CONTEXT.has(name) ? name : null });

const ipLocation = (column: string, table: string) =>
  `(SELECT ${column} FROM analytics_ip_locations WHERE analytics_ip_locations.request_ip = ${table}.request_ip)`;

// Every query reads analytics_logs under its own name (never an alias), which this lookup relies on.
const located = (name: LocationField, column: string, label: string): FieldInfo => ({
  name,
  label,
  kind: 'string',
  sql: ipLocation(column, 'analytics_logs'),
  contextSql: ipLocation(column, 'analytics_contexts'),
});

/** In the order of the table, the CSV and the JSON. */
export const FIELDS: readonly FieldInfo[] = [
  field('request_at', 'Time', 'number'),
  field('request_id', 'Request ID'),
  field('request_method', 'Method'),
  field('request_scheme', 'Scheme'),
  field('request_host', 'Host'),
  field('request_path', 'Path'),
  field('request_url_query', 'Query'),
  field('request_ip', 'IP'),
  located('request_ip_country', 'country', 'Country'),
  located('request_ip_region', 'region', 'Region'),
  located('request_ip_city', 'city', 'City'),
  field('request_user_agent', 'User Agent'),
  field('request_referer', 'Referer'),
  field('request_origin', 'Origin'),
  field('request_size', 'Request Size', 'number'),
  field('response_status', 'Status', 'number'),
  field('response_size', 'Response Size', 'number'),
  field('response_content_type', 'Content Type'),
  field('response_time', 'Response Time (ms)', 'number'),
  field('upstream_time', 'Upstream Time (ms)', 'number'),
  field('gateway_overhead', 'Gateway Overhead (ms)', 'number'),
  field('api_backend_id', 'API Backend ID'),
  field('user_id', 'User ID'),
  field('user_email', 'User Email'),
  field('api_key_preview', 'API Key'),
  field('gatekeeper_denied_code', 'Denied Code'),
  field('response_custom1', 'Custom Dimension 1'),
  field('response_custom2', 'Custom Dimension 2'),
  field('response_custom3', 'Custom Dimension 3'),
];

const BY_NAME = new Map<string, FieldInfo>(FIELDS.map((info) => [info.name, info]));

/** The field named by untrusted input, or undefined. Only these names ever reach SQL. */
export function fieldNamed(name: unknown): FieldInfo | undefined {
  return typeof name === 'string' ? BY_NAME.get(name) : undefined;
}

/** Longest stored value of the free-form strings a client controls; longer ones are cut. */
export const FIELD_CAPS: ReadonlyArray<readonly [EntryField, number]> = [
  ['request_host', 255],
  ['request_path', 4096],
  ['request_url_query', 4096],
  ['request_user_agent', 1024],
  ['request_referer', 2048],
  ['request_origin', 1024],
  ['response_content_type', 255],
  ['user_email', 255],
  // API Umbrella's.
  ['response_custom1', 400],
  ['response_custom2', 400],
  ['response_custom3', 400],
];
