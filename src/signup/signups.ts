// Creating keys for developers, shared by the signup form and the JSON
// signup API: the duplicate-email policy and the welcome email live here.
import type { ApiUser, ApiUserInput, RegistrationDetails } from '../api-users/model.js';
import type { Config } from '../config/schema.js';
import type { AppContext } from '../context.js';
import type { Delivery, Mailer } from '../mailer/mailer.js';
import { alreadyRegisteredEmail, signupNotice, welcomeEmail, type SiteInfo } from '../mailer/welcome-email.js';
import { keyExamples } from './key-examples.js';
import { adminBaseUrl, configuredBaseUrl } from '../lib/base-url.js';
import { contactUrl } from '../contact/contact-url.js';
import { KEY_PLACEHOLDER, type WelcomeCustomization } from './signup-options.js';

export type SignupResult =
  | { readonly kind: 'created'; readonly user: ApiUser; readonly apiKey: string }
  /** Duplicate emails are not allowed: the key, or a note that one exists, went by email only. */
  | { readonly kind: 'emailed'; readonly email: string };

/** What a caller of the signup API asked for in its options. */
interface Asked {
  /** options.verify_email from a key-creator: the key goes by email only. */
  readonly byEmailOnly?: boolean;
  /** options.send_welcome_email, or a user.send_welcome_email, from an admin; for a signup, false keeps back a welcome that carries no key only it holds. */
  readonly sendWelcome?: boolean;
  /** What the call's options change in the welcome email. */
  readonly welcome?: WelcomeCustomization;
  /** options.send_notify_email: the operators hear of it (signup.send_notify_email asks for every signup). */
  readonly notify?: boolean;
}

/** Who the developer emails come from. */
export function siteInfo(config: Config): SiteInfo {
  const publicUrl = configuredBaseUrl(config);
  return { siteName: config.site_name, contactUrl: publicUrl === null ? config.contact_url : contactUrl(config, publicUrl) };
}

export class Signups {
  private readonly site: SiteInfo;

  constructor(
    private readonly context: AppContext,
    private readonly mailer: Mailer | null,
  ) {
    this.site = siteInfo(context.config);
  }

  /** Whether keys can go by email (mailer.smtp.host is set). */
  get sendsMail(): boolean {
    return this.mailer !== null;
  }

  /**
   * Whether every signup's key goes by email only: asked for by
   * signup.verify_email, or needed when duplicates are refused (signup must
   * then not tell whether an address already has a key).
   */
  get keysByEmailOnly(): boolean {
    return keysGoByEmailOnly(this.context.config);
  }

  /**
   * A developer's own signup (the form, or the JSON API with a key-creator
   * key). A user whose key went by email only has shown they own the
   * address: they count as verified, as in API Umbrella.
   */
  signUp(input: ApiUserInput, createdBy: string | null, from: RegistrationDetails, asked: Asked = {}): SignupResult {
    const { users, config } = this.context;
    const emailOnly = asked.byEmailOnly === true || this.keysByEmailOnly;
    // Both answers alike; only the mailbox owner learns whether the address had a key.
    if (!config.signup.allow_duplicate_emails && users.countByEmail(input.email) > 0) {
      // A key whose mail was given up is held by nobody: the address gets a new one, not a note that it has one.
      const [undelivered] = users.keyDeliveries('failed', input.email);
      if (undelivered !== undefined) this.sendNewKey(undelivered, asked.welcome);
      else void this.send(alreadyRegisteredEmail(this.site, input.email), { email_already_registered: true });
      return { kind: 'emailed', email: input.email };
    }
    const created = users.create({ ...input, email_verified: emailOnly }, createdBy, from);
    if (emailOnly) this.deliverKey(created.user, created.apiKey, asked.welcome);
    else if (asked.sendWelcome !== false) void this.sendWelcome(created.user, created.apiKey, asked.welcome);
    this.notifyOperators(created.user, asked.notify === true);
    return emailOnly ? { kind: 'emailed', email: input.email } : { kind: 'created', ...created };
  }

  /**
   * At a start: the keys sent by email only whose mail a stop cut short (its
   * retries were in memory). Nobody holds such a key, so each user gets a new
   * one, mailed. Answers how many.
   */
  resumeKeyDeliveries(): number {
    const pending = this.mailer === null ? [] : this.context.users.keyDeliveries('pending');
    for (const user of pending) this.sendNewKey(user);
    return pending.length;
  }

  /** A new key for a user whose key nobody holds, sent by email only as the first was. */
  private sendNewKey(user: ApiUser, custom?: WelcomeCustomization): void {
    const renewed = this.context.users.regenerateKey(user.id, null, user.created_by);
    if (renewed !== null) this.deliverKey(renewed.user, renewed.apiKey, custom);
  }

  /**
   * The welcome mail of a key in no answer, followed in the store
   * (key_delivery): delivered, given up (the user is no longer verified, and
   * signing up again sends a new key), or cut short by a stop (the next
   * start sends a new key).
   */
  private deliverKey(user: ApiUser, apiKey: string, custom?: WelcomeCustomization): void {
    const { users, logger } = this.context;
    users.setKeyDelivery(user.id, 'pending');
    void this.sendWelcome(user, apiKey, custom)
      .then((delivery) => {
        if (delivery === 'delivered') users.setKeyDelivery(user.id, null);
        else if (delivery === 'given up') users.setKeyDelivery(user.id, 'failed');
      })
      // The store closed meanwhile (a stop): the next start finds the delivery pending.
      .catch((error: unknown) => logger.warn({ err: error, user_id: user.id }, 'key delivery not recorded'));
  }

  /** An admin's creation through the JSON API: duplicates are fine, and mail goes only when asked for. */
  createByAdmin(input: ApiUserInput, adminId: string, from: RegistrationDetails, asked: Asked): { user: ApiUser; apiKey: string } {
    const created = this.context.users.create(input, adminId, from);
    if (asked.sendWelcome === true) void this.sendWelcome(created.user, created.apiKey, asked.welcome);
    this.notifyOperators(created.user, asked.notify === true);
    return created;
  }

  /** API Umbrella's notify email: to signup.notify_email (else contact_email), when asked for or signup.send_notify_email is on. */
  private notifyOperators(user: ApiUser, requested: boolean): void {
    const { config } = this.context;
    const to = config.signup.notify_email ?? config.contact_email;
    if (to === null || !(requested || config.signup.send_notify_email)) return;
    // The admin's own host when admin.hosts names one (on the APIs' host /admin is a path no backend claims).
    const adminBase = adminBaseUrl(config);
    const adminUrl = adminBase === null ? null : `${adminBase}/admin/api_users/${encodeURIComponent(user.id)}`;
    void this.send(signupNotice(to, this.site, user, adminUrl), { user_id: user.id, notice: 'signup' });
  }

  private sendWelcome(user: ApiUser, apiKey: string, custom: WelcomeCustomization = {}): Promise<Delivery> {
    // Only public_url is trusted in mail: a Host header is the sender's to choose.
    const publicUrl = configuredBaseUrl(this.context.config);
    const examples = publicUrl === null ? null : keyExamples(publicUrl, apiKey, this.context.publisher.current);
    const site = { siteName: custom.siteName ?? this.site.siteName, contactUrl: custom.contactUrl ?? this.site.contactUrl };
    const example = custom.exampleApiUrl?.replaceAll(KEY_PLACEHOLDER, apiKey) ?? null;
    const mail = welcomeEmail(site, user, apiKey, examples, example);
    return this.send(custom.from === undefined ? mail : { ...mail, from: custom.from }, { user_id: user.id });
  }

  /** Delivery (and its retries) runs in the background; it never holds up or fails the signup. Without a mailer: given up. */
  private send(mail: Parameters<Mailer['send']>[0], about: Record<string, unknown>): Promise<Delivery> {
    return this.mailer?.send(mail, about) ?? Promise.resolve('given up');
  }
}

/** Signups.keysByEmailOnly, for the pages that tell a developer where the key will be. */
export function keysGoByEmailOnly({ signup }: Pick<Config, 'signup'>): boolean {
  return signup.verify_email || !signup.allow_duplicate_emails;
}
