// Signing admins in and out of the web admin, and the guard that protects
// admin pages. Other areas (analytics pages) use requireAdminSession too.
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Admin } from '../admins/repository.js';
import type { AppContext } from '../context.js';
import { perContext } from '../lib/per-context.js';
import { SessionStore } from './sessions.js';

export const SESSION_COOKIE = 'parasol_admin_session';
export const LOGIN_PATH = '/admin/login';
export const FIRST_ADMIN_PATH = '/admin/setup';

/** One session store per running Parasol. */
export const sessionStore = perContext((context): SessionStore => {
  const { session_idle_timeout_minutes: idle, session_max_age_hours: maxAge } = context.config.admin;
  return new SessionStore(context.db, context.clock, { idleMs: idle * 60_000, maxAgeMs: maxAge * 3_600_000 });
});

/** Starts a fresh session (a new id on every sign-in) and sets its cookie. */
export function startSession(context: AppContext, reply: FastifyReply, admin: Admin): void {
  const previous = reply.request.cookies[SESSION_COOKIE];
  if (previous !== undefined) sessionStore(context).destroy(previous);
  const id = sessionStore(context).create(admin.id);
  reply.setCookie(SESSION_COOKIE, id, {
    path: '/admin',
    httpOnly: true,
    sameSite: 'lax',
    // Secure whenever the admin was reached over HTTPS (directly or through a trusted proxy).
    secure: 'auto',
    // No Max-Age: a browser-session cookie, gone when the browser closes, as API Umbrella's without "Remember me";
    // the store ends the session itself after admin.session_idle_timeout_minutes and session_max_age_hours.
  });
}

export function endSession(context: AppContext, request: FastifyRequest, reply: FastifyReply): void {
  const id = request.cookies[SESSION_COOKIE];
  if (id !== undefined) sessionStore(context).destroy(id);
  reply.clearCookie(SESSION_COOKIE, { path: '/admin' });
}

/** The enabled admin behind the request's session cookie, or null (a disabled admin's session ended, should one be left). */
export function sessionAdmin(context: AppContext, request: FastifyRequest): Admin | null {
  const id = request.cookies[SESSION_COOKIE];
  if (id === undefined || id === '') return null;
  const session = sessionStore(context).use(id);
  if (session === null) return null;
  const admin = context.admins.get(session.adminId);
  if (admin === null || !admin.enabled) {
    sessionStore(context).destroy(id);
    return null;
  }
  return admin;
}

/**
 * preHandler (or onRequest) hook for admin pages: sets request.admin, or
 * sends the browser to sign in (or to create the first admin on a fresh
 * install) and back to the page it asked for afterwards.
 */
export function requireAdminSession(context: AppContext): preHandlerAsyncHookHandler {
  return async (request, reply) => {
    request.admin = sessionAdmin(context, request);
    if (request.admin !== null) return;
    if (context.admins.count() === 0) return reply.redirect(FIRST_ADMIN_PATH, 303);
    const back = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
    return reply.redirect(`${LOGIN_PATH}${back}`, 303);
  };
}

/** Where to go after sign-in: only a path inside the admin, never another site. */
export function safeNextPath(next: unknown): string {
  return typeof next === 'string' && /^\/admin\/[^/\\]/.test(next) && !/[\r\n]/.test(next) ? next : '/admin/';
}
