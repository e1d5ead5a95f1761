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

export function isPermission(value: unknown): value is Permission {
  return PERMISSION_IDS.includes(value as Permission);
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
