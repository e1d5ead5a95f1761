// The signed-in admin's access, read once per request however many checks
// the request makes, and API Umbrella's answer when an action is refused.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { forbiddenMessage, type AdminAccess } from './admin-access.js';

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
  return reply.code(403).send({ errors: [{ code: 'FORBIDDEN', message: forbiddenMessage(access) }] });
}
