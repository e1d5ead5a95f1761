// /api-umbrella/v1/user_roles: the API roles in use, which the forms of API
// users and backends offer, as API Umbrella answers them
// ({"user_roles":[{"id":…},…]}): those users hold and those draft or live
// backends require. A superuser gets every one; another admin those they
// may use (src/admin-groups/role-policy.ts), as API Umbrella's
// api_role_policy hides the roles of backends beyond the admin's
// user_manage and backend_manage scopes, and Parasol's own "api-umbrella-…"
// roles but the key creator's. API Umbrella answers any admin; here, as for
// every call, an admin whose groups grant nothing it concerns (user_view,
// user_manage or backend_manage) gets 403.
import type { FastifyInstance } from 'fastify';
import { accessOf, guard, requirePermission } from '../admin-groups/request-access.js';
import { rolesInUseFor } from '../admin-groups/role-policy.js';
import type { AppContext } from '../context.js';
import { withJsonSuffix } from './routes.js';

export function userRoleRoutes(app: FastifyInstance, context: AppContext): void {
  app.register(async (readers) => {
    guard(readers, requirePermission(context, 'user_view', 'user_manage', 'backend_manage'));

    withJsonSuffix(readers, 'GET', '/user_roles', async (request) => ({ user_roles: rolesInUseFor(context, accessOf(context, request)).map((id) => ({ id })) }));
  });
}
