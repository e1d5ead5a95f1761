// Developer signup: one Signups service (and its mailer) behind both the
// signup form and the JSON signup API. The same mailer tells users of their
// key's coming end.
import type { FastifyInstance } from 'fastify';
import { KeyExpiryNotices } from '../api-users/expiry-notices.js';
import type { AppContext } from '../context.js';
import type { Mailer } from '../mailer/mailer.js';
import type { PageRoutes } from '../web/plugin.js';
import { signupApiPlugin } from './signup-api.js';
import { signupPages } from './signup-pages.js';
import { siteInfo, Signups } from './signups.js';

export interface SignupArea {
  /** The JSON signup API; register with prefix /api-umbrella/v1. */
  readonly api: (app: FastifyInstance) => Promise<void>;
  /** The /signup/ pages, for webPlugin's list. */
  readonly pages: PageRoutes;
  /** The gateway's mail (null: mailer.smtp not set), for the contact API too: the context's, which closes it. */
  readonly mailer: Mailer | null;
  /** Key creation with its welcome mail, for the admin's Add API User form too. */
  readonly signups: Signups;
}

export function signupArea(context: AppContext): SignupArea {
  const { config } = context;
  const { mailer } = context;
  const signups = new Signups(context, mailer);
  const api = signupApiPlugin(context, signups);
  const noticeDays = config.mailer.key_expiry_notice_days;
  const notices = mailer === null || noticeDays === 0 ? null : new KeyExpiryNotices({ users: context.users, mailer, site: siteInfo(config), clock: context.clock, logger: context.logger, noticeDays });
  return {
    api: async (app) => {
      app.addHook('onReady', async () => notices?.start());
      // The mailer is the process's (context.ts): a reload's retired app leaves mails waiting for a retry to it.
      app.addHook('onClose', async () => notices?.stop());
      await api(app);
    },
    pages: signupPages(signups),
    mailer,
    signups,
  };
}
