// Saving a draft backend: parse the admin's input, then check what only the
// whole set of drafts can tell (a frontend prefix taken on the same host).
import type { Parsed } from '../lib/validation-errors.js';
import type { ApiBackend, ApiBackendConfig } from './model.js';
import type { ApiBackendRepository } from './repository.js';
import { parseApiBackend } from './validate.js';

export function saveApiBackend(repository: ApiBackendRepository, raw: unknown, options: { id?: string; by: string | null }): Parsed<ApiBackend> | null {
  const parsed = parseApiBackend(raw);
  if (!parsed.ok) return parsed;
  return repository.transaction(() => {
    if (options.id !== undefined && repository.get(options.id) === null) return null;
    const conflicts = prefixConflicts(parsed.value, repository.list().filter((api) => api.id !== options.id));
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
