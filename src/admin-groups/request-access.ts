// The signed-in admin's access, read once per request however many checks
// the request makes, and API Umbrella's answer when an action is refused.
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { AppContext } from '../context.js';
import { forbiddenMessage, type AdminAccess } from './admin-access.js';
import type { Permission } from './model.js';

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

/** preHandler for admin API routes: 403 unless the admin holds the permission in some scope. */
export function requirePermission(context: AppContext, permission: Permission): preHandlerAsyncHookHandler {
  return async (request, reply) => {
    const access = accessOf(context, request);
    if (!access.has(permission)) return sendForbidden(reply, access);
  };
}
