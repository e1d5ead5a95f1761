// Saving a draft backend: parse the admin's input, check that the admin may
// make this change (admin groups), then store it in its place in the order.
// As in API Umbrella, two backends may share a frontend host and prefix
// (their requests go to the one first in the order); one backend may not
// list a prefix twice (validate.ts).
import type { AdminAccess } from '../admin-groups/admin-access.js';
import { hostnameOf } from '../gateway/request-url.js';
import { backendChangeRefusal, mayManage, type BackendRefusal } from '../admin-groups/backend-policy.js';
import type { Parsed } from '../lib/validation-errors.js';
import type { ApiBackend, ApiBackendConfig } from './model.js';
import type { ApiBackendRepository } from './repository.js';
import { parseApiBackend, parseSortOrder } from './validate.js';

/** A valid change the admin's groups do not allow. */
export interface SaveRefused {
  readonly ok: false;
  readonly refused: BackendRefusal;
}

/** What `frontend_host` gets when it names a host of admin.hosts, where the gateway serves no backend. */
export const ADMIN_HOST = "is a host of the web admin (admin.hosts), where no API backend is served";

/**
 * A new backend without `options.id`; null when there is no backend with
 * that id. The admin's access is judged after parsing (a backend's place is
 * known only once its input is valid). A `sort_order` in the input places
 * the backend (API Umbrella's); without one a new backend goes last and an
 * updated one keeps its place.
 */
export function saveApiBackend(
  repository: ApiBackendRepository,
  raw: unknown,
  options: { id?: string; by: string | null; access: AdminAccess; live: readonly ApiBackendConfig[]; adminHosts: readonly string[] },
): Parsed<ApiBackend> | SaveRefused | null {
  const parsed = onAdminHost(parseApiBackend(raw), options.adminHosts);
  const sortOrder = parseSortOrder(raw);
  if (!parsed.ok || !sortOrder.ok) return { ok: false, errors: { ...(parsed.ok ? {} : parsed.errors), ...(sortOrder.ok ? {} : sortOrder.errors) } };
  return repository.transaction(() => {
    const before = options.id === undefined ? null : repository.get(options.id);
    if (options.id !== undefined && before === null) return null;
    const drafts = repository.list();
    // The live backends' roles count too: one the live config still requires opens that API until the next publish.
    const refused = backendChangeRefusal(options.access, before, parsed.value, [...drafts, ...options.live]);
    if (refused !== null) return { ok: false, refused };
    const saved =
      options.id === undefined
        ? repository.create(parsed.value, options.by, { sortOrder: sortOrder.value })
        : repository.update(options.id, parsed.value, options.by, sortOrder.value);
    return saved === null ? null : { ok: true, value: saved };
  });
}

/** A backend saved on an admin host would never be served: refused as a field error rather than published to no effect. */
function onAdminHost(parsed: Parsed<ApiBackendConfig>, adminHosts: readonly string[]): Parsed<ApiBackendConfig> {
  if (!parsed.ok || !adminHosts.includes(hostnameOf(parsed.value.frontend_host))) return parsed;
  return { ok: false, errors: { frontend_host: [ADMIN_HOST] } };
}

export type MoveResult = 'moved' | 'not_found' | 'after_not_found' | 'not_theirs';

/**
 * API Umbrella's move_after: `afterId` null (or blank) puts the backend
 * first, otherwise right after that backend. The admin must be able to
 * manage both, as to update them. Like any draft change, it goes live when
 * the backends whose sort_order changed are published.
 */
export function moveApiBackend(repository: ApiBackendRepository, id: string, afterId: string | null, options: { by: string | null; access: AdminAccess }): MoveResult {
  return repository.transaction(() => {
    const backend = repository.get(id);
    if (backend === null) return 'not_found';
    if (!mayManage(options.access, backend)) return 'not_theirs';
    if (afterId === null) return repository.moveToBeginning(id, options.by) ? 'moved' : 'not_found';
    const after = repository.get(afterId);
    if (after === null) return 'after_not_found';
    if (!mayManage(options.access, after)) return 'not_theirs';
    return repository.moveAfter(id, afterId, options.by) ? 'moved' : 'not_found';
  });
}
