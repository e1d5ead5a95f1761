// Saving a draft backend: parse the admin's input, check that the admin may
// make this change (admin groups), then what only the whole set of drafts
// can tell (a frontend prefix taken on the same host).
import type { AdminAccess } from '../admin-groups/admin-access.js';
import { backendChangeRefusal, type BackendRefusal } from '../admin-groups/backend-policy.js';
import type { Parsed } from '../lib/validation-errors.js';
import type { ApiBackend, ApiBackendConfig } from './model.js';
import type { ApiBackendRepository } from './repository.js';
import { parseApiBackend } from './validate.js';

/** A valid change the admin's groups do not allow. */
export interface SaveRefused {
  readonly ok: false;
  readonly refused: BackendRefusal;
}

/**
 * A new backend without `options.id`; null when there is no backend with
 * that id. The admin's access is judged after parsing (a backend's place is
 * known only once its input is valid) and before the prefix check, so that
 * a prefix outside their scopes is refused as such rather than reported as
 * taken by another team's backend.
 */
export function saveApiBackend(
  repository: ApiBackendRepository,
  raw: unknown,
  options: { id?: string; by: string | null; access: AdminAccess; live: readonly ApiBackendConfig[] },
): Parsed<ApiBackend> | SaveRefused | null {
  const parsed = parseApiBackend(raw);
  if (!parsed.ok) return parsed;
  return repository.transaction(() => {
    const before = options.id === undefined ? null : repository.get(options.id);
    if (options.id !== undefined && before === null) return null;
    const drafts = repository.list();
    // The live backends' roles count too: one the live config still requires opens that API until the next publish.
    const refused = backendChangeRefusal(options.access, before, parsed.value, [...drafts, ...options.live]);
    if (refused !== null) return { ok: false, refused };
    const conflicts = prefixConflicts(parsed.value, drafts.filter((api) => api.id !== options.id));
    if (Object.keys(conflicts).length > 0) return { ok: false, errors: conflicts };
    const saved = options.id === undefined ? repository.create(parsed.value, options.by) : repository.update(options.id, parsed.value, options.by);
    return saved === null ? null : { ok: true, value: saved };
  });
}

function prefixConflicts(config: ApiBackendConfig, others: readonly ApiBackend[]): Record<string, string[]> {
  const taken = new Set(
    others.filter((api) => api.frontend_host === config.frontend_host).flatMap((api) => api.url_matches.map((match) => match.frontend_prefix)),
  );
  const errors: Record<string, string[]> = {};
  config.url_matches.forEach((match, index) => {
    if (taken.has(match.frontend_prefix)) errors[`url_matches[${index}].frontend_prefix`] = ['has already been taken'];
  });
  return errors;
}
