import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Admin, AdminRepository } from '../admins/repository.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The admin the request is authenticated as (admin API token or session). */
    admin: Admin | null;
  }
}

export const UNAUTHENTICATED_MESSAGE = 'You need to sign in or sign up before continuing.';

/** The admin named by X-Admin-Auth-Token; an X-Api-Key sent beside it is accepted and ignored. */
export function adminFromToken(request: FastifyRequest, admins: AdminRepository): Admin | null {
  return presentsAdminToken(request) ? admins.findByToken(request.headers['x-admin-auth-token'] as string) : null;
}

/** Whether the request carries an X-Admin-Auth-Token, good or not. */
export function presentsAdminToken(request: FastifyRequest): boolean {
  const token = request.headers['x-admin-auth-token'];
  return typeof token === 'string' && token !== '';
}

/**
 * onRequest, and again as a preHandler once the body is in: an admin whose
 * token was regenerated, or who was disabled or deleted, while a slow body
 * arrived is refused then, and the checks after it (see guard) judge the
 * admin's rights as they are now.
 */
export function requireAdminToken(admins: AdminRepository) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    request.admin = adminFromToken(request, admins);
    if (request.admin === null) await reply.code(401).send({ error: UNAUTHENTICATED_MESSAGE });
  };
}

