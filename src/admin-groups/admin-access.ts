// What one admin may do: everything for a superuser; otherwise each
// permission only within the API scopes of the groups that grant it.
// Built per request from the store, so a change to a group applies to the
// admin's next request.
import type { ApiScope, Permission } from './model.js';

/** One permission within one scope, from one of the admin's groups. */
export interface Grant {
  readonly permission: Permission;
  readonly scope: ApiScope;
}

/** Where a scope (or anything judged like one) applies. */
export type Place = Pick<ApiScope, 'host' | 'path_prefix'>;

/** What an API backend is judged by: where it answers. */
export interface BackendPlace {
  readonly frontend_host: string;
  readonly url_matches: readonly { readonly frontend_prefix: string }[];
}

export class AdminAccess {
  static readonly SUPERUSER = new AdminAccess(true, []);

  constructor(
    readonly superuser: boolean,
    private readonly grants: readonly Grant[],
  ) {}

  /** Whether the admin may use the permission (any of them) anywhere: a page or list then shows what it covers. */
  has(...permissions: Permission[]): boolean {
    return this.superuser || this.grants.some((grant) => permissions.includes(grant.permission));
  }

  /** The scopes the permission holds in; null for a superuser, who is not limited to scopes. */
  scopesWith(permission: Permission): readonly ApiScope[] | null {
    if (this.superuser) return null;
    return uniqueScopes(this.grants.filter((grant) => grant.permission === permission).map((grant) => grant.scope));
  }

  /**
   * As API Umbrella: a backend is within the admin's reach when every one of
   * its URL matches lies in a scope holding the permission (the same host,
   * the prefix starting with the scope's). A backend without URL matches is
   * nobody's but a superuser's.
   */
  allowsBackend(backend: BackendPlace, permission: Permission): boolean {
    if (this.superuser) return true;
    return backend.url_matches.length > 0 && backend.url_matches.every((match) => this.covers({ host: backend.frontend_host, path_prefix: match.frontend_prefix }, permission));
  }


  /** Whether the place lies within a scope holding one of the permissions (a superuser: anywhere). */
  covers(place: Place, ...permissions: Permission[]): boolean {
    return this.superuser || this.grants.some((grant) => permissions.includes(grant.permission) && placeWithin(place, grant.scope));
  }

  /** "host/prefix" of every scope the admin holds one of the permissions (or, without any, anything) in, for the messages that refuse an action. */
  areas(...permissions: Permission[]): string[] {
    const grants = permissions.length === 0 ? this.grants : this.grants.filter((grant) => permissions.includes(grant.permission));
    return [...new Set(grants.map((grant) => `${grant.scope.host}${grant.scope.path_prefix}`))].sort();
  }
}

/** The same host, case aside; a scope host without a port covers every port of it. */
export function hostInScope(host: string, scope: Pick<ApiScope, 'host'>): boolean {
  const lower = host.toLowerCase();
  if (lower === scope.host) return true;
  return !scope.host.includes(':') && lower.startsWith(`${scope.host}:`);
}

/** The outer scope's host (a port-less one covering every port), and a path prefix starting with the outer scope's. */
function placeWithin(place: Place, outer: Place): boolean {
  return hostInScope(place.host, outer) && place.path_prefix.startsWith(outer.path_prefix);
}

function uniqueScopes(scopes: readonly ApiScope[]): ApiScope[] {
  return [...new Map(scopes.map((scope) => [scope.id, scope])).values()];
}

/** API Umbrella's words for a refused action, naming where the admin may act instead. */
export function forbiddenMessage(access: AdminAccess, ...permissions: Permission[]): string {
  const areas = access.areas(...permissions);
  const where = areas.length === 0 ? 'You are not authorized for any APIs yet.' : `You are only authorized to perform actions for APIs in the following areas:\n\n${areas.map((area) => `- ${area}`).join('\n')}`;
  return `You are not authorized to perform this action. ${where}\n\nContact your Parasol administrator if you need access to new APIs.`;
}
