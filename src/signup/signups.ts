// Creating keys for developers, shared by the signup form and the JSON
// signup API: the duplicate-email policy and the welcome email live here.
import type { ApiUser, ApiUserInput } from '../api-users/model.js';
import type { AppContext } from '../context.js';
import type { Mailer } from '../mailer/mailer.js';
import { alreadyRegisteredEmail, welcomeEmail, type SiteInfo } from '../mailer/welcome-email.js';
import { keyExamples } from './key-examples.js';
import { configuredBaseUrl } from '../lib/base-url.js';
import { contactUrl } from '../contact/contact-url.js';

export type SignupResult =
  | { readonly kind: 'created'; readonly user: ApiUser; readonly apiKey: string }
  /** Duplicate emails are not allowed: the key, or a note that one exists, went by email only. */
  | { readonly kind: 'emailed'; readonly email: string };

export class Signups {
  private readonly site: SiteInfo;

  constructor(
    private readonly context: AppContext,
    private readonly mailer: Mailer | null,
  ) {
    const { config } = context;
    const publicUrl = configuredBaseUrl(config);
    this.site = { siteName: config.site_name, contactUrl: publicUrl === null ? config.contact_url : contactUrl(config, publicUrl) };
  }

  /** A developer's own signup (the form, or the JSON API with a key-creator key). */
  signUp(input: ApiUserInput, createdBy: string | null): SignupResult {
    const { users, config } = this.context;
    if (config.signup.allow_duplicate_emails) {
      const created = users.create(input, createdBy);
      this.sendWelcome(created.user, created.apiKey);
      return { kind: 'created', ...created };
    }
    // Both branches answer alike; only the mailbox owner learns which one ran.
    if (users.countByEmail(input.email) > 0) this.send(alreadyRegisteredEmail(this.site, input.email), { email_already_registered: true });
    else {
      const created = users.create(input, createdBy);
      this.sendWelcome(created.user, created.apiKey);
    }
    return { kind: 'emailed', email: input.email };
  }

  /** An admin's creation through the JSON API: duplicates are fine, and mail goes only when asked for. */
  createByAdmin(input: ApiUserInput, adminId: string, sendWelcome: boolean): { user: ApiUser; apiKey: string } {
    const created = this.context.users.create(input, adminId);
    if (sendWelcome) this.sendWelcome(created.user, created.apiKey);
    return created;
  }

  private sendWelcome(user: ApiUser, apiKey: string): void {
    // Only public_url is trusted in mail: a Host header is the sender's to choose.
    const publicUrl = configuredBaseUrl(this.context.config);
    const examples = publicUrl === null ? null : keyExamples(publicUrl, apiKey, this.context.publisher.current);
    this.send(welcomeEmail(this.site, user, apiKey, examples), { user_id: user.id });
  }

  private send(mail: Parameters<Mailer['send']>[0], about: Record<string, unknown>): void {
    // Delivery (and its retries) runs in the background; it never holds up or fails the signup.
    void this.mailer?.send(mail, about);
  }
}
