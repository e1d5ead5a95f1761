// The difference between the drafts and the live config, in API Umbrella's
// pending_changes shape. Pure: both sides come in as values.
import { embeddedRecords } from '../api-backends/embedded-ids.js';
import type { ApiBackend } from '../api-backends/model.js';
import { withTransitionStarts } from './transition-starts.js';

export type ChangeMode = 'new' | 'modified' | 'deleted' | 'identical';

export interface PendingChange {
  readonly mode: ChangeMode;
  readonly id: string;
  readonly name: string;
  readonly active: ApiBackend | null;
  readonly pending: ApiBackend | null;
}

export type PendingChanges = Record<ChangeMode, PendingChange[]>;

/**
 * A backend's bookkeeping, which says nothing about how requests are served.
 * sort_order is compared, as in API Umbrella: it decides which of two
 * backends on the same host and prefix gets the requests, so a move is a
 * change to publish.
 */
const BOOKKEEPING = new Set(['id', 'created_at', 'updated_at', 'created_by', 'updated_by']);
/** Embedded records' ids are left out too, as API Umbrella's diff leaves them: a record given a new id serves requests as before. */
const EMBEDDED_ID = new Set(['id']);
const NOTHING = new Set<string>();

/** `now` (ISO): the time a publish would give a transition without a start, so a draft compares as it would go live. */
export function pendingChanges(drafts: readonly ApiBackend[], published: readonly ApiBackend[], now: string): PendingChanges {
  const result: PendingChanges = { new: [], modified: [], deleted: [], identical: [] };
  const publishedById = new Map(published.map((api) => [api.id, api]));
  for (const draft of drafts) {
    const active = publishedById.get(draft.id) ?? null;
    const mode: ChangeMode = active === null ? 'new' : sameConfig(active, withTransitionStarts(draft, active, now)) ? 'identical' : 'modified';
    result[mode].push({ mode, id: draft.id, name: draft.name, active, pending: draft });
  }
  const draftIds = new Set(drafts.map((api) => api.id));
  for (const active of published) {
    if (!draftIds.has(active.id)) result.deleted.push({ mode: 'deleted', id: active.id, name: active.name, active, pending: null });
  }
  return result;
}

export function sameConfig(a: ApiBackend, b: ApiBackend): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * Backends are never changed in place (a draft saved or published is a new
 * object), so each one's canonical JSON is made once: every admin page
 * compares all drafts with the live config, 25 ms a side with 1,000 backends.
 */
const canonicalOf = new WeakMap<ApiBackend, string>();

/**
 * JSON with sorted keys, without the backend's bookkeeping fields and its
 * embedded records' ids: equal configs give equal strings. Only those: a
 * field of error_data may well be named "id".
 */
export function canonicalJson(api: ApiBackend): string {
  let json = canonicalOf.get(api);
  if (json === undefined) {
    json = sortedJson(api);
    canonicalOf.set(api, json);
  }
  return json;
}

function sortedJson(api: ApiBackend): string {
  const embedded = embeddedRecords(api);
  return JSON.stringify(api, (_key, value: unknown) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    // Each object reaches here as it is in `api`: only the copies made here are new.
    const ignored = value === api ? BOOKKEEPING : embedded.has(value) ? EMBEDDED_ID : NOTHING;
    return Object.fromEntries(Object.entries(value).filter(([key]) => !ignored.has(key)).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
  }, 2);
}
