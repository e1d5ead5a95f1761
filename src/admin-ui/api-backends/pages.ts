// Configuration › API Backends: list, add, edit and delete draft backends.
// Nothing here changes live traffic; Publish Changes does.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { BACKEND_PROTOCOLS, BALANCE_ALGORITHMS, HTTP_METHODS, REWRITE_MATCHER_TYPES } from '../../api-backends/model.js';
import { saveApiBackend } from '../../api-backends/service.js';
import type { AppContext } from '../../context.js';
import type { FieldErrors } from '../../lib/validation-errors.js';
import type { ChangeMode } from '../../publish/pending-changes.js';
import { redirectWithFlash } from '../flash.js';
import { FormErrors } from '../form-errors.js';
import { decodeNestedForm } from '../../lib/nested-form.js';
import { renderAdminPage, renderErrorPage } from '../page.js';
import { DURATION_UNITS, formMessage } from '../rate-limit-rows.js';
import { formAfterRowAction, rowActionOf } from '../row-actions.js';
import { BLANK_ROWS, backendFieldLabel, backendInput, blankSubSetting, emptyBackendForm, formFromBackend, formFromSubmission, type ApiBackendForm } from './form-model.js';

type IdParams = { Params: { id: string } };

const FORM_OPTIONS = { protocols: BACKEND_PROTOCOLS, balanceAlgorithms: BALANCE_ALGORITHMS, httpMethods: HTTP_METHODS, matcherTypes: REWRITE_MATCHER_TYPES, durationUnits: DURATION_UNITS };

export function apiBackendPages(app: FastifyInstance, context: AppContext): void {
  const { backends, publisher } = context;

  app.get('/apis', async (_request, reply) => {
    const changes = publisher.pendingChanges();
    const stateById = new Map<string, ChangeMode>();
    for (const mode of ['new', 'modified', 'identical'] as const) for (const change of changes[mode]) stateById.set(change.id, mode);
    const apis = backends.list().map((api) => ({ api, state: stateById.get(api.id) ?? 'new' }));
    return renderAdminPage(context, reply, 'admin/apis/index', { title: 'API Backends', section: 'apis', apis, deletedLive: changes.deleted.length });
  });

  app.get('/apis/new', async (_request, reply) => renderForm(reply, { form: emptyBackendForm(), id: null }));

  app.post('/apis', async (request, reply) => submit(reply, request.body, null));

  app.get<IdParams>('/apis/:id/edit', async (request, reply) => {
    const api = backends.get(request.params.id);
    if (api === null) return notFound(reply);
    return renderForm(reply, { form: formFromBackend(api), id: api.id });
  });

  app.post<IdParams>('/apis/:id', async (request, reply) => {
    if (backends.get(request.params.id) === null) return notFound(reply);
    return submit(reply, request.body, request.params.id);
  });

  app.get<IdParams>('/apis/:id/delete', async (request, reply) => {
    const api = backends.get(request.params.id);
    if (api === null) return notFound(reply);
    const live = publisher.current.apis.some((published) => published.id === api.id);
    return renderAdminPage(context, reply, 'admin/apis/delete', { title: `Delete ${api.name}`, section: 'apis', api, live });
  });

  app.post<IdParams>('/apis/:id/delete', async (request, reply) => {
    const api = backends.get(request.params.id);
    if (api === null || !backends.delete(api.id)) return notFound(reply);
    const live = publisher.current.apis.some((published) => published.id === api.id);
    const next = live ? ' It stays live until you publish the change.' : '';
    return redirectWithFlash(reply, '/admin/apis', 'success', `Deleted the API backend "${api.name}".${next}`);
  });

  async function submit(reply: FastifyReply, body: unknown, id: string | null) {
    const tree = decodeNestedForm(body);
    const rowAction = rowActionOf(tree);
    if (rowAction !== null) return renderForm(reply, { form: formAfterRowAction(tree, rowAction, formFromSubmission, BLANK_ROWS), id });
    const form = formFromSubmission(tree);
    const { input, errors: formErrors } = backendInput(form);
    const saved = saveApiBackend(backends, input, { id: id ?? undefined, by: reply.request.admin!.email });
    if (saved === null) return notFound(reply);
    if (!saved.ok || Object.keys(formErrors).length > 0) {
      const errors = { ...formErrors, ...(saved.ok ? {} : saved.errors) };
      return renderForm(reply, { form, id, errors }, 422);
    }
    const verb = id === null ? 'Added' : 'Saved';
    return redirectWithFlash(reply, '/admin/apis', 'success', `${verb} the API backend "${saved.value.name}". Publish the change to make it live.`);
  }

  function renderForm(reply: FastifyReply, data: { form: ApiBackendForm; id: string | null; errors?: FieldErrors }, status = 200) {
    const errors = new FormErrors(readableMessages(data.errors ?? {}), backendFieldLabel);
    const title = data.id === null ? 'Add API Backend' : `Edit ${data.form.name || 'API Backend'}`;
    return renderAdminPage(context, reply, 'admin/apis/form', { title, section: 'apis', ...data, errors, options: FORM_OPTIONS, blankSub: blankSubSetting(), blankRewrite: BLANK_ROWS.rewrites() }, status);
  }

  function notFound(reply: FastifyReply) {
    const back = { backHref: '/admin/apis', backLabel: 'Back to API Backends', section: 'apis' } as const;
    return renderErrorPage(context, reply, 404, { title: 'API backend not found', message: 'It may have been deleted by another admin.', ...back });
  }
}

function readableMessages(errors: FieldErrors): FieldErrors {
  return Object.fromEntries(Object.entries(errors).map(([field, messages]) => [field, messages.map((message) => formMessage(field, message))]));
}
