// The page at /contact/: where every "contact us at …" in the gateway's error
// messages and welcome emails points unless contact_url sends people
// elsewhere. It gives the operators' address (contact_email) or says that
// none has been published, and never answers 404.
import type { Config } from '../config/schema.js';
import type { PageRoutes } from '../web/plugin.js';

/** Where the public pages' footer sends people: the configured contact_url, or this page. */
export function contactLink(config: Pick<Config, 'contact_url'>): string {
  return config.contact_url ?? '/contact/';
}

export const contactPage: PageRoutes = async (app, context) => {
  app.get('/contact', async (_request, reply) => reply.redirect('/contact/', 301));
  app.get('/contact/', async (_request, reply) => reply.view('contact/index', { contactEmail: context.config.contact_email }));
};
