// Builds the Fastify app: the gateway's own endpoints first, then the
// catch-all that proxies everything else. Nothing here listens.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { adminApiPlugin } from './admin-api/plugin.js';
import { adminUiRoutes } from './admin-ui/plugin.js';
import { PasswordLinks } from './admins/password-links.js';
import { analyticsRoutes } from './analytics/routes/index.js';
import { keyValidationPlugin } from './api-users/validate-api.js';
import type { AppContext } from './context.js';
import { answerClientError } from './gateway/client-errors.js';
import { decorateClientIp } from './gateway/client-ip.js';
import { refuseMalformedUrl } from './gateway/gateway.js';
import type { PageHandler } from './gateway/gateway.js';
import { gatewayPlugin } from './gateway/plugin.js';
import { contactApiPlugin } from './contact/contact-api.js';
import { contactPage } from './contact/contact-page.js';
import { homepageHandler } from './homepage/homepage.js';
import type { OpenWork } from './lib/open-work.js';
import { signupArea } from './signup/plugin.js';
import { webPlugin } from './web/plugin.js';

/** `work` counts what the app serves while it runs (serve.ts retires a reloaded app once it is idle). */
export async function buildServer(context: AppContext, work?: OpenWork): Promise<FastifyInstance> {
  const { config } = context;
  // Before the app is made: a homepage file that cannot be read leaves nothing open (a reload keeps the running app).
  const homepage = await homepageHandler(context);
  const app = Fastify({
    loggerInstance: context.logger as FastifyBaseLogger,
    // The proxy logs every request as analytics; per-request log lines would only cost time.
    logController: new LogController({ disableRequestLogging: true }),
    // One reading of trusted_proxies for the whole app; the gateway's (proxy-trust.ts) decides the client IP everywhere.
    trustProxy: (address: string) => context.proxyTrust.isTrusted(address),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...clientKeepAlive(config.proxy.client_keep_alive_timeout_ms),
    routerOptions: { maxParamLength: 1000 },
    // A request without Host gets the gateway's own 400 in the client's format (request-url.ts), not Node's empty one.
    http: { maxHeaderSize: config.proxy.max_header_size, requireHostHeader: false },
    frameworkErrors: (_error, request, reply) => refuseMalformedUrl(config, request, reply),
    clientErrorHandler: answerClientError,
  });
  decorateClientIp(app, context.proxyTrust);
  try {
    await registerParts(app, context, homepage, work);
  } catch (error) {
    // What registered before the failure (the gateway's publisher subscription, timers) must not outlive it: a reload keeps the running app.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

async function registerParts(app: FastifyInstance, context: AppContext, homepage: PageHandler, work: OpenWork | undefined): Promise<void> {
  const signup = signupArea(context);
  // The admins' reset and invite mails, from the web admin and the admin API alike.
  const passwordLinks = new PasswordLinks(context, signup.mailer);
  await app.register(adminApiPlugin(context, passwordLinks), { prefix: '/api-umbrella/v1' });
  await app.register(signup.api, { prefix: '/api-umbrella/v1' });
  await app.register(contactApiPlugin(context, signup.mailer), { prefix: '/api-umbrella/v1' });
  await app.register(keyValidationPlugin(context), { prefix: '/api-umbrella' });
  await app.register(webPlugin(context, [adminUiRoutes(signup.signups, passwordLinks), signup.pages, contactPage, analyticsRoutes]));
  await app.register(gatewayPlugin(context, { homepage, work }));
}

/**
 * Idle client connections are kept this long; 0 keeps none, as nginx's
 * keepalive_timeout 0 in front of API Umbrella: each response says
 * `Connection: close` and its connection closes (Node's keepAliveTimeout 0
 * would instead keep an idle connection for ever).
 */
function clientKeepAlive(timeoutMs: number): { keepAliveTimeout: number; maxRequestsPerSocket: number } {
  return timeoutMs === 0 ? { keepAliveTimeout: 1, maxRequestsPerSocket: 1 } : { keepAliveTimeout: timeoutMs, maxRequestsPerSocket: 0 };
}
