// My Account: the signed-in admin changes their password and sees or
// regenerates their Admin API Token (X-Admin-Auth-Token).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import type { FieldErrors } from '../lib/validation-errors.js';
import { newPasswordErrors } from '../admins/accounts.js';
import { formString } from './account-fields.js';
import { askToConfirm, confirmPrompt, isConfirmed, type ActionQuestion } from './confirm-action.js';
import { redirectWithFlash } from './flash.js';
import { FormErrors } from './form-errors.js';
import { isLocked, loginThrottle } from './login-throttle.js';
import { inMinutes } from '../lib/time-format.js';
import { menuOf, renderAdminPage } from './page.js';
import { accessOf } from '../admin-groups/request-access.js';
import { startSession } from './session-auth.js';

const LABELS: Record<string, string> = { current_password: 'Current Password', password: 'New Password', password_confirmation: 'Password Confirmation' };
const TOKEN_QUESTION: ActionQuestion = {
  question: 'Regenerate your Admin API Token?',
  consequences: ['Scripts using the current token stop working at once.', 'The new token is shown once, on the next page.'],
  button: 'Regenerate token',
  back: { href: '/admin/account', label: 'My Account' },
  section: 'account',
};

export function myAccountPages(app: FastifyInstance, context: AppContext): void {
  const { admins } = context;
  const minLength = context.config.admin.password_min_length;

  app.get('/account', async (_request, reply) => renderAccount(reply, {}));

  app.post('/account/password', async (request, reply) => {
    const admin = request.admin!;
    const password = formString(request.body, 'password');
    const errors = newPasswordErrors(password, formString(request.body, 'password_confirmation'), minLength, LABELS.password);
    const currentPassword = formString(request.body, 'current_password');
    // A field left empty is no guess: not counted, so that it never locks its admin out of signing in.
    if (currentPassword === '') errors.current_password = ["can't be blank"];
    else {
      // Counted like sign-ins, so that a session left open is no way to guess the password.
      const current = await loginThrottle(context).attempt(admin.email, request.clientIp, () => admins.checkPassword(admin.email, currentPassword));
      if (isLocked(current)) errors.current_password = [`was tried too often; try again ${inMinutes(current.lockedForMs)}`];
      else if (current === null) errors.current_password = ['is not correct'];
    }
    if (Object.keys(errors).length > 0) return renderAccount(reply, errors, 422);
    // Ends every session of the admin (a stolen one, another browser); this browser gets a fresh one.
    await admins.setPassword(admin.id, password);
    startSession(context, reply, admin);
    return redirectWithFlash(reply, '/admin/account', 'success', 'Your password has been changed. Other sessions of your account were signed out.');
  });

  // The current token stops working at once, and scripts with it: asked first.
  app.post('/account/token', async (request, reply) => {
    if (!isConfirmed(request)) return askToConfirm(context, reply, TOKEN_QUESTION);
    const token = admins.regenerateToken(request.admin!.id);
    reply.header('Cache-Control', 'no-store');
    return renderAdminPage(context, reply, 'admin/account-token', { title: 'New Admin API Token', section: 'account', token });
  });

  function renderAccount(reply: FastifyReply, errors: FieldErrors, status = 200) {
    // An admin in no group lands here from /admin/ and should learn why the menu is empty.
    const access = accessOf(context, reply.request);
    const noPermissions = !Object.values(menuOf(access)).some(Boolean);
    const data = { title: 'My Account', section: 'account' as const, errors: new FormErrors(errors, (field) => LABELS[field] ?? field), minLength, noPermissions, tokenPrompt: confirmPrompt(TOKEN_QUESTION) };
    return renderAdminPage(context, reply, 'admin/account', data, status);
  }
}
