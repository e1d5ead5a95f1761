// Configuration › Publish Changes: the drafts against the live config, with a
// diff per backend, publishing a selection, and the version history with
// rollback.
import type { FastifyInstance } from 'fastify';
import { selectedApiIds } from '../admin-api/config.js';
import type { ApiBackend } from '../api-backends/model.js';
import type { AppContext } from '../context.js';
import { toInteger } from '../lib/validation-errors.js';
import { canonicalJson, type PendingChange } from '../publish/pending-changes.js';
import { redirectWithFlash } from './flash.js';
import { lineDiff } from './line-diff.js';
import { decodeNestedForm, textOf } from '../lib/nested-form.js';
import { renderAdminPage } from './page.js';

export const PUBLISHED = 'Successfully published the configuration';
export const UP_TO_DATE = 'Published configuration is up to date';
/** Where the forms come back to (routes are registered under the /admin prefix). */
const PUBLISH_PATH = '/admin/config/publish';

const GROUPS = [
  { mode: 'new', title: 'New API Backends' },
  { mode: 'modified', title: 'Modified API Backends' },
  { mode: 'deleted', title: 'Deleted API Backends' },
] as const;

export function publishPages(app: FastifyInstance, context: AppContext): void {
  const { publisher } = context;

  app.get('/config/publish', async (request, reply) => {
    const changes = publisher.pendingChanges();
    const total = changes.new.length + changes.modified.length + changes.deleted.length;
    const select = (request.query as Record<string, unknown>).select;
    // A single change is pre-checked, as in API Umbrella; "Check all" links work without JavaScript.
    const checked = select === 'all' || (select !== 'none' && total === 1);
    const groups = GROUPS.map((group) => ({ ...group, changes: changes[group.mode].map((change) => describe(change, checked)) })).filter(
      (group) => group.changes.length > 0,
    );
    const versions = publisher.versions();
    return renderAdminPage(context, reply, 'admin/publish', { title: 'Publish Changes', section: 'publish', groups, total, versions, liveVersion: publisher.current.version });
  });

  app.post('/config/publish', async (request, reply) => {
    const ids = selectedApiIds(decodeNestedForm(request.body));
    if (ids.length === 0) return redirectWithFlash(reply, PUBLISH_PATH, 'error', 'Check at least one API backend to publish.');
    const version = publisher.publish(ids, request.admin!.email);
    return version === null ? redirectWithFlash(reply, PUBLISH_PATH, 'info', UP_TO_DATE) : redirectWithFlash(reply, PUBLISH_PATH, 'success', PUBLISHED);
  });

  app.post('/config/rollback', async (request, reply) => {
    const versionId = toInteger(textOf(decodeNestedForm(request.body), 'version_id'));
    const result = versionId === undefined ? 'not_found' : publisher.rollback(versionId, request.admin!.email);
    if (result === 'not_found') return redirectWithFlash(reply, PUBLISH_PATH, 'error', 'That version does not exist.');
    if (result === null) return redirectWithFlash(reply, PUBLISH_PATH, 'info', UP_TO_DATE);
    return redirectWithFlash(reply, PUBLISH_PATH, 'success', `Rolled back to version ${versionId}: it is live again as version ${result.id}.`);
  });
}

function describe(change: PendingChange, checked: boolean) {
  const shown = (change.pending ?? change.active)!;
  return {
    id: change.id,
    name: change.name,
    summary: summary(shown),
    checked,
    diff: lineDiff(configText(change.active), configText(change.pending)),
  };
}

function configText(api: ApiBackend | null): string {
  return api === null ? '' : canonicalJson(api);
}

function summary(api: ApiBackend): string {
  return `${api.frontend_host} ${api.url_matches.map((match) => match.frontend_prefix).join(', ')} → ${api.backend_protocol}://${api.backend_host || api.servers[0]?.host || ''}`;
}
