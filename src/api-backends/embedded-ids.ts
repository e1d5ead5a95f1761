// The ids of the records a backend embeds (servers, URL prefixes, sub-settings,
// rewrites, headers, rate limits): UUIDs, as API Umbrella gives them, kept as
// a client sends them so that its scripts can match rows across a PUT.
import { createHash, randomUUID } from 'node:crypto';
import type { ApiBackendConfig, ApiSettings, Identified } from './model.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** The id a client sent with a record, when it is a UUID; else a new one, as API Umbrella gives a record without one. */
export function sentIdOf(record: Record<string, unknown>): string {
  return isUuid(record.id) ? record.id : randomUUID();
}

/** A record and where it sits in its backend: "servers[0]", "sub_settings[1].settings.rate_limits[0]". */
type Visit = <R extends Identified>(record: R, path: string) => R;

/** The backend with each embedded record passed through `visit`, in document order. */
function mapEmbedded<T extends ApiBackendConfig>(api: T, visit: Visit): T {
  const list = <R extends Identified>(records: readonly R[], at: string) => records.map((record, index) => visit(record, `${at}[${index}]`));
  const settings = (of: ApiSettings, at: string): ApiSettings => ({
    ...of,
    headers: list(of.headers, `${at}.headers`),
    default_response_headers: list(of.default_response_headers, `${at}.default_response_headers`),
    override_response_headers: list(of.override_response_headers, `${at}.override_response_headers`),
    rate_limits: list(of.rate_limits, `${at}.rate_limits`),
  });
  return {
    ...api,
    servers: list(api.servers, 'servers'),
    url_matches: list(api.url_matches, 'url_matches'),
    settings: settings(api.settings, 'settings'),
    sub_settings: list(api.sub_settings, 'sub_settings').map((sub, index) => ({ ...sub, settings: settings(sub.settings, `sub_settings[${index}].settings`) })),
    rewrites: list(api.rewrites, 'rewrites'),
  };
}

/** Every record the backend embeds, to tell them from other objects (error_data's, say) that may hold an "id" of their own. */
export function embeddedRecords(api: ApiBackendConfig): ReadonlySet<object> {
  const records = new Set<object>();
  mapEmbedded(api, (record) => {
    records.add(record);
    return record;
  });
  return records;
}

/**
 * Ids within a backend are unique: a record sent with the id of one before
 * it (a row copied in a script) gets a new one, so that an id names one row.
 */
export function withUniqueIds<T extends ApiBackendConfig>(api: T): T {
  const seen = new Set<string>();
  return mapEmbedded(api, (record) => {
    const id = seen.has(record.id) ? randomUUID() : record.id;
    seen.add(id);
    return id === record.id ? record : { ...record, id };
  });
}

/**
 * A stored backend with an id on every embedded record. Documents written
 * before records had ids (drafts and published versions) get ids derived
 * from the backend's id and the record's place, rather than random ones:
 * the same on every read and in every process, for a draft and its published
 * copy alike, so a script sees stable ids; and nothing stored is rewritten,
 * as published versions are history. Saving the backend stores them.
 */
export function withStoredIds<T extends ApiBackendConfig>(api: T, backendId: string): T {
  return mapEmbedded(api, (record, path) => (isUuid(record.id) ? record : { ...record, id: nameBasedUuid(`${backendId} ${path}`) }));
}

/** Parasol's namespace for name-based (version 5, RFC 9562) UUIDs of embedded records. */
const NAMESPACE = Buffer.from('9b2f6a1e4c7d4e0a8f3b5d6c7e8f9a0b', 'hex');

function nameBasedUuid(name: string): string {
  const bytes = createHash('sha1').update(NAMESPACE).update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
