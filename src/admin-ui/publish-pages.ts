// Configuration › Publish Changes: the drafts against the live config, with a
// diff per backend, publishing a selection (backend_publish, within the
// admin's reach), and the version history with rollback (superusers).
import type { FastifyInstance } from 'fastify';
import { selectedApiIds } from '../admin-api/config.js';
import { accessOf } from '../admin-groups/request-access.js';
import type { ApiBackend } from '../api-backends/model.js';
import type { AppContext } from '../context.js';
import { toInteger } from '../lib/validation-errors.js';
import { mayPublishAll, pendingChangesFor } from '../publish/admin-changes.js';
import type { PendingChange } from '../publish/pending-changes.js';
import { changeSinceReview, draftFingerprint, type DraftChange } from '../publish/reviewed-drafts.js';
import { isPlainObject } from '../lib/validation-errors.js';
import { askToConfirm, confirmPrompt, isConfirmed, type ActionQuestion } from './confirm-action.js';
import { redirectWithFlash } from './flash.js';
import { changeDiff } from './change-diff.js';
import { decodeNestedForm, textOf } from '../lib/nested-form.js';
import { renderAdminPage } from './page.js';
import { renderForbiddenPage, requirePagePermission } from './page-access.js';

export const PUBLISHED = 'Successfully published the configuration';
export const UP_TO_DATE = 'Published configuration is up to date';
/** Where the forms come back to (routes are registered under the /admin prefix). */
const PUBLISH_PATH = '/admin/config/publish';
const BACK = { backHref: PUBLISH_PATH, backLabel: 'Back to Publish Changes', section: 'publish' } as const;

const GROUPS = [
  { mode: 'new', title: 'New API Backends' },
  { mode: 'modified', title: 'Modified API Backends' },
  { mode: 'deleted', title: 'Deleted API Backends' },
] as const;

export function publishPages(app: FastifyInstance, context: AppContext): void {
  const { publisher } = context;

  app.register(async (publishers) => {
    // Without the permission the page itself is refused, so its 403 page leads to the admin's start page.
    publishers.addHook('preHandler', requirePagePermission(context, { section: 'publish' }, 'backend_publish'));

    // Only the changes within the admin's reach; the version history (every backend) for superusers only.
    publishers.get('/config/publish', async (request, reply) => {
      const access = accessOf(context, request);
      const changes = pendingChangesFor(publisher, access);
      const total = changes.new.length + changes.modified.length + changes.deleted.length;
      const select = (request.query as Record<string, unknown>).select;
      // A single change is pre-checked, as in API Umbrella; "Check all" links work without JavaScript.
      const checked = select === 'all' || (select !== 'none' && total === 1);
      const groups = GROUPS.map((group) => ({ ...group, changes: changes[group.mode].map((change) => describe(change, checked)) })).filter(
        (group) => group.changes.length > 0,
      );
      const versions = access.superuser ? publisher.versions() : null;
      return renderAdminPage(context, reply, 'admin/publish', { title: 'Publish Changes', section: 'publish', groups, total, versions, liveVersion: publisher.current.version, rollbackPrompt: (versionId: number) => confirmPrompt(rollbackQuestion(versionId)) });
    });

    // All or nothing: a selection naming a backend out of the admin's reach publishes none.
    publishers.post('/config/publish', async (request, reply) => {
      const form = decodeNestedForm(request.body);
      const ids = selectedApiIds(form);
      if (ids.length === 0) return redirectWithFlash(reply, PUBLISH_PATH, 'error', 'Check at least one API backend to publish.');
      if (!mayPublishAll(publisher, accessOf(context, request), ids)) return renderForbiddenPage(context, reply, BACK);
      const unreviewed = unreviewedChanges(ids, form);
      if (unreviewed.length > 0) return redirectWithFlash(reply, PUBLISH_PATH, 'error', `Nothing was published: ${unreviewed.join(', ')} after you opened this page. Review the differences below, then publish again.`);
      const version = publisher.publish(ids, request.admin!.email);
      return version === null ? redirectWithFlash(reply, PUBLISH_PATH, 'info', UP_TO_DATE) : redirectWithFlash(reply, PUBLISH_PATH, 'success', PUBLISHED);
    });

    // A version holds every backend, and rolling back replaces them all: asked first.
    publishers.post('/config/rollback', async (request, reply) => {
      if (!accessOf(context, request).superuser) return renderForbiddenPage(context, reply, BACK);
      const versionId = toInteger(textOf(decodeNestedForm(request.body), 'version_id'));
      const noSuchVersion = () => redirectWithFlash(reply, PUBLISH_PATH, 'error', 'That version does not exist.');
      if (versionId === undefined) return noSuchVersion();
      // Asked only of a version there is; once confirmed, rollback itself finds it (or not).
      if (!isConfirmed(request)) return publisher.versionConfig(versionId) === null ? noSuchVersion() : askToConfirm(context, reply, rollbackQuestion(versionId));
      const result = publisher.rollback(versionId, request.admin!.email);
      if (result === 'not_found') return noSuchVersion();
      if (result === null) return redirectWithFlash(reply, PUBLISH_PATH, 'info', UP_TO_DATE);
      return redirectWithFlash(reply, PUBLISH_PATH, 'success', `Rolled back to version ${versionId}: it is live again as version ${result.id}.`);
    });
  });

  /**
   * The selected backends whose draft changed since the page showed it, each
   * named with what happened; a selection without the page's fingerprint (a
   * form of an older page) is published as it is, as the admin API's is.
   */
  function unreviewedChanges(ids: readonly string[], form: Record<string, unknown>): string[] {
    const reviewed = reviewedFingerprints(form);
    return ids.flatMap((id) => {
      const fingerprint = reviewed.get(id);
      const draft = context.backends.get(id);
      const change = fingerprint === undefined ? null : changeSinceReview(draft, fingerprint);
      if (change === null) return [];
      // A new backend deleted before it was published is gone from both sides: its name went with it.
      const name = draft?.name ?? publisher.current.apis.find((api) => api.id === id)?.name ?? 'a new API backend';
      return [`${name} ${CHANGE_WORDS[change]}`];
    });
  }
}

const CHANGE_WORDS: Record<DraftChange, string> = { edited: 'was edited', deleted: 'was deleted', restored: 'was made again' };

/** config[apis][<id>][reviewed], which the page gives each change it shows. */
function reviewedFingerprints(form: Record<string, unknown>): Map<string, string> {
  const config = isPlainObject(form.config) ? form.config : {};
  const apis = isPlainObject(config.apis) ? config.apis : {};
  return new Map(Object.entries(apis).flatMap(([id, choice]) => (isPlainObject(choice) && typeof choice.reviewed === 'string' ? [[id, choice.reviewed] as const] : [])));
}

function rollbackQuestion(versionId: number): ActionQuestion {
  return {
    question: `Roll back to version ${versionId}?`,
    consequences: [
      `Version ${versionId}'s configuration goes live at once, as a new version, in place of every API backend live now.`,
      'Your drafts stay as they are.',
    ],
    button: 'Roll back',
    back: { href: PUBLISH_PATH, label: 'Publish Changes' },
    section: 'publish',
  };
}

function describe(change: PendingChange, checked: boolean) {
  const shown = (change.pending ?? change.active)!;
  return {
    id: change.id,
    name: change.name,
    summary: summary(shown),
    checked,
    reviewed: draftFingerprint(change.pending),
    diff: changeDiff(change.active, change.pending),
  };
}

function summary(api: ApiBackend): string {
  return `${api.frontend_host} ${api.url_matches.map((match) => match.frontend_prefix).join(', ')} → ${api.backend_protocol}://${api.backend_host || api.servers[0]?.host || ''}`;
}
