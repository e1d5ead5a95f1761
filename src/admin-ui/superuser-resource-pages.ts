// Web admin pages for what only superusers manage (API scopes, admin groups):
// a list, add, edit, and delete after a confirmation page, at
// /admin/<path> with the views views/admin/<path>/index and form and the
// shared admin/confirm-delete. Any other admin gets the 403 page.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import type { FieldErrors, Parsed } from '../lib/validation-errors.js';
import { redirectWithFlash } from './flash.js';
import { FormErrors } from './form-errors.js';
import { renderAdminPage, renderErrorPage } from './page.js';
import { renderForbiddenPage } from './page-access.js';

export interface PageResource<F, T extends F & { readonly id: string; readonly name: string }> {
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
  /** Creates without `id`; null when there is nothing with that id. */
  save(form: F, id?: string): Parsed<T> | null;
  /** value: whether there was such a record; errors when it may not go. */
  delete(id: string): Parsed<boolean>;
  /** What the list shows. */
  listData(): Record<string, unknown>;
  /** What the form offers to choose from. */
  formChoices(): Record<string, unknown>;
  /** What deleting it does, one paragraph each, for the confirmation page. */
  deleteConsequences(record: T): string[];
}

type IdParams = { Params: { id: string } };

const SECTION = 'admins';

export function superuserResourcePages<F, T extends F & { readonly id: string; readonly name: string }>(app: FastifyInstance, context: AppContext, resource: PageResource<F, T>): void {
  const listPath = `/admin/${resource.path}`;
  const back = { backHref: listPath, backLabel: `Back to ${resource.plural}`, section: SECTION } as const;
  const titled = resource.singular.replace(/\b[a-z]/g, (letter) => letter.toUpperCase());

  app.register(async (superusers) => {
    superusers.addHook('preHandler', async (request, reply) => {
      if (request.admin!.superuser) return;
      // The default way back (the admin's start page): the list would refuse them too.
      return renderForbiddenPage(context, reply, { section: SECTION });
    });

    superusers.get(`/${resource.path}`, async (_request, reply) =>
      renderAdminPage(context, reply, `admin/${resource.path}/index`, { title: resource.plural, section: SECTION, ...resource.listData() }),
    );

    superusers.get(`/${resource.path}/new`, async (_request, reply) => renderForm(reply, { form: resource.blankForm(), target: null }));

    superusers.post(`/${resource.path}`, async (request, reply) => submit(reply, request.body, null));

    superusers.get<IdParams>(`/${resource.path}/:id/edit`, async (request, reply) => {
      const target = resource.get(request.params.id);
      return target === null ? notFound(reply) : renderForm(reply, { form: target, target });
    });

    superusers.post<IdParams>(`/${resource.path}/:id`, async (request, reply) => {
      const target = resource.get(request.params.id);
      return target === null ? notFound(reply) : submit(reply, request.body, target);
    });

    superusers.get<IdParams>(`/${resource.path}/:id/delete`, async (request, reply) => {
      const target = resource.get(request.params.id);
      if (target === null) return notFound(reply);
      const consequences = resource.deleteConsequences(target);
      return renderAdminPage(context, reply, 'admin/confirm-delete', { title: `Delete ${target.name}`, section: SECTION, target, consequences, listPath, plural: resource.plural, titled });
    });

    superusers.post<IdParams>(`/${resource.path}/:id/delete`, async (request, reply) => {
      const target = resource.get(request.params.id);
      if (target === null) return notFound(reply);
      const deleted = resource.delete(target.id);
      if (!deleted.ok) return redirectWithFlash(reply, listPath, 'error', Object.values(deleted.errors).flat().join(' '));
      if (!deleted.value) return notFound(reply);
      return redirectWithFlash(reply, listPath, 'success', `Deleted the ${resource.singular} “${target.name}”.`);
    });
  });

  async function submit(reply: FastifyReply, body: unknown, target: T | null) {
    const form = resource.formFromBody(body);
    const saved = resource.save(form, target?.id);
    if (saved === null) return notFound(reply);
    if (!saved.ok) return renderForm(reply, { form, target, errors: saved.errors }, 422);
    return redirectWithFlash(reply, listPath, 'success', `${target === null ? 'Added' : 'Saved'} the ${resource.singular} “${saved.value.name}”.`);
  }

  function renderForm(reply: FastifyReply, data: { form: F; target: T | null; errors?: FieldErrors }, status = 200) {
    const errors = new FormErrors(data.errors ?? {}, (field) => resource.labels[field] ?? field);
    const title = data.target === null ? `Add ${titled}` : `Edit ${data.target.name}`;
    return renderAdminPage(context, reply, `admin/${resource.path}/form`, { title, section: SECTION, ...data, errors, ...resource.formChoices() }, status);
  }

  function notFound(reply: FastifyReply) {
    return renderErrorPage(context, reply, 404, { title: `${titled} not found`, message: 'It may have been deleted by another admin.', ...back });
  }
}
