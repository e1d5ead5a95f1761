// Analytics needs the analytics permission. An admin who is not a superuser
// holds it only within the API scopes of the groups that grant it, and sees
// only the requests there: every query of the pages and the JSON/CSV
// endpoints is limited here, once it is parsed.
import type { AdminAccess } from '../../admin-groups/admin-access.js';
import type { LogQuery } from '../query/log-query.js';

/** The query limited to the requests the admin may see; a superuser's is left as it is (every request, rollups allowed). */
export function withinAnalyticsScopes<Q extends LogQuery>(query: Q, access: AdminAccess): Q {
  const scopes = access.scopesWith('analytics');
  // Host and prefix only: the query is copied to the reader thread.
  return scopes === null ? query : { ...query, scopes: scopes.map(({ host, path_prefix }) => ({ host, path_prefix })) };
}
