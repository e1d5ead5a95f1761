// What an admin holding admin_manage may manage, as in API Umbrella: the API
// scopes lying within their admin_manage scopes, the admin groups whose
// every scope does, and the admins (not superusers) whose every group does.
// Each change is judged before and after, so nothing moves into or out of
// reach. Unlike API Umbrella, the groups they manage are only those granting
// what they hold themselves in each of the group's scopes: otherwise they
// could make, widen or join a group granting anything there, and so hold
// every permission in their scopes. What they manage they may read; so may
// admin_view holders, what lies within their admin_view scopes (read-only).
import type { Admin } from '../admins/repository.js';
import type { Parsed } from '../lib/validation-errors.js';
import { forbiddenMessage, type AdminAccess, type Place } from './admin-access.js';
import { ADMIN_READERS } from './admin-visibility.js';
import { permissionsIncluding, type AdminGroup, type ApiScope, type Permission } from './model.js';
import { scopeInUseMessage, type AdminGroupRepository, type ScopeInUseError } from './repository.js';

/** An action the admin may not take, and why: 403 FORBIDDEN. */
export interface Refusal {
  readonly ok: false;
  readonly refused: string;
}

/** What saving or deleting answers: done, invalid input (422), or refused (403). */
export type Judged<T> = Parsed<T> | Refusal;

export function isRefusal(result: { readonly ok: boolean }): result is Refusal {
  return !result.ok && 'refused' in result;
}

type GroupPlaces = Pick<AdminGroup, 'api_scope_ids'>;
type GroupGrants = Pick<AdminGroup, 'api_scope_ids' | 'permission_ids'>;

export class ManagePolicy {
  private scopesById: ReadonlyMap<string, ApiScope> | null = null;

  constructor(
    readonly access: AdminAccess,
    private readonly repository: AdminGroupRepository,
  ) {}

  get superuser(): boolean {
    return this.access.superuser;
  }

  /** API Umbrella's refusal, naming the admin's admin_manage scopes. */
  refusal(): Refusal {
    return { ok: false, refused: forbiddenMessage(this.access, 'admin_manage') };
  }

  managesScope(place: Place): boolean {
    return this.access.covers(place, 'admin_manage');
  }

  /**
   * Whether the admin may read a scope (list it, open it): it lies within one
   * of their admin_manage or admin_view scopes, as API Umbrella's
   * api_scope_policy lets admin_view show the scopes inside the viewer's.
   */
  readsScope(place: Place): boolean {
    return this.access.covers(place, ...ADMIN_READERS);
  }

  /**
   * Whether the admin may read a group (list it, open it, see its admins):
   * they manage it, or every one of its scopes (it has at least one) lies
   * within their admin_view scopes, the rule by which Admin Accounts names
   * groups (src/admin-groups/admin-visibility.ts).
   */
  readsGroup(group: GroupGrants): boolean {
    if (this.managesGroup(group)) return true;
    const scopes = this.placesOf(group);
    return scopes.length > 0 && scopes.length === group.api_scope_ids.length && scopes.every((scope) => this.access.covers(scope, 'admin_view'));
  }

  /** API Umbrella's refusal of a scope or group the admin may not read, naming where they may. */
  readRefusal(): Refusal {
    return { ok: false, refused: forbiddenMessage(this.access, ...ADMIN_READERS) };
  }

  /**
   * A group is the admin's to manage (to see, change, delete, and put admins
   * in) when every one of its scopes (it has at least one) lies within their
   * admin_manage scopes and they hold each of its permissions there: putting
   * an admin in a group grants what it grants.
   */
  managesGroup(group: GroupGrants): boolean {
    return this.managesScopesOf(group) && this.ungrantable(group).length === 0;
  }

  /** Every scope of the group lies within the admin's admin_manage scopes; unknown scope ids never do. */
  managesScopesOf(group: GroupPlaces): boolean {
    if (this.superuser) return true;
    const scopes = this.placesOf(group);
    return scopes.length > 0 && scopes.length === group.api_scope_ids.length && scopes.every((scope) => this.managesScope(scope));
  }

  /** The group's permissions the admin does not hold in each of its scopes (none for a superuser). */
  ungrantable(group: GroupGrants): Permission[] {
    return [...new Set(this.placesOf(group).flatMap((scope) => this.ungrantableAt(scope, [group])))];
  }

  /**
   * The permissions of `groups` the admin does not hold at `place` (none for a
   * superuser): moving a scope there must not widen what its groups grant. A
   * view permission counts as held where its manage permission is, which
   * shows the same (a group granting user_manage must grant user_view too).
   */
  ungrantableAt(place: Place, groups: readonly Pick<AdminGroup, 'permission_ids'>[]): Permission[] {
    if (this.superuser) return [];
    const permissions = new Set(groups.flatMap((group) => group.permission_ids));
    return [...permissions].filter((permission) => !this.access.covers(place, ...permissionsIncluding(permission)));
  }

  /** A superuser manages everyone; others manage admins who are not superusers and are in groups (one at least) they manage. */
  managesAdmin(admin: Pick<Admin, 'superuser'>, groupIds: readonly string[]): boolean {
    if (this.superuser) return true;
    return !admin.superuser && groupIds.length > 0 && groupIds.every((id) => this.managesGroupId(id));
  }

  /** The groups the admin may put admins in (every group for a superuser). */
  manageableGroups(): AdminGroup[] {
    return this.repository.listGroups().filter((group) => this.managesGroup(group));
  }

  /** Why a scope in use cannot go, naming only the groups the admin manages (another team's group names are its business). */
  scopeInUse(error: ScopeInUseError): string {
    if (this.superuser) return error.message;
    const named = new Set(this.manageableGroups().map((group) => group.name));
    const shown = error.groupNames.filter((name) => named.has(name));
    return scopeInUseMessage(shown, error.groupNames.length - shown.length);
  }

  private managesGroupId(id: string): boolean {
    const group = this.repository.getGroup(id);
    return group !== null && this.managesGroup(group);
  }

  private placesOf(group: GroupPlaces): ApiScope[] {
    this.scopesById ??= new Map(this.repository.listScopes().map((scope) => [scope.id, scope]));
    return group.api_scope_ids.flatMap((id) => this.scopesById!.get(id) ?? []);
  }
}

/** The refusal of a group granting what its maker does not hold. */
export function ungrantableRefusal(permissions: readonly Permission[]): Refusal {
  const named = permissions.map((permission) => `"${permission}"`).join(', ');
  return {
    ok: false,
    refused: `You are not authorized to perform this action. A group you manage can grant only the permissions you hold in each of its API scopes yourself, not ${named}.`,
  };
}
