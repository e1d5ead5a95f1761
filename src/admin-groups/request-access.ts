// The signed-in admin's access, read once per request however many checks
// the request makes (and again when the admin is read again), and API
// Umbrella's answer when an action is refused.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Admin } from '../admins/repository.js';
import type { AppContext } from '../context.js';
import { forbiddenMessage, type AdminAccess } from './admin-access.js';
import { ManagePolicy } from './manage-policy.js';
import type { Permission } from './model.js';
import { roleRequirers } from './role-policy.js';
import { userChangeRefusal } from './user-policy.js';

/** The access of the admin object it was read for: an admin read again (see guard) is judged afresh. */
const byRequest = new WeakMap<FastifyRequest, { readonly admin: Admin; readonly access: AdminAccess }>();

/** For a request that passed the admin authentication (request.admin is set). */
export function accessOf(context: AppContext, request: FastifyRequest): AdminAccess {
  const admin = request.admin!;
  const cached = byRequest.get(request);
  if (cached?.admin === admin) return cached.access;
  const access = context.adminGroups.accessOf(admin);
  byRequest.set(request, { admin, access });
  return access;
}

/** A check of the request's admin: it answers (and so ends the request) or lets it go on. */
export type AccessCheck = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * Runs the check twice: before the body is read (onRequest), so a refused
 * admin gets the same answer whatever they send, and once it is in
 * (preHandler), after the admin was read again from their token
 * (requireAdminToken in src/admin-api/auth.ts), so that rights taken away
 * while a slow body arrived count.
 */
export function guard(instance: FastifyInstance, check: AccessCheck): void {
  instance.addHook('onRequest', check);
  instance.addHook('preHandler', check);
}

/** 403 in API Umbrella's shape: {"errors":[{"code":"FORBIDDEN","message":…}]}. */
export function sendForbidden(reply: FastifyReply, access: AdminAccess): FastifyReply {
  return sendForbiddenBecause(reply, forbiddenMessage(access));
}

/** 403 FORBIDDEN with a message of its own (a refused role, say). */
export function sendForbiddenBecause(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(403).send({ errors: [{ code: 'FORBIDDEN', message }] });
}

/** For guard(): 403 unless the admin holds one of the permissions in some scope. */
export function requirePermission(context: AppContext, ...permissions: Permission[]): AccessCheck {
  return async (request, reply) => {
    const access = accessOf(context, request);
    if (!access.has(...permissions)) return sendForbidden(reply, access);
  };
}

/** For guard() on admin API routes only superusers may call, reading included. */
export function requireSuperuser(context: AppContext): AccessCheck {
  return async (request, reply) => {
    if (!request.admin!.superuser) return sendForbidden(reply, accessOf(context, request));
  };
}

/** Why the request's admin may not turn `user` (null: a new one) into one with the roles `after` (null: unchanged); null when they may. */
export function userRefusal(context: AppContext, request: FastifyRequest, user: { readonly roles: readonly string[] } | null, after: readonly string[] | null): string | null {
  const access = accessOf(context, request);
  // A superuser may do anything: no need to read every backend.
  return access.superuser ? null : userChangeRefusal(access, user, after, roleRequirers(context));
}

const policies = new WeakMap<FastifyRequest, ManagePolicy>();

/** What the request's admin may manage with admin_manage (everything, for a superuser); one per request, as long as the admin's access is the same. */
export function managePolicyOf(context: AppContext, request: FastifyRequest): ManagePolicy {
  const access = accessOf(context, request);
  const cached = policies.get(request);
  if (cached?.access === access) return cached;
  const policy = new ManagePolicy(access, context.adminGroups);
  policies.set(request, policy);
  return policy;
}
