import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminAccess, forbiddenMessage, hostInScope } from '../../src/admin-groups/admin-access.js';
import { ScopeInUseError } from '../../src/admin-groups/repository.js';
import { parseAdminGroup, parseApiScope } from '../../src/admin-groups/validate.js';
import { createContext, type AppContext } from '../../src/context.js';
import { testConfig } from '../helpers/config.js';
import { capturingLogger } from '../helpers/capturing-logger.js';
import { warnOfAdminsWithoutGroups, warnOfSharedAdminOrigin } from '../../src/start-up-warnings.js';
import { createScopedAdmin } from '../helpers/scoped-admin.js';

let context: AppContext;
beforeAll(() => {
  context = createContext(testConfig());
});
afterAll(() => context.close());

const backend = (frontend_host: string, ...prefixes: string[]) => ({ frontend_host, url_matches: prefixes.map((frontend_prefix) => ({ frontend_prefix })) });

describe('AdminAccess', () => {
  it('gives a superuser everything, without scopes', async () => {
    const { admin } = (await context.admins.create({ email: 'root@example.com', password: 'correct horse battery staple', superuser: true }))!;
    const access = context.adminGroups.accessOf(admin);
    expect(access.has('analytics')).toBe(true);
    expect(access.scopesWith('analytics')).toBeNull();
    expect(access.allowsBackend(backend('anything.example.com', '/'), 'backend_manage')).toBe(true);
  });

  it('gives an admin in no group nothing', async () => {
    const { admin } = (await context.admins.create({ email: 'nobody@example.com', password: 'correct horse battery staple', superuser: false }))!;
    const access = context.adminGroups.accessOf(admin);
    for (const permission of ['analytics', 'user_view', 'backend_manage'] as const) expect(access.has(permission)).toBe(false);
    expect(access.scopesWith('analytics')).toEqual([]);
    expect(access.allowsBackend(backend('api.example.com', '/'), 'backend_manage')).toBe(false);
    expect(forbiddenMessage(access)).toContain('not authorized for any APIs yet');
  });

  it('allows a backend only when every URL match lies in a scope holding the permission', async () => {
    const { admin } = await createScopedAdmin(context, {
      email: 'foo-team@example.com',
      scopes: [{ host: 'api.example.com', path_prefix: '/foo' }],
      permissions: ['backend_manage'],
    });
    const access = context.adminGroups.accessOf(admin);
    expect(access.allowsBackend(backend('api.example.com', '/foo/'), 'backend_manage')).toBe(true);
    expect(access.allowsBackend(backend('API.example.com', '/foobar'), 'backend_manage')).toBe(true);
    expect(access.allowsBackend(backend('api.example.com', '/foo/', '/bar/'), 'backend_manage')).toBe(false);
    expect(access.allowsBackend(backend('api.example.com', '/Foo/'), 'backend_manage')).toBe(false);
    expect(access.allowsBackend(backend('other.example.com', '/foo/'), 'backend_manage')).toBe(false);
    expect(access.allowsBackend(backend('api.example.com'), 'backend_manage')).toBe(false);
    // The permission is per scope: this group grants no publishing.
    expect(access.allowsBackend(backend('api.example.com', '/foo/'), 'backend_publish')).toBe(false);
    expect(access.has('backend_publish')).toBe(false);
    expect(forbiddenMessage(access)).toContain('- api.example.com/foo');
    expect(access.areas('backend_manage')).toEqual(['api.example.com/foo']);
    expect(access.areas('analytics')).toEqual([]);
  });

  it('leaves out of an admin\'s groups one deleted since it was chosen, without an error', async () => {
    const { admin, groupId } = await createScopedAdmin(context, { email: 'racing@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/racing/' }], permissions: ['analytics'] });
    const gone = context.adminGroups.createGroup({ name: 'Deleted meanwhile', api_scope_ids: context.adminGroups.getGroup(groupId)!.api_scope_ids, permission_ids: ['user_view'] });
    if (!gone.ok) throw new Error(JSON.stringify(gone.errors));
    context.adminGroups.deleteGroup(gone.value.id);
    context.adminGroups.setGroupsOf(admin.id, [groupId, gone.value.id]);
    expect(context.adminGroups.groupIdsOf(admin.id)).toEqual([groupId]);
  });

  it('takes a scope host without a port to cover every port, and one with a port only that port', () => {
    expect(hostInScope('api.example.com:8443', { host: 'api.example.com' })).toBe(true);
    expect(hostInScope('api.example.com.evil.net', { host: 'api.example.com' })).toBe(false);
    expect(hostInScope('api.example.com:8443', { host: 'api.example.com:8080' })).toBe(false);
    expect(new AdminAccess(false, []).areas()).toEqual([]);
  });

  it('sees a group changed at once, and loses what a deleted group granted', async () => {
    const { admin, groupId } = await createScopedAdmin(context, { email: 'changing@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/changing' }], permissions: ['analytics'] });
    expect(context.adminGroups.accessOf(admin).has('user_view')).toBe(false);
    const group = context.adminGroups.getGroup(groupId)!;
    const updated = context.adminGroups.updateGroup(groupId, { name: group.name, api_scope_ids: group.api_scope_ids, permission_ids: ['analytics', 'user_view'] });
    expect(updated?.ok).toBe(true);
    expect(context.adminGroups.accessOf(admin).has('user_view')).toBe(true);
    expect(context.adminGroups.deleteGroup(groupId)).toBe(true);
    expect(context.adminGroups.accessOf(admin).has('analytics')).toBe(false);
    expect(context.adminGroups.groupIdsOf(admin.id)).toEqual([]);
  });
});

describe('scopes and groups', () => {
  it('refuses a second scope at the same host and prefix, and deleting a scope a group uses', () => {
    const first = context.adminGroups.createScope({ name: 'Bar', host: 'api.example.com', path_prefix: '/bar' });
    expect(first.ok).toBe(true);
    expect(context.adminGroups.createScope({ name: 'Bar again', host: 'api.example.com', path_prefix: '/bar' })).toEqual({ ok: false, errors: { path_prefix: ['has already been taken'] } });
    const scopeId = first.ok ? first.value.id : '';
    const group = context.adminGroups.createGroup({ name: 'Bar team', api_scope_ids: [scopeId], permission_ids: ['analytics'] });
    expect(group.ok).toBe(true);
    expect(context.adminGroups.createGroup({ name: 'bar TEAM', api_scope_ids: [scopeId], permission_ids: ['analytics'] })).toEqual({ ok: false, errors: { name: ['has already been taken'] } });
    expect(() => context.adminGroups.deleteScope(scopeId)).toThrow(ScopeInUseError);
    expect(() => context.adminGroups.deleteScope(scopeId)).toThrow('"Bar team"');
    if (group.ok) context.adminGroups.deleteGroup(group.value.id);
    expect(context.adminGroups.deleteScope(scopeId)).toBe(true);
    expect(context.adminGroups.getScope(scopeId)).toBeNull();
  });

  it('validates scope and group input with API Umbrella field names', () => {
    expect(parseApiScope({ name: 'X', host: 'API.Example.com', path_prefix: '/x' })).toEqual({ ok: true, value: { name: 'X', host: 'api.example.com', path_prefix: '/x' } });
    expect(parseApiScope({ name: '', host: 'not a host', path_prefix: 'x' })).toEqual({
      ok: false,
      errors: { name: ["can't be blank"], host: ['must be in the format of "example.com"'], path_prefix: ['must start with "/"'] },
    });
    const known = new Set(['s1']);
    expect(parseAdminGroup({ name: 'G', api_scope_ids: ['s1', 's1'], permission_ids: { 0: 'analytics', 1: 'user_view' } }, known)).toEqual({
      ok: true,
      value: { name: 'G', api_scope_ids: ['s1'], permission_ids: ['analytics', 'user_view'] },
    });
    const refused = parseAdminGroup({ name: 'G', api_scope_ids: ['nope'], permission_ids: ['superuser'] }, known);
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.errors.api_scope_ids).toEqual(['contains "nope", which is no API scope']);
      expect(refused.errors.permission_ids![0]).toContain('contains "superuser"');
    }
    for (const host of ['*', '*.example.com', '.example.com']) {
      expect(parseApiScope({ name: 'W', host, path_prefix: '/' })).toMatchObject({ ok: false, errors: { host: [expect.stringContaining('without wildcards')] } });
    }
    expect(parseAdminGroup({ name: 'G' }, known)).toMatchObject({ ok: false, errors: { api_scopes: ["can't be blank"], permissions: ["can't be blank"] } });
  });
});

describe('the warning at start about the web admin sharing its origin', () => {
  it('is logged once while admin.hosts is empty and a group grants backend_manage or backend_publish, naming the groups', async () => {
    const fresh = createContext(testConfig());
    try {
      const { logger, lines } = capturingLogger();
      const warnAbout = (config = fresh.config) => warnOfSharedAdminOrigin({ adminGroups: fresh.adminGroups, logger, config });
      const scopes = [{ host: 'api.example.com', path_prefix: '/team/' }];
      await createScopedAdmin(fresh, { email: 'analyst@example.com', scopes, permissions: ['analytics', 'user_view'] });
      warnAbout();
      expect(lines).toEqual([]);
      await createScopedAdmin(fresh, { email: 'publisher@example.com', scopes, permissions: ['backend_publish'] });
      await createScopedAdmin(fresh, { email: 'team@example.com', scopes, permissions: ['backend_manage'] });
      warnAbout();
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 40, groups: ['group of publisher@example.com', 'group of team@example.com'] });
      expect(String(lines[0]!.msg)).toMatch(/the web admin shares its origin with the proxied APIs.*act as a signed-in superuser.*set admin\.hosts/);
      warnAbout(testConfig({ admin: { hosts: ['admin.example.com'] } }));
      expect(lines).toHaveLength(1);
    } finally {
      fresh.close();
    }
  });
});

describe('the warning at start', () => {
  it('names the enabled admins who are neither superusers nor in a group, and says nothing when there are none', async () => {
    const fresh = createContext(testConfig());
    try {
      const { logger, lines } = capturingLogger();
      const warnAbout = () => warnOfAdminsWithoutGroups({ adminGroups: fresh.adminGroups, logger });
      await fresh.admins.create({ email: 'root@example.com', password: 'correct horse battery staple', superuser: true });
      await createScopedAdmin(fresh, { email: 'grouped@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/' }], permissions: ['analytics'] });
      warnAbout();
      expect(lines).toEqual([]);
      await fresh.admins.create({ email: 'stranded@example.com', password: 'correct horse battery staple', superuser: false });
      await fresh.admins.create({ email: 'disabled@example.com', password: 'correct horse battery staple', superuser: false, enabled: false });
      warnAbout();
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 40, admins: ['stranded@example.com'] });
      expect(String(lines[0]!.msg)).toContain('can only sign in');
    } finally {
      fresh.close();
    }
  });
});
