// Analytics in the admin: the pages and the JSON/CSV endpoints for scripts.
import type { PageRoutes } from '../../web/plugin.js';
import { ReaderThread } from '../reader-thread.js';
import { analyticsPages } from './pages.js';
import { statsJsonRoutes } from './stats-json.js';

export const analyticsRoutes: PageRoutes = async (app, context) => {
  // Started by the first query; stopped with the server, so the process can exit.
  const reader = new ReaderThread(context.config.data_dir);
  app.addHook('onClose', () => reader.stop());
  // A scope of their own, for their JSON error handler.
  await app.register(async (stats) => statsJsonRoutes(stats, context, reader));
  analyticsPages(app, context, reader);
};
