// An admin who is not a superuser, in one admin group granting `permissions`
// within `scopes` (each scope created unless one has that host and prefix).
import type { AdminGroup, ApiScope, Permission } from '../../src/admin-groups/model.js';
import type { Admin } from '../../src/admins/repository.js';
import type { AppContext } from '../../src/context.js';

export const SCOPED_PASSWORD = 'correct horse battery staple';

export interface ScopedAdmin {
  readonly admin: Admin;
  /** Its admin API token (X-Admin-Auth-Token). */
  readonly authToken: string;
  readonly groupId: string;
}

export async function createScopedAdmin(
  context: AppContext,
  options: { email: string; scopes: readonly { host: string; path_prefix: string }[]; permissions: readonly Permission[] },
): Promise<ScopedAdmin> {
  const { adminGroups } = context;
  const scopeIds = options.scopes.map((scope) => {
    const existing = adminGroups.listScopes().find((known) => known.host === scope.host && known.path_prefix === scope.path_prefix);
    if (existing !== undefined) return existing.id;
    const created = adminGroups.createScope({ name: `${scope.host}${scope.path_prefix}`, ...scope });
    if (!created.ok) throw new Error(JSON.stringify(created.errors));
    return created.value.id;
  });
  const group = adminGroups.createGroup({ name: `group of ${options.email}`, api_scope_ids: scopeIds, permission_ids: options.permissions });
  if (!group.ok) throw new Error(JSON.stringify(group.errors));
  const { admin, authToken } = (await context.admins.create({ email: options.email, password: SCOPED_PASSWORD, superuser: false }))!;
  adminGroups.setGroupsOf(admin.id, [group.value.id]);
  return { admin, authToken, groupId: group.value.id };
}

export function createScope(context: AppContext, name: string, host: string, path_prefix: string): ApiScope {
  const created = context.adminGroups.createScope({ name, host, path_prefix });
  if (!created.ok) throw new Error(JSON.stringify(created.errors));
  return created.value;
}

export function createGroup(context: AppContext, name: string, scopes: readonly ApiScope[], permission_ids: readonly Permission[]): AdminGroup {
  const created = context.adminGroups.createGroup({ name, api_scope_ids: scopes.map((scope) => scope.id), permission_ids });
  if (!created.ok) throw new Error(JSON.stringify(created.errors));
  return created.value;
}

/** An admin (password SCOPED_PASSWORD) in the given groups; a superuser when asked. */
export async function createMember(context: AppContext, email: string, groupIds: readonly string[], superuser = false): Promise<Admin> {
  const { admin } = (await context.admins.create({ email, password: SCOPED_PASSWORD, superuser }))!;
  context.adminGroups.setGroupsOf(admin.id, groupIds);
  return admin;
}
