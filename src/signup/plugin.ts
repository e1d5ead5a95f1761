// Developer signup: one Signups service (and its mailer) behind both the
// signup form and the JSON signup API.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { createMailer } from '../mailer/mailer.js';
import type { PageRoutes } from '../web/plugin.js';
import { signupApiPlugin } from './signup-api.js';
import { signupPages } from './signup-pages.js';
import { Signups } from './signups.js';

export interface SignupArea {
  /** The JSON signup API; register with prefix /api-umbrella/v1. Closing the app closes the mailer. */
  readonly api: (app: FastifyInstance) => Promise<void>;
  /** The /signup/ pages, for webPlugin's list. */
  readonly pages: PageRoutes;
}

export function signupArea(context: AppContext): SignupArea {
  const mailer = createMailer(context.config, context.logger);
  const signups = new Signups(context, mailer);
  const api = signupApiPlugin(context, signups);
  return {
    api: async (app) => {
      app.addHook('onClose', async () => mailer?.close());
      await api(app);
    },
    pages: signupPages(signups),
  };
}
