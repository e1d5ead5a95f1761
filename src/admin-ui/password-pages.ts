// API Umbrella's "Forgot password" and the page its reset and invite links
// lead to, before sign-in: /admin/password/new asks for an email and mails a
// reset link (src/admins/password-links.ts); /admin/password/edit, the link,
// sets the password and signs the admin in. Without a mailer none of them
// exists (404), and the sign-in page does not offer them; the reset form
// also needs public_url, which the mailed link is built from. Every form
// carries a CSRF token (the admin's preHandler), and the pages, as every
// page under /admin/, are sent no-store.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { newPasswordErrors } from '../admins/accounts.js';
import type { PasswordLinks } from '../admins/password-links.js';
import { passwordTokens, type LinkCheck } from '../admins/password-tokens.js';
import type { AppContext } from '../context.js';
import type { FieldErrors } from '../lib/validation-errors.js';
import { formString } from './account-fields.js';
import { redirectWithFlash } from './flash.js';
import { FormErrors } from './form-errors.js';
import { loginThrottle, passwordResetThrottle } from './login-throttle.js';
import { inMinutes } from '../lib/time-format.js';
import { renderAdminPage, renderErrorPage } from './page.js';
import { LOGIN_PATH, startSession } from './session-auth.js';

/** API Umbrella's (Devise's) answer to every request, whether or not the address is an admin's. */
export const RESET_REQUESTED = 'If your email address exists in our database, you will receive a password recovery link at your email address in a few minutes.';

const NEW_PATH = '/admin/password/new';
const LABELS: Record<string, string> = { password: 'New Password', password_confirmation: 'Confirm New Password' };

export function passwordPages(app: FastifyInstance, context: AppContext, links: PasswordLinks): void {
  const tokens = passwordTokens(context);
  const minLength = context.config.admin.password_min_length;

  app.register(async (resets) => {
    resets.addHook('preHandler', async (_request, reply) => {
      if (!links.offersReset) return notFound(reply);
    });

    resets.get('/password/new', async (_request, reply) => renderRequestForm(reply, { email: '', problem: null }));

    resets.post('/password', async (request, reply) => {
      const email = formString(request.body, 'email').trim();
      const allowed = passwordResetThrottle(context).allow(email, request.clientIp);
      if (allowed !== true) {
        reply.header('Retry-After', String(Math.ceil(allowed.lockedForMs / 1000)));
        return renderRequestForm(reply, { email, problem: `Too many password reset requests. Try again ${inMinutes(allowed.lockedForMs)}.` }, 429);
      }
      links.mailReset(email);
      // As API Umbrella: back to sign in, with the same words whatever the address.
      return redirectWithFlash(reply, LOGIN_PATH, 'info', RESET_REQUESTED);
    });
  });

  app.register(async (linked) => {
    // Invites need a mailer only (their link is built as the inviting admin's request came, without public_url).
    linked.addHook('preHandler', async (_request, reply) => {
      if (!links.sendsMail) return notFound(reply);
    });

    linked.get('/password/edit', async (request, reply) => {
      const token = (request.query as Record<string, unknown>).reset_password_token;
      const link = tokens.check(token);
      if (link.status !== 'valid') return renderUnusable(reply, link);
      return renderEditForm(reply, { token: token as string, link, errors: {} });
    });

    linked.post('/password/update', async (request, reply) => {
      const token = formString(request.body, 'reset_password_token');
      const link = tokens.check(token);
      if (link.status !== 'valid') return renderUnusable(reply, link);
      const password = formString(request.body, 'password');
      const errors = newPasswordErrors(password, formString(request.body, 'password_confirmation'), minLength, LABELS.password);
      if (Object.keys(errors).length > 0) return renderEditForm(reply, { token, link, errors }, 422);
      const redeemed = await tokens.redeem(token, password, request.clientIp);
      if (redeemed.status !== 'valid') return renderUnusable(reply, redeemed);
      const { admin, kind } = redeemed;
      // The password was just proven: earlier failed sign-ins of the account stop counting, as after a sign-in.
      loginThrottle(context).clearAccount(admin.email);
      // The admin's other sessions ended with the change; this browser gets a fresh one.
      startSession(context, reply, admin);
      context.logger.info({ admin_id: admin.id, kind }, kind === 'invite' ? 'admin password set through an invite link' : 'admin password reset through a reset link');
      const done = kind === 'invite' ? 'Your password has been set. You are now signed in.' : 'Your password has been changed successfully. You are now signed in.';
      return redirectWithFlash(reply, '/admin/', 'success', done);
    });
  });

  function renderRequestForm(reply: FastifyReply, data: { email: string; problem: string | null }, status = 200) {
    return renderAdminPage(context, reply, 'admin/password/new', { title: 'Forgot your password?', ...data }, status);
  }

  function renderEditForm(reply: FastifyReply, data: { token: string; link: Extract<LinkCheck, { status: 'valid' }>; errors: FieldErrors }, status = 200) {
    const { token, link, errors } = data;
    const page = { title: 'Change Your Password', token, invite: link.kind === 'invite', email: link.admin.email, errors: new FormErrors(errors, (field) => LABELS[field] ?? field), minLength };
    return renderAdminPage(context, reply, 'admin/password/edit', page, status);
  }

  /** A link used, replaced, never made or run out: what to do instead, never a 500. */
  function renderUnusable(reply: FastifyReply, link: Exclude<LinkCheck, { status: 'valid' }>) {
    const again = links.offersReset
      ? { backHref: NEW_PATH, backLabel: 'Request a new link' }
      : { backHref: LOGIN_PATH, backLabel: 'Back to sign in' };
    const ask = links.offersReset ? 'Request a new one' : 'Ask an admin to send you a new invite';
    if (link.status === 'expired') {
      const what = link.kind === 'invite' ? 'invitation' : 'password reset link';
      return renderErrorPage(context, reply, 410, { title: 'This link has expired', message: `This ${what} has expired. ${ask}.`, ...again });
    }
    const message = `This link is not valid: it may have been used already, or replaced by a newer one. ${ask}.`;
    return renderErrorPage(context, reply, 404, { title: 'This link cannot be used', message, ...again });
  }

  function notFound(reply: FastifyReply) {
    return renderErrorPage(context, reply, 404, { title: 'Page not found', message: 'There is no admin page at this address.' });
  }
}
