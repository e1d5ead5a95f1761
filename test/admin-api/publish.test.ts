import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PublishedConfig } from '../../src/publish/published-config.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
beforeEach(async () => {
  gw = await startTestGateway();
});
afterEach(() => gw.stop());

function api(name: string, prefix = `/${name}/`) {
  return {
    name,
    frontend_host: 'localhost',
    backend_host: 'example.com',
    servers: [{ host: '127.0.0.1', port: 9 }],
    url_matches: [{ frontend_prefix: prefix, backend_prefix: '/' }],
  };
}

async function create(name: string): Promise<string> {
  const response = await gw.adminApi('POST', '/apis', { api: api(name) });
  expect(response.status).toBe(201);
  return response.body.api.id;
}

async function pending() {
  const response = await gw.adminApi('GET', '/config/pending_changes');
  expect(response.status).toBe(200);
  return response.body.config.apis as Record<'new' | 'modified' | 'deleted' | 'identical', { mode: string; id: string; name: string; active: unknown; pending: unknown }[]>;
}

function publish(...ids: string[]) {
  return gw.adminApi('POST', '/config/publish', { config: { apis: Object.fromEntries(ids.map((id) => [id, { publish: '1' }])) } });
}

const names = (items: { name: string }[]) => items.map((item) => item.name).sort();

describe('pending changes and publish', () => {
  it('a fresh install knows no backends and has nothing pending', async () => {
    expect(await pending()).toEqual({ new: [], modified: [], deleted: [], identical: [] });
    expect(gw.context.publisher.current).toEqual({ version: null, apis: [] });
  });

  it('lists a new draft as new, with its pending copy and no active one', async () => {
    const id = await create('alpha');
    const changes = await pending();
    expect(changes.new).toEqual([expect.objectContaining({ mode: 'new', id, name: 'alpha', active: null })]);
    expect((changes.new[0]!.pending as { name: string }).name).toBe('alpha');
  });

  it("shows each side's config as YAML, as API Umbrella does: sorted keys, list items at their key's column, no bookkeeping, ids or unset fields, no document marker; and who made it", async () => {
    const id = await create('alpha');
    type Change = { pending_yaml?: string; active_yaml?: string; pending: Record<string, unknown> };
    const [created] = (await pending()).new as unknown as Change[];
    expect(created!.active_yaml).toBeUndefined();
    expect(created!.pending_yaml!.split('\n').map((line) => line.replace(/:.*/, ''))).toEqual([
      'backend_host',
      'backend_protocol',
      'balance_algorithm',
      'frontend_host',
      'name',
      'servers',
      '- host',
      '  port',
      'settings',
      '  required_roles_override',
      'sort_order',
      'url_matches',
      '- backend_prefix',
      '  frontend_prefix',
      '',
    ]);
    for (const noise of ['---', 'created_at', 'updated_by', 'id:', 'null']) expect(created!.pending_yaml, noise).not.toContain(noise);
    const admin = { username: expect.stringMatching(/^admin-\d+@example\.com$/) };
    expect(created!.pending).toMatchObject({ creator: admin, updater: admin });
    await publish(id);
    await gw.adminApi('PUT', `/apis/${id}`, { api: { name: 'alpha two' } });
    const [modified] = (await pending()).modified as unknown as Change[];
    expect(modified!.active_yaml).toContain('name: alpha\n');
    expect(modified!.pending_yaml).toContain('name: alpha two\n');
  });

  it('publishes only the checked backends; a draft edit changes nothing live until published', async () => {
    const a = await create('alpha');
    const b = await create('beta');
    const published = await publish(a);
    expect(published.status).toBe(201);
    expect(gw.context.publisher.current.apis.map((x) => x.name)).toEqual(['alpha']);
    let changes = await pending();
    expect(names(changes.identical)).toEqual(['alpha']);
    expect(names(changes.new)).toEqual(['beta']);

    await gw.adminApi('PUT', `/apis/${a}`, { api: { ...api('alpha'), backend_host: 'changed.example.com' } });
    expect(gw.context.publisher.current.apis[0]!.backend_host).toBe('example.com');
    changes = await pending();
    expect(changes.modified).toEqual([expect.objectContaining({ id: a, mode: 'modified' })]);

    await publish(a, b);
    expect(gw.context.publisher.current.apis.map((x) => [x.name, x.backend_host])).toEqual([
      ['alpha', 'changed.example.com'],
      ['beta', 'example.com'],
    ]);
    expect(names((await pending()).identical)).toEqual(['alpha', 'beta']);
  });

  it('shows a deleted published backend as deleted; publishing it checked removes it, unchecked keeps it live', async () => {
    const a = await create('alpha');
    const b = await create('beta');
    await publish(a, b);
    await gw.adminApi('DELETE', `/apis/${a}`);
    await gw.adminApi('DELETE', `/apis/${b}`);
    const changes = await pending();
    expect(changes.deleted).toEqual(
      expect.arrayContaining([expect.objectContaining({ mode: 'deleted', id: a, pending: null }), expect.objectContaining({ id: b })]),
    );
    await publish(a);
    expect(gw.context.publisher.current.apis.map((x) => x.name)).toEqual(['beta']);
    expect(names((await pending()).deleted)).toEqual(['beta']);
  });

  it('answers, as API Umbrella does, the config live after the publish beside the version: every live backend as GET /apis/:id answers it', async () => {
    const a = await create('alpha');
    const b = await create('beta');
    const first = await publish(a);
    expect(first.status).toBe(201);
    expect(first.body.config_version).toMatchObject({ id: 1, changes: { new: ['alpha'] } });
    expect(first.body.config).toEqual({ apis: [(await gw.adminApi('GET', `/apis/${a}`)).body.api] });

    await gw.adminApi('PUT', `/apis/${b}`, { api: { name: 'beta two' } });
    const second = await publish(b);
    expect(second.body.config.apis.map((x: { id: string; name: string }) => [x.id, x.name])).toEqual([
      [a, 'alpha'],
      [b, 'beta two'],
    ]);
  });

  it('answers the live config when nothing was published: an empty selection, no config at all (as API Umbrella), before any publish', async () => {
    expect((await publish()).body).toEqual({ config: { apis: [] }, config_version: null });
    const a = await create('alpha');
    await publish(a);
    await gw.adminApi('PUT', `/apis/${a}`, { api: { name: 'alpha draft' } });
    for (const nothing of [await publish(), await gw.adminApi('POST', '/config/publish', {}), await gw.adminApi('POST', '/config/publish', { config: {} })]) {
      expect(nothing.status).toBe(201);
      expect(nothing.body.config_version).toBeNull();
      expect(nothing.body.config.apis.map((x: { id: string; name: string }) => [x.id, x.name])).toEqual([[a, 'alpha']]);
    }
  });

  it('an empty selection, or one that changes nothing, creates no version', async () => {
    const a = await create('alpha');
    expect((await publish()).status).toBe(201);
    expect((await gw.adminApi('GET', '/config/versions')).body.versions).toEqual([]);
    await publish(a);
    await publish(a);
    expect((await gw.adminApi('POST', '/config/publish', {})).status).toBe(201);
    expect((await gw.adminApi('GET', '/config/versions')).body.versions).toHaveLength(1);
  });

  it('ignores unchecked entries', async () => {
    const a = await create('alpha');
    const b = await create('beta');
    await gw.adminApi('POST', '/config/publish', { config: { apis: { [a]: { publish: '0' }, [b]: { publish: '1' } } } });
    expect(gw.context.publisher.current.apis.map((api) => api.name)).toEqual(['beta']);
  });

  it('refuses, publishing nothing, a selection naming an id that is neither draft nor published, or apis that are no object of choices', async () => {
    const a = await create('alpha');
    const typo = await gw.adminApi('POST', '/config/publish', { config: { apis: { [a]: { publish: '1' }, 'no-such-id': { publish: '1' } } } });
    expect(typo.status).toBe(422);
    expect(typo.body).toEqual({ errors: { 'config.apis': ['names no API backend: no-such-id'] } });
    const listed = await gw.adminApi('POST', '/config/publish', { config: { apis: [a] } });
    expect(listed.status).toBe(422);
    expect(listed.body.errors['config.apis']).toEqual(['must be an object of {"<id>":{"publish":"1"}}']);
    expect(gw.context.publisher.current.version).toBeNull();
  });

  it('hands subscribers a new immutable config in one swap, leaving the old one intact for requests in flight', async () => {
    const seen: PublishedConfig[] = [];
    gw.context.publisher.subscribe((config) => seen.push(config));
    const before = gw.context.publisher.current;
    await publish(await create('alpha'));
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(before);
    expect(before.apis).toEqual([]);
    expect(seen[1]!.apis.map((x) => x.name)).toEqual(['alpha']);
    expect(Object.isFrozen(seen[1]!.apis[0]!.url_matches[0])).toBe(true);
  });
});

describe('versions and rollback', () => {
  it('numbers versions, says who published what, and rolls back as a new version', async () => {
    const a = await create('alpha');
    await publish(a);
    const b = await create('beta');
    await publish(b);
    await gw.adminApi('DELETE', `/apis/${a}`);
    await publish(a);

    const versions = (await gw.adminApi('GET', '/config/versions')).body.versions;
    expect(versions.map((v: { id: number }) => v.id)).toEqual([3, 2, 1]);
    expect(versions[2]).toMatchObject({ id: 1, publisher: expect.stringMatching(/^admin-.*@example\.com$/), changes: { new: ['alpha'], modified: [], deleted: [] } });
    expect(versions[0].changes).toEqual({ new: [], modified: [], deleted: ['alpha'] });
    expect(versions[0].published_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const rolled = await gw.adminApi('POST', '/config/rollback', { version_id: 2 });
    expect(rolled.status).toBe(201);
    expect(rolled.body.config_version).toMatchObject({ id: 4, rollback_of: 2, changes: { new: ['alpha'], modified: [], deleted: [] } });
    expect(gw.context.publisher.current).toMatchObject({ version: 4 });
    expect(gw.context.publisher.current.apis.map((x) => x.name)).toEqual(['alpha', 'beta']);
    // Drafts are untouched: alpha is still deleted there, so it shows as a pending deletion.
    expect(names((await pending()).deleted)).toEqual(['alpha']);
  });

  it('rolling back to the live config creates no version; unknown and missing versions are 404 and 422', async () => {
    await publish(await create('alpha'));
    expect((await gw.adminApi('POST', '/config/rollback', { version_id: 1 })).body.config_version).toBeNull();
    expect((await gw.adminApi('POST', '/config/rollback', { version_id: 99 })).status).toBe(404);
    expect((await gw.adminApi('POST', '/config/rollback', {})).status).toBe(422);
  });

  it('the live config survives a restart', async () => {
    await publish(await create('alpha'));
    const config = gw.context.config;
    await gw.stop();
    const { startWithConfig } = await import('../helpers/gateway.js');
    gw = await startWithConfig(config);
    expect(gw.context.publisher.current.version).toBe(1);
    expect(gw.context.publisher.current.apis.map((x) => x.name)).toEqual(['alpha']);
  });
});

describe("transition starts (API Umbrella's require_https and api_key_verification_level transitions)", () => {
  it('publishing gives a transition without a start the time of publishing, in the live config and the draft alike', async () => {
    const created = await gw.adminApi('POST', '/apis', {
      api: {
        ...api('transitions'),
        settings: { require_https: 'transition_return_error', api_key_verification_level: 'transition_email' },
        sub_settings: [{ http_method: 'any', regex: '^/sub', settings: { api_key_verification_level: 'transition_email' } }],
      },
    });
    const id = created.body.api.id as string;
    expect(created.body.api.settings).toMatchObject({ require_https_transition_start_at: null, api_key_verification_transition_start_at: null });
    const before = Date.now();
    const version = await publish(id);
    expect(version.status).toBe(201);
    const live = gw.context.publisher.current.apis[0]!;
    const publishedAt = live.settings.require_https_transition_start_at!;
    expect(Date.parse(publishedAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(publishedAt)).toBeLessThanOrEqual(Date.now());
    expect(live.settings.api_key_verification_transition_start_at).toBe(publishedAt);
    expect(live.sub_settings[0]!.settings.api_key_verification_transition_start_at).toBe(publishedAt);
    const draft = (await gw.adminApi('GET', `/apis/${id}`)).body.api;
    expect(draft.settings.require_https_transition_start_at).toBe(publishedAt);
    expect(names((await pending()).identical)).toEqual(['transitions']);
  });

  it('keeps the live start of a transition whose draft lost it, and shows a stale start alone as no change', async () => {
    const id = (await gw.adminApi('POST', '/apis', { api: { ...api('kept'), settings: { require_https: 'transition_return_error', require_https_transition_start_at: '2015-01-16T06:06:28.816Z' } } })).body.api.id as string;
    expect((await publish(id)).status).toBe(201);
    // An API client's PUT without the start, as after a blanked form field.
    await gw.adminApi('PUT', `/apis/${id}`, { api: { ...api('kept'), settings: { require_https: 'transition_return_error' } } });
    expect(names((await pending()).identical)).toEqual(['kept']);
    await gw.adminApi('PUT', `/apis/${id}`, { api: { ...api('kept'), settings: { require_https: 'transition_return_error', api_key_verification_transition_start_at: '2020-01-01T00:00:00Z' } } });
    expect(names((await pending()).identical)).toEqual(['kept']);
    const updatedAt = (await gw.adminApi('GET', `/apis/${id}`)).body.api.updated_at;
    expect((await publish(id)).body.config_version).toBeNull();
    expect((await gw.adminApi('GET', `/apis/${id}`)).body.api.updated_at).toBe(updatedAt);

    await gw.adminApi('PUT', `/apis/${id}`, { api: { ...api('kept'), settings: { require_https: 'transition_return_error', disable_api_key: true } } });
    expect((await publish(id)).status).toBe(201);
    expect(gw.context.publisher.current.apis[0]!.settings.require_https_transition_start_at).toBe('2015-01-16T06:06:28.816Z');
  });

  it('keeps a start that was given, and clears one whose setting is not in transition', async () => {
    const id = (
      await gw.adminApi('POST', '/apis', {
        api: {
          ...api('given'),
          settings: { require_https: 'transition_return_error', require_https_transition_start_at: '2015-01-16T06:06:28.816Z', api_key_verification_level: 'required_email', api_key_verification_transition_start_at: '2015-01-16T06:06:28.816Z' },
        },
      })
    ).body.api.id as string;
    expect((await publish(id)).status).toBe(201);
    const live = gw.context.publisher.current.apis[0]!;
    expect(live.settings).toMatchObject({ require_https_transition_start_at: '2015-01-16T06:06:28.816Z', api_key_verification_transition_start_at: null });
    expect(names((await pending()).identical)).toEqual(['given']);
  });
});
