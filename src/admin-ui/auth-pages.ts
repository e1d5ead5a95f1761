// The pages before sign-in: the first admin account on a fresh install,
// sign in (with lockout, and "Forgot your password?" when it is offered:
// password-pages.ts) and sign out.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { PasswordLinks } from '../admins/password-links.js';
import type { AppContext } from '../context.js';
import type { FieldErrors } from '../lib/validation-errors.js';
import { emailProblem, newPasswordErrors } from '../admins/accounts.js';
import { formString } from './account-fields.js';
import { askToConfirm, type ActionQuestion } from './confirm-action.js';
import { redirectWithFlash } from './flash.js';
import { FormErrors } from './form-errors.js';
import { isLocked, loginThrottle } from './login-throttle.js';
import { inMinutes } from '../lib/time-format.js';
import { renderAdminPage } from './page.js';
import { endSession, FIRST_ADMIN_PATH, LOGIN_PATH, safeNextPath, SESSION_ENDED, sessionAdmin, startSession } from './session-auth.js';

const SIGN_OUT_QUESTION: ActionQuestion = {
  question: 'Sign out?',
  consequences: ['The web admin asks for your email and password again.'],
  button: 'Sign out',
  back: { href: '/admin/', label: 'Web admin' },
  section: 'account',
};

export const FIRST_ADMIN_EXISTS = 'An initial admin account already exists.';
export const LOGIN_FAILED = 'Invalid email or password.';

export function authPages(app: FastifyInstance, context: AppContext, links: PasswordLinks): void {
  const { admins } = context;
  const throttle = loginThrottle(context);
  const minLength = context.config.admin.password_min_length;

  const refuseSetup = (reply: FastifyReply) => redirectWithFlash(reply, LOGIN_PATH, 'info', FIRST_ADMIN_EXISTS);
  const renderSetup = (reply: FastifyReply, values: { email?: string }, errors: FieldErrors, status = 200) =>
    renderAdminPage(context, reply, 'admin/setup', { title: 'Create the first admin account', values, errors: new FormErrors(errors), minLength }, status);

  app.get('/setup', async (_request, reply) => (admins.count() > 0 ? refuseSetup(reply) : renderSetup(reply, {}, {})));

  app.post('/setup', async (request, reply) => {
    if (admins.count() > 0) return refuseSetup(reply);
    const email = formString(request.body, 'email').trim();
    const password = formString(request.body, 'password');
    const errors: FieldErrors = { ...newPasswordErrors(password, formString(request.body, 'password_confirmation'), minLength) };
    const badEmail = emailProblem(email);
    if (badEmail !== null) errors.email = [badEmail];
    if (Object.keys(errors).length > 0) return renderSetup(reply, { email }, errors, 422);
    // onlyIfNone decides inside the write transaction, so of two racing submits exactly one wins.
    const created = await admins.create({ email, password, superuser: true }, { onlyIfNone: true });
    if (created === null) return refuseSetup(reply);
    // A sign-in like any other: they are no admin to invite.
    admins.recordSignIn(created.admin.id, request.clientIp);
    startSession(context, reply, created.admin);
    return redirectWithFlash(reply, '/admin/apis', 'success', 'Welcome! Your admin account is ready. Next, add your first API backend.');
  });

  app.get('/login', async (request, reply) => {
    if (admins.count() === 0) return reply.redirect(FIRST_ADMIN_PATH, 303);
    const query = request.query as Record<string, unknown>;
    const next = safeNextPath(query.next);
    if (sessionAdmin(context, request) !== null) return reply.redirect(next, 303);
    // ?expired=1: requireAdminSession sent back a browser whose session had ended.
    return renderLogin(reply, { email: '', next, problem: null, notice: query.expired === '1' ? SESSION_ENDED : null });
  });

  app.post('/login', async (request, reply) => {
    const email = formString(request.body, 'email').trim();
    const next = safeNextPath(formString(request.body, 'next'));
    const admin = await throttle.attempt(email, request.clientIp, () => admins.authenticate(email, formString(request.body, 'password'), request.clientIp));
    if (isLocked(admin)) {
      reply.header('Retry-After', String(Math.ceil(admin.lockedForMs / 1000)));
      return renderLogin(reply, { email, next, problem: `Too many failed sign-in attempts. Try again ${inMinutes(admin.lockedForMs)}.` }, 429);
    }
    if (admin === null) return renderLogin(reply, { email, next, problem: LOGIN_FAILED }, 401);
    startSession(context, reply, admin);
    return reply.redirect(next, 303);
  });

  // Signing out is a POST (the menu's button), which no link or image on another site can send; a typed or bookmarked
  // /admin/logout (API Umbrella's admins have one) asks, rather than end on a 404.
  app.get('/logout', async (request, reply) => {
    request.admin = sessionAdmin(context, request);
    if (request.admin === null) return reply.redirect(LOGIN_PATH, 303);
    return askToConfirm(context, reply, SIGN_OUT_QUESTION);
  });

  app.post('/logout', async (request, reply) => {
    endSession(context, request, reply);
    return redirectWithFlash(reply, LOGIN_PATH, 'info', 'You have been signed out.');
  });

  function renderLogin(reply: FastifyReply, data: { email: string; next: string; problem: string | null; notice?: string | null }, status = 200) {
    return renderAdminPage(context, reply, 'admin/login', { title: 'Sign in', notice: null, ...data, forgotPassword: links.offersReset }, status);
  }
}
