// The Publish page's diff of a backend's live and pending config. Every view
// of the page shows every pending change, and diffing 500 modified backends
// held the event loop the proxy shares for a second or more on each view; the
// drafts and the live config keep their objects until they change, so each
// pair is diffed once.
import type { ApiBackend } from '../api-backends/model.js';
import { configYaml } from '../publish/config-yaml.js';
import { lineDiff, type DiffLine } from './line-diff.js';

/** Stands for the missing draft of a deleted backend, which a new backend's missing live side is not. */
const DELETED = Symbol('deleted');

/** By the draft (or, for a deleted backend, the live one): the other side it was diffed against, and the diff. */
const diffs = new WeakMap<ApiBackend, { readonly other: ApiBackend | null | typeof DELETED; readonly diff: readonly DiffLine[] }>();

/** The live config against the pending one, as API Umbrella shows them: YAML without what is unset. Null: none (new, deleted). */
export function changeDiff(active: ApiBackend | null, pending: ApiBackend | null): readonly DiffLine[] {
  const key = (pending ?? active)!;
  const other = pending === null ? DELETED : active;
  const kept = diffs.get(key);
  if (kept !== undefined && kept.other === other) return kept.diff;
  const diff = lineDiff(configText(active), configText(pending));
  diffs.set(key, { other, diff });
  return diff;
}

function configText(api: ApiBackend | null): string {
  return api === null ? '' : configYaml(api);
}
