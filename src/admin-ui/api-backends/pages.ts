// Configuration › API Backends: list, add, edit and delete draft backends,
// for admins with backend_manage, each within their reach (admin groups).
// Nothing here changes live traffic; Publish Changes does.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { mayManage } from '../../admin-groups/backend-policy.js';
import { accessOf } from '../../admin-groups/request-access.js';
import type { AdminAccess } from '../../admin-groups/admin-access.js';
import { BACKEND_PROTOCOLS, BALANCE_ALGORITHMS, HTTP_METHODS, REWRITE_MATCHER_TYPES, type ApiBackend } from '../../api-backends/model.js';
import { backendMatches } from '../../api-backends/backend-search.js';
import { moveApiBackend, saveApiBackend } from '../../api-backends/service.js';
import { parseApiBackend } from '../../api-backends/validate.js';
import type { AppContext } from '../../context.js';
import { hostnameOf } from '../../gateway/request-url.js';
import { hasErrors, type FieldErrors } from '../../lib/validation-errors.js';
import type { ChangeMode } from '../../publish/pending-changes.js';
import { redirectWithFlash } from '../flash.js';
import { rolesInUseFor } from '../../admin-groups/role-policy.js';
import { rolesInUseHint } from '../roles-hint.js';
import { differingFields, editConflictErrors, FormErrors, postedVersion } from '../form-errors.js';
import { decodeNestedForm, textOf } from '../../lib/nested-form.js';
import { searchedPage } from '../list-page.js';
import { renderAdminPage, renderErrorPage } from '../page.js';
import { renderForbiddenPage, requirePagePermission } from '../page-access.js';
import { DURATION_UNITS, formMessage } from '../rate-limit-rows.js';
import { formAfterRowAction, rowActionOf } from '../row-actions.js';
import { BLANK_ROWS, backendFieldLabel, backendInput, blankSubSetting, defaultChoiceLabels, emptyBackendForm, formFromBackend, formFromSubmission, requestExample, type ApiBackendForm } from './form-model.js';
import { refusalErrors } from './refusal-errors.js';

type IdParams = { Params: { id: string } };

/** A host name or IPv4 address, as a Frontend Host is written. */
const PLAIN_HOSTNAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;

interface BackendPosition {
  /** The backend right before it in the list; null when it is first. */
  readonly afterId: string | null;
  /** That backend's name; undefined when it is not the admin's to see. */
  readonly afterName: string | null | undefined;
  /** The backends it may be put after. */
  readonly after: readonly { readonly id: string; readonly name: string }[];
}

const BACK = { backHref: '/admin/apis', backLabel: 'Back to API Backends', section: 'apis' } as const;

const FORM_OPTIONS = { protocols: BACKEND_PROTOCOLS, balanceAlgorithms: BALANCE_ALGORITHMS, httpMethods: HTTP_METHODS, matcherTypes: REWRITE_MATCHER_TYPES, durationUnits: DURATION_UNITS };

export function apiBackendPages(app: FastifyInstance, context: AppContext): void {
  const { backends, publisher } = context;
  // The "Default" choices say what the config's defaults give (an app is built anew for a reloaded config).
  const formOptions = { ...FORM_OPTIONS, defaults: defaultChoiceLabels(context.config.default_api_backend_settings) };

  app.register(async (managers) => {
    // Without the permission the list itself is refused, so its 403 page leads to the admin's start page.
    managers.addHook('preHandler', requirePagePermission(context, { section: 'apis' }, 'backend_manage'));

    // Only the backends within the admin's reach: the others are not theirs to see.
    managers.get('/apis', async (request, reply) => {
      const access = accessOf(context, request);
      const changes = publisher.pendingChanges();
      const stateById = new Map<string, ChangeMode>();
      for (const mode of ['new', 'modified', 'identical'] as const) for (const change of changes[mode]) stateById.set(change.id, mode);
      const theirs = backends.list().filter((api) => mayManage(access, api));
      const { search, paging, rows } = searchedPage(theirs, request.query as Record<string, unknown>, backendMatches);
      const shadowed = shadowedPrefixes(backends.list(), (api) => mayManage(access, api));
      const apis = rows.map((api) => ({ api, state: stateById.get(api.id) ?? 'new', shadowed: shadowed.get(api.id) ?? new Map() }));
      const deletedLive = changes.deleted.filter((change) => mayManage(access, change.active!)).length;
      return renderAdminPage(context, reply, 'admin/apis/index', { title: 'API Backends', section: 'apis', apis, search, paging, anyBackends: theirs.length > 0, deletedLive });
    });

    managers.get('/apis/new', async (request, reply) => renderForm(reply, { form: { ...emptyBackendForm(), frontend_host: publicHostname(request) }, id: null }));

    managers.post('/apis', async (request, reply) => submit(reply, request.body, null));

    managers.get<IdParams>('/apis/:id/edit', async (request, reply) => {
      const api = backendFor(request);
      if (typeof api === 'string') return refusedPage(reply, api);
      return renderForm(reply, { form: formFromBackend(api), id: api.id, version: api.updated_at });
    });

    // API Umbrella's reordering (the admin API's move_after): of two backends on one host and prefix, the first gets the requests.
    managers.post<IdParams>('/apis/:id/move', async (request, reply) => {
      const api = backendFor(request);
      if (typeof api === 'string') return refusedPage(reply, api);
      const afterId = textOf(decodeNestedForm(request.body), 'after_id');
      const moved = moveApiBackend(backends, api.id, afterId === '' ? null : afterId, { by: request.admin!.email, access: accessOf(context, request) });
      if (moved === 'not_found') return notFound(reply);
      // Deleted since the page was shown: the page again, saying so.
      if (moved === 'after_not_found') return redirectWithFlash(reply, `/admin/apis/${api.id}/edit`, 'error', 'The API backend chosen to move it after no longer exists. Choose again.');
      if (moved !== 'moved') return renderForbiddenPage(context, reply, BACK);
      return redirectWithFlash(reply, `/admin/apis/${api.id}/edit`, 'success', `Moved the API backend "${api.name}". Publish the change to make it live.`);
    });

    managers.post<IdParams>('/apis/:id', async (request, reply) => {
      const api = backendFor(request);
      if (typeof api === 'string') return refusedPage(reply, api);
      return submit(reply, request.body, api);
    });

    managers.get<IdParams>('/apis/:id/delete', async (request, reply) => {
      const api = backendFor(request);
      if (typeof api === 'string') return refusedPage(reply, api);
      const live = publisher.current.apis.some((published) => published.id === api.id);
      return renderAdminPage(context, reply, 'admin/apis/delete', { title: `Delete ${api.name}`, section: 'apis', api, live });
    });

    managers.post<IdParams>('/apis/:id/delete', async (request, reply) => {
      const api = backendFor(request);
      if (typeof api === 'string') return refusedPage(reply, api);
      if (!backends.delete(api.id)) return notFound(reply);
      const live = publisher.current.apis.some((published) => published.id === api.id);
      const next = live ? ' It stays live until you publish the change.' : '';
      return redirectWithFlash(reply, '/admin/apis', 'success', `Deleted the API backend "${api.name}".${next}`);
    });
  });

  /** The backend the URL names, or why the admin may not open it. */
  function backendFor(request: FastifyRequest<IdParams>): ApiBackend | 'not_found' | 'not_theirs' {
    const api = backends.get(request.params.id);
    if (api === null) return 'not_found';
    return mayManage(accessOf(context, request), api) ? api : 'not_theirs';
  }

  function refusedPage(reply: FastifyReply, why: 'not_found' | 'not_theirs') {
    return why === 'not_found' ? notFound(reply) : renderForbiddenPage(context, reply, BACK);
  }

  /** `edited`: the backend as stored; null for a new one. */
  async function submit(reply: FastifyReply, body: unknown, edited: ApiBackend | null) {
    const id = edited?.id ?? null;
    const tree = decodeNestedForm(body);
    const posted = postedVersion(body);
    // Shown again, the form keeps the version it was filled from (one from an older page, without it, takes the backend's).
    const version = posted ?? edited?.updated_at;
    const rowAction = rowActionOf(tree);
    if (rowAction !== null) return renderForm(reply, { form: formAfterRowAction(tree, rowAction, formFromSubmission, BLANK_ROWS), id, version });
    const form = formFromSubmission(tree);
    if (edited !== null && version !== edited.updated_at) return renderConflict(reply, form, edited);
    const { input, errors: formErrors } = backendInput(form, edited);
    if (hasErrors(formErrors)) {
      // Nothing is saved while a field the form reads itself (error data) is wrong; the rest is checked too, so every problem shows at once.
      const parsed = parseApiBackend(input);
      return renderForm(reply, { form, id, version, errors: { ...formErrors, ...(parsed.ok ? {} : parsed.errors) } }, 422);
    }
    const access = accessOf(context, reply.request);
    const save = () => saveApiBackend(backends, input, { id: id ?? undefined, by: reply.request.admin!.email, access, live: context.publisher.current.apis, adminHosts: context.config.admin.hosts });
    // The check with the write: another process (the CLI) may have changed the backend since it was read.
    const saved = id === null || posted === null ? save() : backends.ifUnchanged(id, posted, save);
    if (saved === 'conflict') return renderConflict(reply, form, backends.get(id!));
    if (saved === null) return notFound(reply);
    if (!saved.ok) return renderForm(reply, { form, id, version, errors: 'refused' in saved ? refusalErrors(saved.refused, access) : saved.errors }, 422);
    const verb = id === null ? 'Added' : 'Saved';
    return redirectWithFlash(reply, '/admin/apis', 'success', `${verb} the API backend "${saved.value.name}". Publish the change to make it live.`);
  }

  /**
   * A save refused because the backend changed after the form was filled:
   * the form again with what the admin typed, the backend's current version
   * (so that saving again keeps their values) and what now differs; 404 once
   * deleted.
   */
  function renderConflict(reply: FastifyReply, form: ApiBackendForm, current: ApiBackend | null) {
    if (current === null) return notFound(reply);
    const fields = differingFields(formFromBackend(current), form).map(conflictLabel);
    const errors = editConflictErrors({ record: 'API backend', by: current.updated_by, at: current.updated_at, fields }, reply.request.admin!.email);
    return renderForm(reply, { form, id: current.id, version: current.updated_at, errors }, 409);
  }

  /** `version`: the backend's as the form was filled (record_version); none for a new one. */
  function renderForm(reply: FastifyReply, data: { form: ApiBackendForm; id: string | null; version?: string; errors?: FieldErrors }, status = 200) {
    const errors = new FormErrors(readableMessages(besideTheirRows(data.errors ?? {})), backendFieldLabel);
    const title = data.id === null ? 'Add API Backend' : `Edit ${data.form.name || 'API Backend'}`;
    const position = data.id === null ? null : positionOf(data.id, accessOf(context, reply.request));
    const example = requestExample(data.form, context.config.listen.https_port === null ? 'http' : 'https');
    const options = { ...formOptions, rolesHint: rolesInUseHint(rolesInUseFor(context, accessOf(context, reply.request))) };
    return renderAdminPage(context, reply, 'admin/apis/form', { title, section: 'apis', ...data, errors, options, blankSub: blankSubSetting(), blankRewrite: BLANK_ROWS.rewrites(), position, example }, status);
  }

  /**
   * The host the admin reaches the gateway by (public_url's, else the
   * request's, without its port), which a new backend's Frontend Host starts
   * with, as in API Umbrella; empty when it is no plain host name or address.
   */
  /** A new backend's Frontend Host to start from; none on an admin host (admin.hosts), where no backend is served. */
  function publicHostname(request: FastifyRequest): string {
    const hostname = (context.config.public_url === null ? hostnameOf(request.host) : new URL(context.config.public_url).hostname).toLowerCase();
    return PLAIN_HOSTNAME.test(hostname) && !context.config.admin.hosts.includes(hostname) ? hostname : '';
  }

  /** Where a backend stands in the list, and the places the admin may move it to: first, or after a backend they manage. */
  function positionOf(id: string, access: AdminAccess): BackendPosition {
    const drafts = backends.list();
    const before = drafts[drafts.findIndex((api) => api.id === id) - 1];
    const after = drafts.filter((api) => api.id !== id && mayManage(access, api)).map((api) => ({ id: api.id, name: api.name }));
    return { afterId: before?.id ?? null, afterName: before === undefined ? null : mayManage(access, before) ? before.name : undefined, after };
  }

  function notFound(reply: FastifyReply) {
    return renderErrorPage(context, reply, 404, { title: 'API backend not found', message: 'It may have been deleted by another admin.', ...BACK });
  }
}

/**
 * For each draft, the prefixes it shares (same frontend host, same prefix)
 * with a backend listed before it, which gets their requests: prefix → that
 * backend's name, or null when it is not the admin's to see.
 */
function shadowedPrefixes(drafts: readonly ApiBackend[], visible: (api: ApiBackend) => boolean): Map<string, Map<string, string | null>> {
  const first = new Map<string, ApiBackend>();
  const shadowed = new Map<string, Map<string, string | null>>();
  for (const api of drafts) {
    for (const { frontend_prefix: prefix } of api.url_matches) {
      const key = `${api.frontend_host.toLowerCase()} ${prefix}`;
      const owner = first.get(key);
      if (owner === undefined) first.set(key, api);
      else if (owner.id !== api.id) {
        let prefixes = shadowed.get(api.id);
        if (prefixes === undefined) shadowed.set(api.id, (prefixes = new Map()));
        prefixes.set(prefix, visible(owner) ? owner.name : null);
      }
    }
  }
  return shadowed;
}

/** The form's lists of rows, as its sections name them. */
const ROW_LISTS: Readonly<Record<string, string>> = {
  servers: 'Servers',
  url_matches: 'Matching URL Prefixes',
  sub_settings: 'Sub-URL Request Settings',
  rewrites: 'URL Rewrites',
};

/** A field an edit conflict names: a list of rows by its section, the rest as errors name it ("Global Request Settings › Rate Limit"). */
function conflictLabel(field: string): string {
  return ROW_LISTS[field] ?? backendFieldLabel(field);
}

/** API Umbrella reports a backend without servers or URL prefixes under "base"; the form shows it beside those rows. */
function besideTheirRows(errors: FieldErrors): FieldErrors {
  const base = errors.base ?? [];
  const rows = (field: string) => base.filter((message) => message === `Must have at least one ${field}`);
  const moved = { servers: rows('servers'), url_matches: rows('url_matches') };
  const rest = base.filter((message) => !moved.servers.includes(message) && !moved.url_matches.includes(message));
  const { base: _base, ...others } = errors;
  return {
    ...others,
    ...(rest.length > 0 ? { base: rest } : {}),
    ...(moved.servers.length > 0 ? { servers: [...(others.servers ?? []), ...moved.servers] } : {}),
    ...(moved.url_matches.length > 0 ? { url_matches: [...(others.url_matches ?? []), ...moved.url_matches] } : {}),
  };
}

function readableMessages(errors: FieldErrors): FieldErrors {
  return Object.fromEntries(Object.entries(errors).map(([field, messages]) => [field, messages.map((message) => formMessage(field, message))]));
}
