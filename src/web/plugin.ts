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
import type { AppContext } from '../context.js';
import { packagePath } from '../lib/package-path.js';

export type PageRoutes = (app: FastifyInstance, context: AppContext) => Promise<void>;

export function webPlugin(context: AppContext, areas: readonly PageRoutes[]) {
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(cookie, { secret: context.secretKey });
    await app.register(formbody);
    await app.register(csrf, {
      cookieKey: 'parasol_csrf',
      cookieOpts: { path: '/', httpOnly: true, sameSite: 'lax', signed: true },
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
        },
      },
      frameguard: { action: 'deny' },
      // HSTS only makes sense behind HTTPS, which the operator's TLS terminator decides.
      hsts: false,
    });
    await app.register(view, {
      engine: { eta: new Eta() },
      root: packagePath('views'),
      viewExt: 'eta',
      defaultContext: { siteName: context.config.site_name },
    });
    await app.register(fastifyStatic, { root: packagePath('public'), prefix: '/assets/', maxAge: '1h' });
    for (const area of areas) await area(app, context);
  };
}
