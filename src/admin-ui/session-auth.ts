// Signing admins in and out of the web admin, and the guard that protects
// admin pages. Other areas (analytics pages) use requireAdminSession too.
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Admin } from '../admins/repository.js';
import type { AppContext } from '../context.js';
import { perContext } from '../lib/per-context.js';
import { redirectWithFlash } from './flash.js';
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

/** What the sign-in page says when an ended session brought the browser there. */
export const SESSION_ENDED = 'Your session ended. Sign in again.';
const SESSION_ENDED_NOT_SAVED = 'Your session ended. Sign in again; what you were saving was not saved.';

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
    const reading = request.method === 'GET' || request.method === 'HEAD';
    const cookie = request.cookies[SESSION_COOKIE];
    // A first visit: nothing ended, nothing to say.
    if (reading && (cookie === undefined || cookie === '')) return reply.redirect(`${LOGIN_PATH}?next=${encodeURIComponent(request.url)}`, 303);
    if (reading) return reply.redirect(sessionEndedPath(request.url), 303);
    // A form sent without a live session (idle, too old, signed out in another tab) was not saved: say so once. The
    // page it was on is not known (the pages send no Referer), so sign-in leads to the admin's start.
    return redirectWithFlash(reply, sessionEndedPath(null), 'error', SESSION_ENDED_NOT_SAVED);
  };
}

/** The sign-in page saying the session ended (auth-pages.ts), then on to `next`. */
function sessionEndedPath(next: string | null): string {
  return `${LOGIN_PATH}?expired=1${next === null ? '' : `&next=${encodeURIComponent(next)}`}`;
}

/** Where to go after sign-in: only a path inside the admin, never another site. */
export function safeNextPath(next: unknown): string {
  return typeof next === 'string' && /^\/admin\/[^/\\]/.test(next) && !/[\r\n]/.test(next) && !next.startsWith(LOGOUT_PATH) ? next : '/admin/';
}

/** Not a page to land on after signing in. */
const LOGOUT_PATH = '/admin/logout';
