// Web admin pages for what admins holding admin_manage manage within their
// scopes, and superusers everywhere (API scopes, admin groups): a list
// (searched as the admin API's list searches, 50 a page, the search and page
// in the URL), add, edit, and delete after a confirmation page, at
// /admin/<path> with the views views/admin/<path>/index and form and the
// shared admin/confirm-action. Admins holding admin_view (or admin_manage)
// may also list and open, read-only, what lies within their scopes, as in
// API Umbrella. Any other admin, or a record out of reach, gets the 403 page;
// a refused save shows the form again with the reason, and a save after
// another admin changed the record is refused, nothing saved, with what now
// differs (form-errors.ts). A resource may offer,
// as API Umbrella's admin does, to duplicate a record: the add form
// (`new?duplicate_id=`) filled from it, saved as any new one.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ADMIN_READERS } from '../admin-groups/admin-visibility.js';
import { isRefusal, type Judged, type ManagePolicy } from '../admin-groups/manage-policy.js';
import { accessOf, managePolicyOf } from '../admin-groups/request-access.js';
import type { AppContext } from '../context.js';
import type { FieldErrors } from '../lib/validation-errors.js';
import { formString } from './account-fields.js';
import { redirectWithFlash } from './flash.js';
import { differingFields, editConflictErrors, FormErrors, postedVersion } from './form-errors.js';
import { searchedPage } from './list-page.js';
import { renderAdminPage, renderErrorPage } from './page.js';
import { renderForbiddenPage } from './page-access.js';

/** A record the pages edit: its updated_at, which every write of it sets, is the version its edit form carries. */
type Edited<F> = F & { readonly id: string; readonly name: string; readonly updated_at: string };

export interface PageResource<F, T extends Edited<F>> {
  /** Under /admin/ and views/admin/, e.g. "api_scopes". */
  readonly path: string;
  /** The list's title, e.g. "API Scopes". */
  readonly plural: string;
  /** One of them in a sentence, e.g. "API scope". */
  readonly singular: string;
  /** Field names as the form labels them, for the errors' summary. */
  readonly labels: Readonly<Record<string, string>>;
  blankForm(): F;
  formFromBody(body: unknown): F;
  get(id: string): T | null;
  /** Whether the admin may change it. */
  manages(policy: ManagePolicy, record: T): boolean;
  /** Whether the admin may see it (all they manage, and more with admin_view). */
  reads(policy: ManagePolicy, record: T): boolean;
  /** Why the admin, who reads it, may not change it (the note atop its read-only page). */
  readOnlyReason(policy: ManagePolicy, record: T): string;
  /** Creates without `id`; null when there is nothing with that id. */
  save(policy: ManagePolicy, form: F, id?: string): Judged<T> | null;
  /** Runs `write` only while the record is still at `updatedAt`, in one transaction with that check; 'conflict' (nothing written) when not. */
  ifUnchanged<R>(id: string, updatedAt: string, write: () => R): R | 'conflict';
  /** value: whether there was such a record; errors when it may not go. */
  delete(policy: ManagePolicy, id: string): Judged<boolean>;
  /** What the list holds: what the admin reads, in the list's order. */
  listed(policy: ManagePolicy): readonly T[];
  /** Whether a record holds the list's search (never called with ''), as the admin API's list searches. */
  matches(record: T, search: string): boolean;
  /** What the list shows of a page of `listed`: its rows, each saying whether the admin manages it (`manageable`). */
  listRows(policy: ManagePolicy, page: readonly T[]): Record<string, unknown>;
  /** What the form offers to choose from (`form` is what it shows); when read-only, what it shows. */
  formChoices(policy: ManagePolicy, readOnly: boolean, form: F): Record<string, unknown>;
  /** More that the page of an existing record shows (read-only or not). */
  recordDetails?(policy: ManagePolicy, record: T): Record<string, unknown>;
  /** The add form filled from a record, for "Duplicate …" (offered to admins who may add); without it, none. */
  duplicate?(record: T): F;
  /** What deleting it does, one paragraph each, for the confirmation page. */
  deleteConsequences(policy: ManagePolicy, record: T): string[];
}

type IdParams = { Params: { id: string } };

const SECTION = 'admins' as const;

export function managedResourcePages<F extends object, T extends Edited<F>>(app: FastifyInstance, context: AppContext, resource: PageResource<F, T>): void {
  const listPath = `/admin/${resource.path}`;
  const back = { backHref: listPath, backLabel: `Back to ${resource.plural}`, section: SECTION } as const;
  const titled = resource.singular.replace(/\b[a-z]/g, (letter) => letter.toUpperCase());

  // Reading: the list and a record's page (read-only unless the admin manages it).
  app.register(async (readers) => {
    readers.addHook('preHandler', async (request, reply) => {
      if (accessOf(context, request).has(...ADMIN_READERS)) return;
      // The default way back (the admin's start page): the list would refuse them too.
      return renderForbiddenPage(context, reply, { section: SECTION });
    });

    // Only what the admin reads is searched and paged: the others are not theirs to see.
    readers.get(`/${resource.path}`, async (request, reply) => {
      const policy = policyOf(request);
      const theirs = resource.listed(policy);
      const { search, paging, rows: page } = searchedPage(theirs, request.query as Record<string, unknown>, resource.matches);
      const data = { title: resource.plural, section: SECTION, mayAdd: policy.access.has('admin_manage'), search, paging, shown: page.length, anyRecords: theirs.length > 0, ...resource.listRows(policy, page) };
      return renderAdminPage(context, reply, `admin/${resource.path}/index`, data);
    });

    readers.get<IdParams>(`/${resource.path}/:id/edit`, async (request, reply) => {
      const policy = policyOf(request);
      return withTarget(reply, policy, request.params.id, (target) => renderForm(reply, policy, { form: target, target, version: target.updated_at }), 'read');
    });
  });

  // Changing: superusers, and admin_manage holders for what they manage.
  app.register(async (managers) => {
    managers.addHook('preHandler', async (request, reply) => {
      const access = accessOf(context, request);
      if (access.has('admin_manage')) return;
      // Readers may go back to the list; others to their start page.
      return renderForbiddenPage(context, reply, access.has(...ADMIN_READERS) ? back : { section: SECTION });
    });

    // With ?duplicate_id=, filled from a record the admin reads (another is answered as one that is not there).
    managers.get(`/${resource.path}/new`, async (request, reply) => {
      const policy = policyOf(request);
      const duplicateId = formString(request.query, 'duplicate_id');
      if (duplicateId === '' || resource.duplicate === undefined) return renderForm(reply, policy, { form: resource.blankForm(), target: null });
      return withTarget(reply, policy, duplicateId, (source) => renderForm(reply, policy, { form: resource.duplicate!(source), target: null, source }), 'read');
    });

    managers.post(`/${resource.path}`, async (request, reply) => submit(reply, policyOf(request), request.body, null));

    managers.post<IdParams>(`/${resource.path}/:id`, async (request, reply) => {
      const policy = policyOf(request);
      return withTarget(reply, policy, request.params.id, (target) => submit(reply, policy, request.body, target));
    });

    managers.get<IdParams>(`/${resource.path}/:id/delete`, async (request, reply) =>
      withTarget(reply, policyOf(request), request.params.id, async (target, policy) => {
        const consequences = resource.deleteConsequences(policy, target);
        return renderAdminPage(context, reply, 'admin/confirm-action', {
          title: `Delete ${target.name}`,
          section: SECTION,
          question: `Delete “${target.name}”?`,
          consequences,
          button: `Delete ${titled}`,
          danger: true,
          back: { href: listPath, label: resource.plural },
          action: `${listPath}/${target.id}/delete`,
          fields: [],
        });
      }),
    );

    managers.post<IdParams>(`/${resource.path}/:id/delete`, async (request, reply) => {
      const policy = policyOf(request);
      return withTarget(reply, policy, request.params.id, async (target) => {
        const deleted = resource.delete(policy, target.id);
        if (!deleted.ok) return redirectWithFlash(reply, listPath, 'error', isRefusal(deleted) ? deleted.refused : Object.values(deleted.errors).flat().join(' '));
        if (!deleted.value) return notFound(reply);
        return redirectWithFlash(reply, listPath, 'success', `Deleted the ${resource.singular} “${target.name}”.`);
      });
    });
  });

  function policyOf(request: FastifyRequest): ManagePolicy {
    return managePolicyOf(context, request);
  }

  /** The record, when it exists and the admin manages it (or, to read it, reads it); the 404 or 403 page otherwise. */
  async function withTarget(reply: FastifyReply, policy: ManagePolicy, id: string, then: (target: T, policy: ManagePolicy) => Promise<FastifyReply>, to: 'manage' | 'read' = 'manage') {
    const target = resource.get(id);
    if (target === null) return notFound(reply);
    if (to === 'read' ? resource.reads(policy, target) : resource.manages(policy, target)) return then(target, policy);
    return renderForbiddenPage(context, reply, back, (to === 'read' ? policy.readRefusal() : policy.refusal()).refused);
  }

  async function submit(reply: FastifyReply, policy: ManagePolicy, body: unknown, target: T | null) {
    const form = resource.formFromBody(body);
    const posted = postedVersion(body);
    // Shown again, the form keeps the version it was filled from (one from an older page, without it, takes the record's).
    const version = posted ?? target?.updated_at;
    if (target !== null && version !== target.updated_at) return renderConflict(reply, policy, form, target);
    const save = () => resource.save(policy, form, target?.id);
    // The check with the write: another process (the CLI) may have changed the record since it was read.
    const saved = target === null || posted === null ? save() : resource.ifUnchanged(target.id, posted, save);
    if (saved === 'conflict') return renderConflict(reply, policy, form, resource.get(target!.id));
    if (saved === null) return notFound(reply);
    // A refused duplicate still says what it was duplicated from (when the admin still reads that).
    const duplicated = target === null ? duplicateSource(policy, formString(body, 'duplicate_id')) : null;
    const again = { form, target, version, ...(duplicated === null ? {} : { source: duplicated }) };
    if (isRefusal(saved)) return renderForm(reply, policy, { ...again, errors: { base: [saved.refused] } }, 403);
    if (!saved.ok) return renderForm(reply, policy, { ...again, errors: saved.errors }, 422);
    return redirectWithFlash(reply, listPath, 'success', `${target === null ? 'Added' : 'Saved'} the ${resource.singular} “${saved.value.name}”.`);
  }

  /**
   * A save refused because the record changed after the form was filled: the
   * form again with what the admin typed, the record's current version (so
   * that saving again keeps their values) and what now differs; 404 once
   * deleted. (These records keep no record of who changed them.)
   */
  function renderConflict(reply: FastifyReply, policy: ManagePolicy, form: F, current: T | null) {
    if (current === null) return notFound(reply);
    const fields = differingFields(current, form).map((field) => resource.labels[field] ?? field);
    const errors = editConflictErrors({ record: resource.singular, by: null, at: current.updated_at, fields }, reply.request.admin!.email);
    return renderForm(reply, policy, { form, target: current, version: current.updated_at, errors }, 409);
  }

  /** The record a new one is duplicated from, when there is one and the admin reads it. */
  function duplicateSource(policy: ManagePolicy, id: string): T | null {
    if (id === '' || resource.duplicate === undefined) return null;
    const source = resource.get(id);
    return source !== null && resource.reads(policy, source) ? source : null;
  }

  /**
   * The form; shown read-only, without its buttons, to an admin who reads the
   * record but does not manage it. `source`: the record a new one is
   * duplicated from ("Duplicated from …"). An existing record's page offers
   * "Duplicate …" to admins who may add one. `version`: the record's as the
   * form was filled (record_version); none for a new one.
   */
  function renderForm(reply: FastifyReply, policy: ManagePolicy, data: { form: F; target: T | null; version?: string; source?: T; errors?: FieldErrors }, status = 200) {
    const errors = new FormErrors(data.errors ?? {}, (field) => resource.labels[field] ?? field);
    const readOnly = data.target !== null && !resource.manages(policy, data.target) ? resource.readOnlyReason(policy, data.target) : null;
    const title = data.target === null ? `Add ${titled}` : readOnly === null ? `Edit ${data.target.name}` : data.target.name;
    const duplicateHref =
      data.target !== null && resource.duplicate !== undefined && policy.access.has('admin_manage') ? `${listPath}/new?duplicate_id=${encodeURIComponent(data.target.id)}` : null;
    const details = data.target === null ? {} : (resource.recordDetails?.(policy, data.target) ?? {});
    const view = {
      title,
      section: SECTION,
      source: null,
      ...data,
      errors,
      readOnly,
      duplicateHref,
      duplicateLabel: `Duplicate ${titled}`,
      ...details,
      ...resource.formChoices(policy, readOnly !== null, data.form),
    };
    return renderAdminPage(context, reply, `admin/${resource.path}/form`, view, status);
  }

  function notFound(reply: FastifyReply) {
    return renderErrorPage(context, reply, 404, { title: `${titled} not found`, message: 'It may have been deleted by another admin.', ...back });
  }
}
