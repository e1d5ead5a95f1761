// The mails to admins, in API Umbrella's words: a link to choose a new
// password ("Forgot password") and an invitation to set a first one. Plain
// text only, as every mail of Parasol: an admin's name or email goes in as
// text, with nothing to escape and nothing for a mail client to run.
import type { Admin } from '../admins/repository.js';
import type { OutgoingMail } from './mailer.js';

/** Devise's subject, which API Umbrella's reset mail keeps. */
export const RESET_SUBJECT = 'Reset password instructions';

export function resetPasswordEmail(admin: Admin, url: string, validHours: number): OutgoingMail {
  const lines = [
    `Hello ${greeting(admin)}!`,
    '',
    'Someone has requested a link to change your password, and you can do this through the link below.',
    '',
    `Change my password: ${url}`,
    '',
    `The link works once, within ${validHours} hours.`,
    "If you didn't request this, please ignore this email.",
    "Your password won't change until you access the link above and create a new one.",
  ];
  return { to: admin.email, subject: RESET_SUBJECT, text: `${lines.join('\n')}\n` };
}

/** API Umbrella's "<site_name> Admin Access". */
export function inviteEmail(siteName: string, admin: Admin, url: string, validDays: number): OutgoingMail {
  const site = oneLine(siteName);
  const lines = [
    `Hi ${greeting(admin)},`,
    '',
    `Welcome to the ${site} admin. To get started, set your password with the link below.`,
    '',
    `Set my password: ${url}`,
    '',
    `The link works once, within ${validDays} days. Your account is ${admin.email}; once your password is set, sign in with it.`,
    "If you didn't request an account, please ignore this email.",
  ];
  return { to: admin.email, subject: `${site} Admin Access`, text: `${lines.join('\n')}\n` };
}

function greeting(admin: Admin): string {
  return admin.name === null ? admin.email : oneLine(admin.name);
}

/** site_name is the operator's and a name an admin's: a header or a greeting they still must not break. */
function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}
