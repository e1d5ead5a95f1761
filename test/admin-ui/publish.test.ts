import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EMPTY_SETTINGS } from '../../src/api-backends/model.js';
import { AdminClient, startSignedIn, textOf, type AdminApp } from './helpers/admin-client.js';

let running: AdminApp;
let client: AdminClient;

beforeEach(async () => {
  ({ running, client } = await startSignedIn());
});
afterEach(() => running.close());

function draft(name: string, prefix: string): string {
  return running.context.backends.create(
    {
      name,
      frontend_host: 'api.example.com',
      backend_host: 'backend.internal',
      backend_protocol: 'http',
      balance_algorithm: 'least_conn',
      servers: [{ id: randomUUID(), host: '10.0.0.1', port: 80 }],
      url_matches: [{ id: randomUUID(), frontend_prefix: prefix, backend_prefix: '/' }],
      settings: EMPTY_SETTINGS,
      sub_settings: [],
      rewrites: [],
    },
    'test',
  ).id;
}

const publishField = (id: string) => `config[apis][${id}][publish]`;

describe('Publish Changes', () => {
  it('says the published configuration is up to date when there is nothing to publish', async () => {
    const text = textOf((await client.get('/admin/config/publish')).body);
    expect(text).toContain('Published configuration is up to date');
    expect(text).toContain('Nothing has been published yet');
    expect(text).toContain('All changes published');
  });

  it('groups new, modified and deleted backends with a diff of published vs pending', async () => {
    const kept = draft('Kept', '/kept/');
    const gone = draft('Gone', '/gone/');
    running.context.publisher.publish([kept, gone], 'test');
    const api = running.context.backends.get(kept)!;
    running.context.backends.update(kept, { ...api, backend_host: 'new-backend.internal' }, 'test');
    running.context.backends.delete(gone);
    draft('Fresh', '/fresh/');

    const page = await client.get('/admin/config/publish');
    const text = textOf(page.body);
    expect(text).toMatch(/1 New API Backends .*Fresh/);
    expect(text).toMatch(/1 Modified API Backends .*Kept/);
    expect(text).toMatch(/1 Deleted API Backends .*Gone/);
    expect(text).toContain('View Config Differences');
    // YAML, as API Umbrella shows it, without the fields left unset.
    expect(page.body).toContain('<div class="del">- backend_host: backend.internal</div>');
    expect(page.body).toContain('<div class="add">+ backend_host: new-backend.internal</div>');
    expect(page.body).not.toMatch(/<div class="(add|del|same)">.*null/);
    expect(text).toContain('3 unpublished changes');
    // With several changes nothing is pre-checked; "Check all" works without JavaScript too.
    expect(page.body).not.toMatch(/data-publish-box checked/);
    expect(text).toContain('Check all');
    expect(text).toContain('Uncheck all');
    const all = await client.get('/admin/config/publish?select=all');
    expect(all.body.match(/data-publish-box checked/g)).toHaveLength(3);
  });

  it('pre-checks a single change and publishes it with "Successfully published the configuration"', async () => {
    const id = draft('Only', '/only/');
    const page = await client.get('/admin/config/publish');
    expect(page.body).toMatch(/data-publish-box checked/);
    expect(page.body).toContain('<button type="submit" data-publish-button>Publish</button>');
    const published = await client.post('/admin/config/publish', { [publishField(id)]: '1' });
    expect(published.headers.location).toBe('/admin/config/publish');
    const after = textOf((await client.follow(published)).body);
    expect(after).toContain('Successfully published the configuration');
    expect(after).toMatch(/1 Live .* ops@example\.com Added: Only/);
    expect(running.context.publisher.current.apis.map((api) => api.id)).toEqual([id]);
  });

  it('publishes only the checked backends', async () => {
    const one = draft('One', '/one/');
    draft('Two', '/two/');
    await client.get('/admin/config/publish');
    await client.post('/admin/config/publish', { [publishField(one)]: '1' });
    expect(running.context.publisher.current.apis.map((api) => api.name)).toEqual(['One']);
    expect(textOf((await client.get('/admin/apis')).body)).toContain('1 unpublished change');
  });

  /** The form's checkbox and fingerprint of the draft the page showed, as the browser sends them for a checked change. */
  function reviewedSelection(page: { body: string }, id: string): Record<string, string> {
    const reviewed = new RegExp(`name="config\\[apis\\]\\[${id}\\]\\[reviewed\\]" value="([^"]+)"`).exec(page.body);
    if (reviewed === null) throw new Error(`no change ${id} on the page`);
    return { [publishField(id)]: '1', [`config[apis][${id}][reviewed]`]: reviewed[1]! };
  }

  it('publishes nothing when a checked draft changed after the page showed it, naming it, and publishes it once reviewed again', async () => {
    const live = draft('Live API', '/live/');
    running.context.publisher.publish([live], 'test');
    const { backends, publisher } = running.context;
    backends.update(live, { ...backends.get(live)!, backend_host: 'tweaked.internal' }, 'test');
    const shown = await client.get('/admin/config/publish');

    // Another admin deletes the draft the page showed as modified: publishing it would take the live API offline.
    backends.delete(live);
    const refused = await client.post('/admin/config/publish', reviewedSelection(shown, live));
    expect(refused.headers.location).toBe('/admin/config/publish');
    const told = textOf((await client.follow(refused)).body);
    expect(told).toContain('Nothing was published: Live API was deleted after you opened this page. Review the differences below, then publish again.');
    expect(publisher.current.version).toBe(1);
    expect(publisher.current.apis.map((api) => api.name)).toEqual(['Live API']);

    // Reviewed again, the deletion is what is published.
    await client.post('/admin/config/publish', reviewedSelection(await client.get('/admin/config/publish'), live));
    expect(publisher.current.apis).toEqual([]);
  });

  it('publishes nothing when a checked draft was edited, or a new one deleted, since the page showed it', async () => {
    const edited = draft('Edited', '/edited/');
    const gone = draft('Gone before publish', '/gone/');
    const shown = await client.get('/admin/config/publish');
    const { backends, publisher } = running.context;
    backends.update(edited, { ...backends.get(edited)!, backend_host: 'unreviewed.internal' }, 'test');
    backends.delete(gone);
    const refused = await client.post('/admin/config/publish', { ...reviewedSelection(shown, edited), ...reviewedSelection(shown, gone) });
    expect(textOf((await client.follow(refused)).body)).toContain('Nothing was published: Edited was edited, a new API backend was deleted after you opened this page.');
    expect(publisher.current.version).toBeNull();

    // Saved again unchanged (only its bookkeeping moves), a draft is still the one reviewed.
    const again = await client.get('/admin/config/publish');
    backends.update(edited, { ...backends.get(edited)! }, 'test');
    await client.post('/admin/config/publish', reviewedSelection(again, edited));
    expect(publisher.current.apis.map((api) => api.backend_host)).toEqual(['unreviewed.internal']);
  });

  it('asks for a selection when nothing is checked, and answers "Published configuration is up to date" when nothing would change', async () => {
    const id = draft('Same', '/same/');
    await client.get('/admin/config/publish');
    const none = await client.post('/admin/config/publish', {});
    expect(textOf((await client.follow(none)).body)).toContain('Check at least one API backend to publish.');
    running.context.publisher.publish([id], 'test');
    const again = await client.post('/admin/config/publish', { [publishField(id)]: '1' });
    expect(textOf((await client.follow(again)).body)).toContain('Published configuration is up to date');
    expect(running.context.publisher.versions()).toHaveLength(1);
  });

  it('rolls back to an earlier version from the history', async () => {
    const id = draft('Service', '/service/');
    running.context.publisher.publish([id], 'test');
    running.context.backends.delete(id);
    running.context.publisher.publish([id], 'test');
    expect(running.context.publisher.current.apis).toHaveLength(0);

    const page = await client.get('/admin/config/publish');
    expect(textOf(page.body)).toContain('Roll back');
    const rolledBack = await client.post('/admin/config/rollback', { version_id: '1', confirmed: '1' });
    const text = textOf((await client.follow(rolledBack)).body);
    expect(text).toContain('Rolled back to version 1: it is live again as version 3.');
    expect(text).toContain('Rollback to version 1');
    expect(running.context.publisher.current.apis.map((api) => api.name)).toEqual(['Service']);
    const missing = await client.post('/admin/config/rollback', { version_id: '99' });
    expect(textOf((await client.follow(missing)).body)).toContain('That version does not exist.');
  });

  it('shows the unpublished-changes counter on every admin page', async () => {
    draft('Pending', '/pending/');
    for (const path of ['/admin/apis', '/admin/config/publish', '/admin/api_users', '/admin/admins', '/admin/account']) {
      expect(textOf((await client.get(path)).body)).toContain('1 unpublished change');
    }
  });
});
