// The web admin at /admin/: server-rendered pages, every form CSRF-checked,
// every page but the first-admin, sign-in and password-link pages behind a
// session.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { PageRoutes } from '../web/plugin.js';
import { adminAccountPages } from './admin-accounts.js';
import { adminGroupPages } from './admin-groups.js';
import { apiScopePages } from './api-scopes.js';
import { apiBackendPages } from './api-backends/pages.js';
import { apiUserPages } from './api-users/pages.js';
import { authPages } from './auth-pages.js';
import { authStatus } from './auth-status.js';
import { passwordPages } from './password-pages.js';
import type { PasswordLinks } from '../admins/password-links.js';
import { myAccountPages } from './my-account.js';
import { renderErrorPage, startPath } from './page.js';
import { accessOf } from '../admin-groups/request-access.js';
import { publishPages } from './publish-pages.js';
import { requireAdminSession } from './session-auth.js';
import type { Signups } from '../signup/signups.js';
import { routeFailure } from '../web/route-failure.js';
import { umbrellaPagePaths } from './umbrella-paths.js';

/**
 * `signups` creates API users with their welcome mail, as the signup API does
 * for admins; `passwordLinks` mails admins their reset and invite links.
 */
export const adminUiRoutes = (signups: Signups, passwordLinks: PasswordLinks): PageRoutes => async (app, context) => {
  umbrellaPagePaths(app);
  await app.register(
    async (admin) => {
      admin.setErrorHandler(errorPage(context));
      // Every state-changing form carries the token; GET pages never change anything, and no admin page takes
      // another method (a PUT or DELETE reaches the 404 below, not "This form has expired").
      admin.addHook('preHandler', (request, reply, done) => {
        if (request.method !== 'POST') return done();
        admin.csrfProtection(request, reply, done);
      });
      authPages(admin, context, passwordLinks);
      authStatus(admin, context);
      passwordPages(admin, context, passwordLinks);
      await admin.register(async (signedIn) => {
        signedIn.addHook('preHandler', requireAdminSession(context));
        signedIn.get('/', async (request, reply) => reply.redirect(startPath(accessOf(context, request)), 303));
        apiBackendPages(signedIn, context);
        publishPages(signedIn, context);
        apiUserPages(signedIn, context, signups);
        adminAccountPages(signedIn, context, passwordLinks);
        apiScopePages(signedIn, context);
        adminGroupPages(signedIn, context);
        myAccountPages(signedIn, context);
        signedIn.all('/*', async (_request, reply) =>
          renderErrorPage(context, reply, 404, { title: 'Page not found', message: 'There is no admin page at this address.' }),
        );
      });
    },
    { prefix: '/admin' },
  );
};

const CSRF_ERRORS = new Set(['FST_CSRF_INVALID_TOKEN', 'FST_CSRF_MISSING_SECRET']);

/** Errors as pages in the admin's layout: a clear message, never a stack. */
function errorPage(context: AppContext) {
  return async function (this: FastifyInstance, error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    if (CSRF_ERRORS.has(error.code)) {
      return renderErrorPage(context, reply, 403, {
        title: 'This form has expired',
        message: 'For your security, forms are only valid for the page they came from. Go back, reload the page and try again.',
      });
    }
    const failure = routeFailure(error, request, reply, 'admin page');
    if (failure.kind === 'store') return renderErrorPage(context, reply, failure.status, { title: 'Not saved', message: failure.message });
    if (failure.kind === 'client') return renderErrorPage(context, reply, failure.status, { title: 'That did not work', message: failure.message });
    return renderErrorPage(context, reply, 500, {
      title: 'Something went wrong',
      message: 'Something went wrong on our side. The error has been logged; try again in a moment.',
    });
  };
}
