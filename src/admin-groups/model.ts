// API scopes and admin groups, with API Umbrella's field names and
// permission ids so that its operators' scripts and habits carry over.

/** What a group may do within its scopes, as API Umbrella names it. */
export const PERMISSIONS = [
  { id: 'analytics', label: 'Analytics' },
  { id: 'user_view', label: 'API Users - View' },
  { id: 'user_manage', label: 'API Users - Manage' },
  { id: 'admin_view', label: 'Admin Accounts - View' },
  { id: 'admin_manage', label: 'Admin Accounts - Manage' },
  { id: 'backend_manage', label: 'API Backend Configuration - View & Manage' },
  { id: 'backend_publish', label: 'API Backend Configuration - Publish' },
] as const;

export type Permission = (typeof PERMISSIONS)[number]['id'];

export const PERMISSION_IDS: readonly Permission[] = PERMISSIONS.map((permission) => permission.id);

/** Each permission's name, as the web admin and the admin API show it. */
export const PERMISSION_LABELS: ReadonlyMap<Permission, string> = new Map(PERMISSIONS.map((permission) => [permission.id, permission.label]));

export function isPermission(value: unknown): value is Permission {
  return PERMISSION_IDS.includes(value as Permission);
}

/**
 * The view permission each manage permission comes with, as API Umbrella
 * requires of a group (and as the pages and lists already read them: whoever
 * manages API users or admins sees them).
 */
export const VIEW_OF_MANAGE = [
  { manage: 'user_manage', view: 'user_view' },
  { manage: 'admin_manage', view: 'admin_view' },
] as const satisfies readonly { manage: Permission; view: Permission }[];

/** The permission and those that include it: holding any of them is holding it. */
export function permissionsIncluding(permission: Permission): Permission[] {
  return [permission, ...VIEW_OF_MANAGE.filter((pair) => pair.view === permission).map((pair) => pair.manage)];
}

/** A host and a path prefix: the API backends and the requests an admin group's permissions apply to. */
export interface ApiScope {
  readonly id: string;
  readonly name: string;
  /** Lowercase; without a port it covers the host on every port. */
  readonly host: string;
  /** Starts with "/"; matched case-sensitively, as the gateway routes. */
  readonly path_prefix: string;
  readonly created_at: string;
  readonly updated_at: string;
}

/** How API Umbrella names a scope beside others: "Weather - api.example.com/weather/". */
export function scopeDisplayName(scope: Pick<ApiScope, 'name' | 'host' | 'path_prefix'>): string {
  return `${scope.name} - ${scope.host}${scope.path_prefix}`;
}

export interface ApiScopeInput {
  readonly name: string;
  readonly host: string;
  readonly path_prefix: string;
}

export interface AdminGroup {
  readonly id: string;
  readonly name: string;
  readonly api_scope_ids: readonly string[];
  readonly permission_ids: readonly Permission[];
  readonly created_at: string;
  readonly updated_at: string;
}

export interface AdminGroupInput {
  readonly name: string;
  readonly api_scope_ids: readonly string[];
  readonly permission_ids: readonly Permission[];
}
