// The pending changes an admin may see and publish, as in API Umbrella: a
// change is theirs when every version of the backend it involves is within
// their reach for backend_publish — the draft of a new backend, the live copy
// of a deleted one, both of a modified one (or publishing could move another
// team's backend). Superusers have every change.
import type { AdminAccess } from '../admin-groups/admin-access.js';
import type { PendingChange, PendingChanges } from './pending-changes.js';
import type { Publisher } from './publisher.js';

export function pendingChangesFor(publisher: Publisher, access: AdminAccess): PendingChanges {
  const theirs = (changes: PendingChange[]) => changes.filter((change) => mayPublish(access, change));
  const changes = publisher.pendingChanges();
  return { new: theirs(changes.new), modified: theirs(changes.modified), deleted: theirs(changes.deleted), identical: theirs(changes.identical) };
}

/**
 * Whether the admin may publish every one of `ids`: each must be a backend
 * whose change they see (an identical one too: a page a moment old may name
 * one another admin has just published). A superuser may name any id.
 */
export function mayPublishAll(publisher: Publisher, access: AdminAccess, ids: readonly string[]): boolean {
  if (access.superuser) return true;
  const changes = pendingChangesFor(publisher, access);
  const theirs = new Set([...changes.new, ...changes.modified, ...changes.deleted, ...changes.identical].map((change) => change.id));
  return ids.every((id) => theirs.has(id));
}

function mayPublish(access: AdminAccess, change: PendingChange): boolean {
  return [change.active, change.pending].every((version) => version === null || access.allowsBackend(version, 'backend_publish'));
}
