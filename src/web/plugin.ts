// Server-rendered pages (admin, signup, homepage) share one encapsulated
// scope: cookies, form bodies, CSRF, templates, static assets and security
// headers apply here and never to proxied responses.
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyInstance } from 'fastify';
import { dirname } from 'node:path';
import type { AppContext } from '../context.js';
import { contactUrl } from '../contact/contact-url.js';
import { PARASOL_VERSION } from '../lib/parasol-version.js';
import { keepOutOfCaches } from '../lib/no-store.js';
import { packagePath } from '../lib/package-path.js';
import { AdminHosts, isAdminRoute } from './admin-hosts.js';
import { linkedAssetsVersion, PICO_CSS_FILE } from './asset-version.js';
import { answerAtCanonicalPath } from './canonical-path.js';
import { redirectPagesToHttps } from './https-only.js';

// Pico CSS is served straight from its package, so there is no copy to keep in step.
const PICO_CSS_DIR = dirname(PICO_CSS_FILE);

export type PageRoutes = (app: FastifyInstance, context: AppContext) => Promise<void>;

export function webPlugin(context: AppContext, areas: readonly PageRoutes[]) {
  return async (app: FastifyInstance): Promise<void> => {
    // First: a page is answered at its canonical path only, and off the admin's hosts its pages answer as no page at all, HTTPS or not.
    app.addHook('onRequest', answerAtCanonicalPath(context.config));
    const adminHosts = AdminHosts.of(context);
    if (adminHosts !== null) {
      app.addHook('onRequest', async (request, reply) => {
        if (isAdminRoute(request)) adminHosts.refuseOffHost(request, reply);
      });
    }
    const toHttps = redirectPagesToHttps(context.config);
    if (toHttps !== null) app.addHook('onRequest', toHttps);
    await app.register(cookie, { secret: context.secretKey });
    await app.register(formbody);
    await app.register(csrf, {
      cookieKey: 'parasol_csrf',
      cookieOpts: { path: '/', httpOnly: true, sameSite: 'lax', signed: true, secure: 'auto' },
    });
    await app.register(helmet, {
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'data:'],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          // Helmet's default would send plain-HTTP installs' CSS, JS and forms to an https:// that is not there.
          upgradeInsecureRequests: null,
        },
      },
      frameguard: { action: 'deny' },
      // Sent, when the operator asks, by the HTTPS listener on every answer (tls.http_strict_transport_security), never here over plain HTTP.
      hsts: false,
    });
    await app.register(view, {
      engine: { eta: new Eta() },
      root: packagePath('views'),
      viewExt: 'eta',
      defaultContext: { siteName: context.config.site_name, contactUrl: contactUrl(context.config, ''), assetVersion: linkedAssetsVersion(), parasolVersion: PARASOL_VERSION },
    });
    // The layout links them by their content's version (asset-version.ts): kept a year, never revalidated.
    const caching = { maxAge: '365d', immutable: true };
    await app.register(fastifyStatic, { root: packagePath('public'), prefix: '/assets/', ...caching });
    await app.register(fastifyStatic, { root: PICO_CSS_DIR, prefix: '/assets/pico/', ...caching, decorateReply: false });
    // Admin pages set it from the session (see src/admin-ui/session-auth.ts).
    app.decorateRequest('admin', null);
    // The admin's pages before sign-in too: they carry a CSRF token, which Back must not bring up stale.
    keepOutOfCaches(app, (request) => request.admin !== null || request.url.startsWith('/admin/'));
    for (const area of areas) await area(app, context);
  };
}
