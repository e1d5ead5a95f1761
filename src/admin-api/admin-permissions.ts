// /api-umbrella/v1/admin_permissions: the permissions an admin group may
// grant, in the order the web admin lists them, as API Umbrella answers them
// ({"admin_permissions":[{id, name, display_order}]}), so that scripts can
// read the ids before making groups. As there, any admin may read them: they
// are the same for everyone and say nothing of anyone's groups.
import type { FastifyInstance } from 'fastify';
import { PERMISSIONS } from '../admin-groups/model.js';
import { withJsonSuffix } from './routes.js';

const ADMIN_PERMISSIONS = PERMISSIONS.map(({ id, label }, index) => ({ id, name: label, display_order: index + 1 }));

export function adminPermissionRoutes(app: FastifyInstance): void {
  withJsonSuffix(app, 'GET', '/admin_permissions', async () => ({ admin_permissions: ADMIN_PERMISSIONS }));
}
