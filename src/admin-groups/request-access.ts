// The signed-in admin's access, read once per request however many checks
// the request makes, and API Umbrella's answer when an action is refused.
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { AppContext } from '../context.js';
import { forbiddenMessage, type AdminAccess } from './admin-access.js';
import { ManagePolicy } from './manage-policy.js';
import type { Permission } from './model.js';
import { roleRequirers } from './role-policy.js';
import { userChangeRefusal } from './user-policy.js';

const byRequest = new WeakMap<FastifyRequest, AdminAccess>();

/** For a request that passed the admin authentication (request.admin is set). */
export function accessOf(context: AppContext, request: FastifyRequest): AdminAccess {
  let access = byRequest.get(request);
  if (access === undefined) {
    access = context.adminGroups.accessOf(request.admin!);
    byRequest.set(request, access);
  }
  return access;
}

/** 403 in API Umbrella's shape: {"errors":[{"code":"FORBIDDEN","message":…}]}. */
export function sendForbidden(reply: FastifyReply, access: AdminAccess): FastifyReply {
  return sendForbiddenBecause(reply, forbiddenMessage(access));
}

/** 403 FORBIDDEN with a message of its own (a refused role, say). */
export function sendForbiddenBecause(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(403).send({ errors: [{ code: 'FORBIDDEN', message }] });
}

/** onRequest hook for admin API routes (before the body is read): 403 unless the admin holds one of the permissions in some scope. */
export function requirePermission(context: AppContext, ...permissions: Permission[]): onRequestAsyncHookHandler {
  return async (request, reply) => {
    const access = accessOf(context, request);
    if (!access.has(...permissions)) return sendForbidden(reply, access);
  };
}

/** onRequest hook for admin API routes only superusers may call, reading included. */
export function requireSuperuser(context: AppContext): onRequestAsyncHookHandler {
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

/** What the request's admin may manage with admin_manage (everything, for a superuser). */
export function managePolicyOf(context: AppContext, request: FastifyRequest): ManagePolicy {
  return new ManagePolicy(accessOf(context, request), context.adminGroups);
}
