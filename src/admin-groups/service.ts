// Saving and deleting API scopes and admin groups, the same way for the admin
// API and the web admin: parse the input, judge it (manage-policy.ts), then
// let the store refuse what only it can tell (a host and prefix or a group
// name already taken, a scope in use). The judgement comes before the store,
// so that an admin learns nothing from an action refused them. (Group names
// are unique across the gateway, as in API Umbrella: a name another team's
// group has is refused as taken, which tells that it exists.)
import { ungrantableRefusal, type Judged, type ManagePolicy } from './manage-policy.js';
import type { AdminGroup, ApiScope } from './model.js';
import { ScopeInUseError, type AdminGroupRepository } from './repository.js';
import { parseAdminGroup, parseApiScope } from './validate.js';

/** A new scope without `id`; null when there is no scope with that id. Both it and its new place must be the admin's to manage, and the admin must hold there what the groups using it grant. */
export function saveApiScope(repository: AdminGroupRepository, policy: ManagePolicy, raw: unknown, id?: string): Judged<ApiScope> | null {
  const existing = id === undefined ? null : repository.getScope(id);
  if (id !== undefined && existing === null) return null;
  if (existing !== null && !policy.managesScope(existing)) return policy.refusal();
  const parsed = parseApiScope(raw);
  if (!parsed.ok) return parsed;
  if (!policy.managesScope(parsed.value)) return policy.refusal();
  const users = id === undefined ? [] : repository.listGroups().filter((group) => group.api_scope_ids.includes(id));
  const ungrantable = policy.ungrantableAt(parsed.value, users);
  if (ungrantable.length > 0) return ungrantableRefusal(ungrantable);
  return id === undefined ? repository.createScope(parsed.value) : repository.updateScope(id, parsed.value);
}

/** A new group without `id`; null when there is no group with that id. Before and after, its scopes must be the admin's to manage and its permissions theirs to grant. */
export function saveAdminGroup(repository: AdminGroupRepository, policy: ManagePolicy, raw: unknown, id?: string): Judged<AdminGroup> | null {
  const existing = id === undefined ? null : repository.getGroup(id);
  if (id !== undefined && existing === null) return null;
  if (existing !== null && !policy.managesGroup(existing)) return policy.refusal();
  const parsed = parseAdminGroup(raw, new Set(repository.listScopes().map((scope) => scope.id)));
  if (!parsed.ok) return parsed;
  if (!policy.managesScopesOf(parsed.value)) return policy.refusal();
  const ungrantable = policy.ungrantable(parsed.value);
  if (ungrantable.length > 0) return ungrantableRefusal(ungrantable);
  return id === undefined ? repository.createGroup(parsed.value) : repository.updateGroup(id, parsed.value);
}

/** value: whether there was such a scope; a scope a group uses is refused with the reason under "base". */
export function deleteApiScope(repository: AdminGroupRepository, policy: ManagePolicy, id: string): Judged<boolean> {
  const existing = repository.getScope(id);
  if (existing === null) return { ok: true, value: false };
  if (!policy.managesScope(existing)) return policy.refusal();
  try {
    return { ok: true, value: repository.deleteScope(id) };
  } catch (error) {
    if (!(error instanceof ScopeInUseError)) throw error;
    return { ok: false, errors: { base: [policy.scopeInUse(error)] } };
  }
}

/** value: whether there was such a group. */
export function deleteAdminGroup(repository: AdminGroupRepository, policy: ManagePolicy, id: string): Judged<boolean> {
  const existing = repository.getGroup(id);
  if (existing === null) return { ok: true, value: false };
  if (!policy.managesGroup(existing)) return policy.refusal();
  return { ok: true, value: repository.deleteGroup(id) };
}
