// Analytics in the admin: the pages and the JSON/CSV endpoints for scripts.
import type { PageRoutes } from '../../web/plugin.js';
import { AnalyticsQueries } from '../log-queries.js';
import { analyticsPages } from './pages.js';
import { statsJsonRoutes } from './stats-json.js';

export const analyticsRoutes: PageRoutes = async (app, context) => {
  const queries = new AnalyticsQueries(context.db);
  statsJsonRoutes(app, context, queries);
  analyticsPages(app, context, queries);
};
