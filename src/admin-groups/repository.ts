// API scopes, admin groups and which admins belong to which group, and from
// them what a given admin may do (accessOf).
import { randomUUID } from 'node:crypto';
import type { Admin } from '../admins/repository.js';
import type { FieldErrors, Parsed } from '../lib/validation-errors.js';
import type { Db } from '../store/db.js';
import { ifUnchanged } from '../store/if-unchanged.js';
import { AdminAccess, type Grant } from './admin-access.js';
import { isPermission, type AdminGroup, type AdminGroupInput, type ApiScope, type ApiScopeInput } from './model.js';

interface GroupRow {
  id: string;
  name: string;
  permission_ids: string;
  created_at: string;
  updated_at: string;
}

/** Why a scope could not be deleted: the groups that use it. */
export class ScopeInUseError extends Error {
  constructor(readonly groupNames: readonly string[]) {
    super(scopeInUseMessage(groupNames, 0));
  }
}

/** Why a scope in use cannot go, naming the groups the reader may know of and counting the others. */
export function scopeInUseMessage(named: readonly string[], others: number): string {
  const plural = (count: number) => (count === 1 ? 'group' : 'groups');
  const users = [
    ...(named.length === 0 ? [] : [`the admin ${plural(named.length)} ${named.map((name) => `"${name}"`).join(', ')}`]),
    ...(others === 0 ? [] : [`${others} admin ${plural(others)} you do not manage`]),
  ];
  const total = named.length + others;
  return `This API scope is used by ${users.join(' and ')}; take it out of ${total === 1 ? 'that group' : 'those groups'} first.`;
}

const TAKEN = 'has already been taken';

/** An admin as their groups list them. */
export interface GroupMember {
  readonly id: string;
  readonly email: string;
  readonly current_sign_in_at: string | null;
  readonly last_sign_in_at: string | null;
}

export class AdminGroupRepository {
  constructor(private readonly db: Db) {}

  listScopes(): ApiScope[] {
    return this.db.prepare('SELECT * FROM api_scopes ORDER BY host, path_prefix').all() as ApiScope[];
  }

  getScope(id: string): ApiScope | null {
    return (this.db.prepare('SELECT * FROM api_scopes WHERE id = ?').get(id) as ApiScope | undefined) ?? null;
  }

  /** A new scope, or 422 errors when another has the same host and prefix. */
  createScope(input: ApiScopeInput): Parsed<ApiScope> {
    return this.db.transaction((): Parsed<ApiScope> => {
      if (this.scopeAt(input, null)) return { ok: false, errors: { path_prefix: [TAKEN] } };
      const id = randomUUID();
      const now = new Date().toISOString();
      this.db.prepare('INSERT INTO api_scopes (id, name, host, path_prefix, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(id, input.name, input.host, input.path_prefix, now, now);
      return { ok: true, value: this.getScope(id)! };
    }).immediate();
  }

  /** null when there is no such scope. */
  updateScope(id: string, input: ApiScopeInput): Parsed<ApiScope> | null {
    return this.db.transaction((): Parsed<ApiScope> | null => {
      if (this.getScope(id) === null) return null;
      if (this.scopeAt(input, id)) return { ok: false, errors: { path_prefix: [TAKEN] } };
      this.db.prepare('UPDATE api_scopes SET name = ?, host = ?, path_prefix = ?, updated_at = ? WHERE id = ?').run(input.name, input.host, input.path_prefix, new Date().toISOString(), id);
      return { ok: true, value: this.getScope(id)! };
    }).immediate();
  }

  /** False when there is no such scope; throws ScopeInUseError while a group uses it. */
  deleteScope(id: string): boolean {
    return this.db.transaction(() => {
      const users = this.db
        .prepare('SELECT g.name FROM admin_groups g JOIN admin_group_scopes s ON s.admin_group_id = g.id WHERE s.api_scope_id = ? ORDER BY g.name')
        .pluck()
        .all(id) as string[];
      if (users.length > 0) throw new ScopeInUseError(users);
      return this.db.prepare('DELETE FROM api_scopes WHERE id = ?').run(id).changes > 0;
    }).immediate();
  }

  listGroups(): AdminGroup[] {
    const rows = this.db.prepare('SELECT * FROM admin_groups ORDER BY name').all() as GroupRow[];
    return rows.map((row) => this.toGroup(row));
  }

  getGroup(id: string): AdminGroup | null {
    const row = this.db.prepare('SELECT * FROM admin_groups WHERE id = ?').get(id) as GroupRow | undefined;
    return row === undefined ? null : this.toGroup(row);
  }

  createGroup(input: AdminGroupInput): Parsed<AdminGroup> {
    return this.db.transaction((): Parsed<AdminGroup> => {
      const taken = this.nameTaken(input.name, null);
      if (taken !== null) return taken;
      const id = randomUUID();
      const now = new Date().toISOString();
      this.db.prepare('INSERT INTO admin_groups (id, name, permission_ids, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(id, input.name, JSON.stringify(input.permission_ids), now, now);
      this.setScopes(id, input.api_scope_ids);
      return { ok: true, value: this.getGroup(id)! };
    }).immediate();
  }

  updateGroup(id: string, input: AdminGroupInput): Parsed<AdminGroup> | null {
    return this.db.transaction((): Parsed<AdminGroup> | null => {
      if (this.getGroup(id) === null) return null;
      const taken = this.nameTaken(input.name, id);
      if (taken !== null) return taken;
      this.db.prepare('UPDATE admin_groups SET name = ?, permission_ids = ?, updated_at = ? WHERE id = ?').run(input.name, JSON.stringify(input.permission_ids), new Date().toISOString(), id);
      this.setScopes(id, input.api_scope_ids);
      return { ok: true, value: this.getGroup(id)! };
    }).immediate();
  }

  /** Runs `write` (a save of the scope: service.ts) only while the scope is as an edit form was filled (if-unchanged.ts). */
  ifScopeUnchanged<T>(id: string, updatedAt: string, write: () => T): T | 'conflict' {
    return ifUnchanged(this.db, 'api_scopes', id, updatedAt, write);
  }

  /** The same for an admin group, whose scopes change only with it (updateGroup). */
  ifGroupUnchanged<T>(id: string, updatedAt: string, write: () => T): T | 'conflict' {
    return ifUnchanged(this.db, 'admin_groups', id, updatedAt, write);
  }

  /** Its admins stay, without what the group granted them. */
  deleteGroup(id: string): boolean {
    return this.db.prepare('DELETE FROM admin_groups WHERE id = ?').run(id).changes > 0;
  }

  groupIdsOf(adminId: string): string[] {
    return this.db.prepare('SELECT admin_group_id FROM admin_group_members WHERE admin_id = ?').pluck().all(adminId) as string[];
  }

  /** The emails of a group's admins, for its page. */
  memberEmails(groupId: string): string[] {
    return (this.membersOf([groupId]).get(groupId) ?? []).map((member) => member.email);
  }

  /** The admins of each of the groups, by email, in one query however many groups (a page of a list); a group without any has no entry. */
  membersOf(groupIds: readonly string[]): Map<string, GroupMember[]> {
    const rows = this.db
      .prepare(
        `SELECT m.admin_group_id, a.id, a.email, a.current_sign_in_at, a.last_sign_in_at
         FROM admin_group_members m JOIN admins a ON a.id = m.admin_id
         WHERE m.admin_group_id IN (SELECT value FROM json_each(?))
         ORDER BY a.email`,
      )
      .all(JSON.stringify(groupIds)) as (GroupMember & { admin_group_id: string })[];
    const members = new Map<string, GroupMember[]>();
    for (const { admin_group_id: groupId, ...member } of rows) {
      const listed = members.get(groupId) ?? [];
      listed.push(member);
      members.set(groupId, listed);
    }
    return members;
  }

  /**
   * Replaces the admin's groups. A group deleted since the caller checked it
   * (while a password was being hashed, say) is left out: the admin gets
   * less, never an error halfway.
   */
  setGroupsOf(adminId: string, groupIds: readonly string[]): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM admin_group_members WHERE admin_id = ?').run(adminId);
      const insert = this.db.prepare('INSERT INTO admin_group_members (admin_group_id, admin_id) SELECT id, ? FROM admin_groups WHERE id = ?');
      for (const groupId of new Set(groupIds)) insert.run(adminId, groupId);
    }).immediate();
  }

  /** The emails of enabled admins who are neither superusers nor in any group: they can only sign in. */
  emailsOfAdminsWithoutGroups(): string[] {
    return this.db
      .prepare('SELECT email FROM admins a WHERE superuser = 0 AND enabled = 1 AND NOT EXISTS (SELECT 1 FROM admin_group_members m WHERE m.admin_id = a.id) ORDER BY email')
      .pluck()
      .all() as string[];
  }

  /** What the admin may do, read afresh: a group changed a moment ago applies at once. */
  accessOf(admin: Pick<Admin, 'id' | 'superuser'>): AdminAccess {
    if (admin.superuser) return AdminAccess.SUPERUSER;
    const rows = this.db
      .prepare(
        `SELECT g.permission_ids, s.id, s.name, s.host, s.path_prefix, s.created_at, s.updated_at
         FROM admin_group_members m
         JOIN admin_groups g ON g.id = m.admin_group_id
         JOIN admin_group_scopes gs ON gs.admin_group_id = g.id
         JOIN api_scopes s ON s.id = gs.api_scope_id
         WHERE m.admin_id = ?`,
      )
      .all(admin.id) as (ApiScope & { permission_ids: string })[];
    const grants: Grant[] = rows.flatMap(({ permission_ids, ...scope }) => permissionsOf(permission_ids).map((permission) => ({ permission, scope })));
    return new AdminAccess(false, grants);
  }

  private scopeAt(input: ApiScopeInput, exceptId: string | null): boolean {
    return this.db.prepare('SELECT 1 FROM api_scopes WHERE host = ? AND path_prefix = ? AND id IS NOT ?').get(input.host, input.path_prefix, exceptId) !== undefined;
  }

  private nameTaken(name: string, exceptId: string | null): { ok: false; errors: FieldErrors } | null {
    const holder = this.db.prepare('SELECT 1 FROM admin_groups WHERE name = ? AND id IS NOT ?').get(name, exceptId);
    return holder === undefined ? null : { ok: false, errors: { name: [TAKEN] } };
  }

  private setScopes(groupId: string, scopeIds: readonly string[]): void {
    this.db.prepare('DELETE FROM admin_group_scopes WHERE admin_group_id = ?').run(groupId);
    const insert = this.db.prepare('INSERT INTO admin_group_scopes (admin_group_id, api_scope_id) VALUES (?, ?)');
    for (const scopeId of scopeIds) insert.run(groupId, scopeId);
  }

  private toGroup(row: GroupRow): AdminGroup {
    const scopeIds = this.db.prepare('SELECT api_scope_id FROM admin_group_scopes WHERE admin_group_id = ? ORDER BY api_scope_id').pluck().all(row.id) as string[];
    return { id: row.id, name: row.name, api_scope_ids: scopeIds, permission_ids: permissionsOf(row.permission_ids), created_at: row.created_at, updated_at: row.updated_at };
  }
}

/** Ids the store holds that this version no longer knows are dropped, never granted. */
function permissionsOf(json: string): AdminGroup['permission_ids'] {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? parsed.filter(isPermission) : [];
}
