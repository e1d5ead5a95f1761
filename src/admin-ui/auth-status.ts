// GET /admin/auth: whether the browser's session is signed in, as API
// Umbrella's admin asks it: JSON, never a redirect to the sign-in page, so a
// script or a page's own JavaScript can ask without following one.
import type { FastifyInstance } from 'fastify';
import type { Admin } from '../admins/repository.js';
import { PERMISSION_IDS } from '../admin-groups/model.js';
import type { AppContext } from '../context.js';
import { sessionAdmin } from './session-auth.js';

export function authStatus(app: FastifyInstance, context: AppContext): void {
  for (const url of ['/auth', '/auth.json']) {
    app.get(url, async (request) => {
      request.admin = sessionAdmin(context, request);
      return request.admin === null ? { authenticated: false } : signedIn(context, request.admin);
    });
  }
}

/**
 * API Umbrella's fields that Parasol has. Not its `admin_auth_token` (Parasol
 * keeps only the token's hash), `api_key` (the web admin calls no API with a
 * key), `api_umbrella_version` nor `elasticsearch_template_version`.
 */
function signedIn(context: AppContext, admin: Admin) {
  const access = context.adminGroups.accessOf(admin);
  return {
    authenticated: true,
    admin: {
      id: admin.id,
      email: admin.email,
      username: admin.email,
      superuser: admin.superuser,
      // Whether a group grants it anywhere, as API Umbrella's allows_permission.
      permissions: Object.fromEntries(PERMISSION_IDS.map((permission) => [permission, access.has(permission)])),
    },
    analytics_timezone: context.config.analytics.timezone,
    // Parasol's admins are known by their email and sign in with a password, always.
    username_is_email: true,
    local_auth_enabled: true,
    password_length_min: context.config.admin.password_min_length,
  };
}
