// The ids of the records a backend embeds (servers, URL prefixes, sub-settings,
// rewrites, headers, rate limits), made and kept as record-ids.ts says, over
// every list of the backend.
import { distinctIds, withStoredId, type Identified } from '../lib/record-ids.js';
import type { ApiBackendConfig, ApiSettings } from './model.js';

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

/** Ids within a backend are unique (distinctIds), across all its lists. */
export function withUniqueIds<T extends ApiBackendConfig>(api: T): T {
  return mapEmbedded(api, distinctIds());
}

/**
 * A stored backend with an id on every embedded record: documents written
 * before records had ids (drafts and published versions) get ids derived from
 * the backend's id and the record's place (withStoredId), the same for a draft
 * and its published copy, so a script sees stable ids; and no published
 * version, which is history, is rewritten.
 */
export function withStoredIds<T extends ApiBackendConfig>(api: T, backendId: string): T {
  return mapEmbedded(api, (record, path) => withStoredId(record, `${backendId} ${path}`));
}
