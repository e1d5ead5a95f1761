// The page at /contact/: where every "contact us at …" in the gateway's error
// messages and welcome emails points unless contact_url sends people
// elsewhere. It gives the operators' address (contact_email) or says that
// none has been published, and never answers 404.
import type { PageRoutes } from '../web/plugin.js';
import { CONTACT_PATH } from './contact-url.js';

export const contactPage: PageRoutes = async (app, context) => {
  app.get('/contact', async (_request, reply) => reply.redirect(CONTACT_PATH, 301));
  app.get(CONTACT_PATH, async (_request, reply) => reply.view('contact/index', { contactEmail: context.config.contact_email }));
};
