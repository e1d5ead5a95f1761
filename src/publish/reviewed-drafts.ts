// What an admin reviewed on the Publish page, carried by its form. A publish
// sends each selected backend's draft as it is when the button is pressed,
// so a draft another admin edited or deleted after the page was opened would
// go live unreviewed (a probe saw a reviewed "modified" change published as
// a deletion, taking a live API offline).
import { createHash } from 'node:crypto';
import type { ApiBackend } from '../api-backends/model.js';
import { canonicalJson } from './pending-changes.js';

/** A deleted draft's fingerprint: the page showed its deletion. */
const DELETED = 'deleted';
const fingerprints = new WeakMap<ApiBackend, string>();

/** Short, and equal for drafts that serve requests alike (bookkeeping such as updated_at left out, as the diff leaves it). */
export function draftFingerprint(draft: ApiBackend | null): string {
  if (draft === null) return DELETED;
  let fingerprint = fingerprints.get(draft);
  if (fingerprint === undefined) {
    fingerprint = createHash('sha256').update(canonicalJson(draft)).digest('base64url').slice(0, 22);
    fingerprints.set(draft, fingerprint);
  }
  return fingerprint;
}

/** How a draft differs from what was reviewed: edited, deleted, or (reviewed as deleted) made again. */
export type DraftChange = 'edited' | 'deleted' | 'restored';

/** The draft as it is now against its reviewed fingerprint; null when it is the one reviewed. */
export function changeSinceReview(draft: ApiBackend | null, reviewed: string): DraftChange | null {
  const now = draftFingerprint(draft);
  if (now === reviewed) return null;
  if (draft === null) return 'deleted';
  return reviewed === DELETED ? 'restored' : 'edited';
}
