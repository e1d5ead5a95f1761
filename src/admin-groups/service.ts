// Saving and deleting API scopes and admin groups, the same way for the admin
// API and the web admin: parse the input, then let the store refuse what only
// it can tell (a host and prefix or a group name already taken, a scope in use).
import type { Parsed } from '../lib/validation-errors.js';
import type { AdminGroup, ApiScope } from './model.js';
import { ScopeInUseError, type AdminGroupRepository } from './repository.js';
import { parseAdminGroup, parseApiScope } from './validate.js';

/** A new scope without `id`; null when there is no scope with that id. */
export function saveApiScope(repository: AdminGroupRepository, raw: unknown, id?: string): Parsed<ApiScope> | null {
  const parsed = parseApiScope(raw);
  if (!parsed.ok) return parsed;
  return id === undefined ? repository.createScope(parsed.value) : repository.updateScope(id, parsed.value);
}

/** A new group without `id`; null when there is no group with that id. */
export function saveAdminGroup(repository: AdminGroupRepository, raw: unknown, id?: string): Parsed<AdminGroup> | null {
  const parsed = parseAdminGroup(raw, new Set(repository.listScopes().map((scope) => scope.id)));
  if (!parsed.ok) return parsed;
  return id === undefined ? repository.createGroup(parsed.value) : repository.updateGroup(id, parsed.value);
}

/** value: whether there was such a scope; a scope a group uses is refused with the reason under "base". */
export function deleteApiScope(repository: AdminGroupRepository, id: string): Parsed<boolean> {
  try {
    return { ok: true, value: repository.deleteScope(id) };
  } catch (error) {
    if (!(error instanceof ScopeInUseError)) throw error;
    return { ok: false, errors: { base: [error.message] } };
  }
}
