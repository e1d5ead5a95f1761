// Mailing admins a link to choose their password: "Forgot password" from the
// sign-in page, and the invitation Admin Accounts (and the admin API's
// send_invite_email) sends a new admin, as API Umbrella does. Shared by the
// web admin and the admin API; the links are made and used in
// password-tokens.ts, the pages are src/admin-ui/password-pages.ts.
import type { AppContext } from '../context.js';
import { adminBaseUrl } from '../lib/base-url.js';
import { inviteEmail, resetPasswordEmail } from '../mailer/admin-emails.js';
import type { Mailer } from '../mailer/mailer.js';
import { LINK_VALIDITY_MS, passwordTokens, type PasswordLinkKind } from './password-tokens.js';
import type { Admin } from './repository.js';

/** Where a link leads: the Change Your Password page. */
export const PASSWORD_EDIT_PATH = '/admin/password/edit';

export class PasswordLinks {
  constructor(
    private readonly context: AppContext,
    private readonly mailer: Mailer | null,
  ) {}

  /** Whether invites can go (mailer.smtp.host is set). */
  get sendsMail(): boolean {
    return this.mailer !== null;
  }

  /**
   * Whether the sign-in page offers "Forgot your password?": with a mailer
   * and public_url (on an admin host: adminBaseUrl). A link mailed to whoever asks is built from public_url
   * only: the Host header of that request is the asker's to choose, and a
   * link to their host would hand them the token of the admin who clicks it.
   */
  get offersReset(): boolean {
    return this.mailer !== null && adminBaseUrl(this.context.config) !== null;
  }

  /**
   * "Forgot password": a reset link (replacing any earlier one) to the
   * enabled admin with this email, in any case of A-Z as sign-in takes it;
   * nothing for any other address. The same work for the caller either way
   * (the mail leaves in the background), so neither the answer nor its time
   * tells whether the address is an admin's.
   */
  mailReset(email: string): void {
    const base = adminBaseUrl(this.context.config);
    if (this.mailer === null || base === null || email.trim() === '') return;
    const admin = this.context.admins.findByEmail(email);
    if (admin === null || !admin.enabled) return;
    this.mail(admin, 'reset', base);
  }

  /**
   * Whether Admin Accounts offers "Resend invite email" for the admin: a
   * mailer is set, and the admin is enabled and has never signed in (as API
   * Umbrella, which sends no invite to an admin who has).
   */
  mayInvite(admin: Admin): boolean {
    return this.mailer !== null && admin.enabled && admin.current_sign_in_at === null;
  }

  /**
   * The invitation ("<site_name> Admin Access"), with a link to set a
   * password good for 7 days, to an admin mayInvite() allows (else nothing,
   * false). `requestBase` is the base URL of the inviting admin's request,
   * used when public_url is not set.
   */
  invite(admin: Admin, requestBase: string): boolean {
    if (!this.mayInvite(admin)) return false;
    this.mail(admin, 'invite', adminBaseUrl(this.context.config) ?? requestBase);
    return true;
  }

  private mail(admin: Admin, kind: PasswordLinkKind, base: string): void {
    const token = passwordTokens(this.context).issue(admin.id, kind);
    if (token === null || this.mailer === null) return;
    const query = new URLSearchParams(kind === 'invite' ? { invite: 'true', reset_password_token: token } : { reset_password_token: token });
    const url = `${base}${PASSWORD_EDIT_PATH}?${query}`;
    const hours = LINK_VALIDITY_MS[kind] / 3_600_000;
    const mail = kind === 'invite' ? inviteEmail(this.context.config.site_name, admin, url, hours / 24) : resetPasswordEmail(admin, url, hours);
    // Never awaited: a slow or failing SMTP server neither holds up nor fails the page (the mailer logs and retries).
    void this.mailer.send(mail, { admin_id: admin.id, mail: kind === 'invite' ? 'admin_invite' : 'admin_password_reset' }).then((delivery) => {
      if (delivery === 'delivered') this.context.logger.info({ admin_id: admin.id, kind }, kind === 'invite' ? 'admin invite mailed' : 'admin password reset link mailed');
    });
  }
}
