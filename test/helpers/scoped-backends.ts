// Two teams' API backends on one host, and an admin of the "foo" team, for
// tests of what an admin who is not a superuser may do with backends.
import { randomUUID } from 'node:crypto';
import type { Permission } from '../../src/admin-groups/model.js';
import { EMPTY_SETTINGS, type ApiBackend, type ApiBackendConfig } from '../../src/api-backends/model.js';
import type { AppContext } from '../../src/context.js';
import { createScopedAdmin, type ScopedAdmin } from './scoped-admin.js';

export const HOST = 'api.example.com';
/** The foo team's one API scope, as forbiddenMessage and the form name it. */
export const FOO_AREA = `${HOST}/foo`;
/** A role the bar team's backend requires. */
export const BAR_ROLE = 'bar-reader';

export function backendConfig(name: string, prefixes: readonly string[], roles: readonly string[] = [], frontend_host = HOST): ApiBackendConfig {
  return {
    name,
    frontend_host,
    backend_host: 'backend.internal',
    backend_protocol: 'http',
    balance_algorithm: 'least_conn',
    servers: [{ id: randomUUID(), host: '10.0.0.1', port: 80 }],
    url_matches: prefixes.map((frontend_prefix) => ({ id: randomUUID(), frontend_prefix, backend_prefix: '/' })),
    settings: { ...EMPTY_SETTINGS, required_roles: roles },
    sub_settings: [],
    rewrites: [],
  };
}

/** A draft made straight in the store, as a superuser could have. */
export function draftBackend(context: AppContext, name: string, prefixes: readonly string[], roles: readonly string[] = [], frontendHost = HOST): ApiBackend {
  return context.backends.create(backendConfig(name, prefixes, roles, frontendHost), 'root@example.com');
}

export interface TwoTeams {
  /** Within the foo team's scope. */
  readonly foo: ApiBackend;
  /** The bar team's, requiring BAR_ROLE. */
  readonly bar: ApiBackend;
  /** One URL match in the foo scope, one outside it: out of the foo team's reach. */
  readonly half: ApiBackend;
  /** The foo prefix on another host. */
  readonly otherHost: ApiBackend;
  readonly fooAdmin: ScopedAdmin;
}

export async function seedTwoTeams(context: AppContext, permissions: readonly Permission[] = ['backend_manage', 'backend_publish']): Promise<TwoTeams> {
  return {
    foo: draftBackend(context, 'Foo API', ['/foo/']),
    bar: draftBackend(context, 'Bar API', ['/bar/'], [BAR_ROLE]),
    half: draftBackend(context, 'Half API', ['/foo/half/', '/bar/half/']),
    otherHost: draftBackend(context, 'Other Host API', ['/foo/'], [], 'other.example.com'),
    fooAdmin: await createScopedAdmin(context, { email: 'foo-team@example.com', scopes: [{ host: HOST, path_prefix: '/foo' }], permissions }),
  };
}

export interface SeededChanges {
  /** Deleted, live in the foo scope. */
  readonly gone: ApiBackend;
  /** Live in the foo scope, its draft moved out by a superuser. */
  readonly moved: ApiBackend;
  /** New, in the foo scope. */
  readonly fresh: ApiBackend;
}

/**
 * Publishes Foo, Bar, "Foo gone" and "Foo moved", then changes drafts: Foo
 * modified, "Foo moved" moved to /bar/, Bar and "Foo gone" deleted, "Foo
 * fresh" added (Half and Other Host stay new).
 */
export function seedPendingChanges(context: AppContext, teams: TwoTeams): SeededChanges {
  const { publisher, backends } = context;
  const gone = draftBackend(context, 'Foo gone', ['/foo/gone/']);
  const moved = draftBackend(context, 'Foo moved', ['/foo/moved/']);
  publisher.publish([teams.foo.id, teams.bar.id, gone.id, moved.id], 'root@example.com');
  backends.update(teams.foo.id, { ...backendConfig('Foo API', ['/foo/']), backend_host: 'new.internal' }, 'root@example.com');
  backends.update(moved.id, backendConfig('Foo moved', ['/bar/moved/']), 'root@example.com');
  backends.delete(teams.bar.id);
  backends.delete(gone.id);
  return { gone, moved, fresh: draftBackend(context, 'Foo fresh', ['/foo/fresh/']) };
}
