// API Umbrella's signup "options": what an embedded signup form sends beside
// the user (send_welcome_email, example_api_url, and what its welcome email
// says: welcomeCustomization) and reads back from the 201
// answer to show its confirmation (contact_url, site_name, verify_email,
// example_api_url with the key filled in). Its script breaks without them.
import type { Config } from '../config/schema.js';
import { contactUrl } from '../contact/contact-url.js';
import { escapeMarkup } from '../gateway/errors.js';
import { looksLikeLinkOrMarkup } from '../api-users/validate.js';
import type { SenderOverride } from '../mailer/mailer.js';
import { blankToNull, isPlainObject } from '../lib/validation-errors.js';
import { knownApiUrl, knownContactUrl, knownEmailAddress, type KnownDomains } from './known-domains.js';

export interface SignupOptions {
  readonly contact_url: string;
  readonly site_name: string;
  readonly send_welcome_email?: boolean;
  /** True when the key went by email only (asked for, or by signup.verify_email or allow_duplicate_emails: false). */
  readonly verify_email?: boolean;
  readonly example_api_url?: string;
  readonly example_api_url_formatted_html?: string;
}

/** Where an example_api_url takes the key. */
export const KEY_PLACEHOLDER = '{{api_key}}';

/**
 * options.send_welcome_email, verify_email or send_notify_email (nested or
 * as a form field): only true or "true" asks for it, as in API Umbrella
 * (whose to_s of a list is never "true"); undefined when not sent.
 */
export function requestedOption(body: unknown, name: 'send_welcome_email' | 'verify_email' | 'send_notify_email'): boolean | undefined {
  const value = requestOptions(body)[name];
  return value === undefined || value === null ? undefined : value === true || value === 'true';
}

export function signupOptions(config: Config, base: string, body: unknown, outcome: { apiKey: string | null; emailedOnly: boolean }): SignupOptions {
  const sendWelcome = requestedOption(body, 'send_welcome_email');
  const example = outcome.apiKey === null ? null : exampleApiUrl(requestOptions(body).example_api_url, outcome.apiKey);
  return {
    contact_url: contactUrl(config, base),
    site_name: config.site_name,
    ...(sendWelcome === undefined ? {} : { send_welcome_email: sendWelcome }),
    ...(outcome.emailedOnly ? { verify_email: true } : {}),
    ...(example ?? {}),
  };
}

/**
 * What a signup API call's options change in its welcome email, as API
 * Umbrella's: site_name, contact_url, example_api_url and, for an admin only,
 * the sender (email_from_name, email_from_address). A key-creator's key sits
 * in a public page, so the From line stays the operator's (mailer.from) for
 * such calls. URLs and addresses only within the gateway's known domains (see
 * known-domains.ts); a value that does not pass is left out, the configured
 * one used instead, as there.
 */
export interface WelcomeCustomization {
  readonly siteName?: string;
  readonly contactUrl?: string;
  /** With {{api_key}} where the key goes. */
  readonly exampleApiUrl?: string;
  readonly from?: SenderOverride;
}

const DISPLAY_TEXT_MAX = 80;

export function welcomeCustomization(body: unknown, caller: 'admin' | 'key_creator', known: KnownDomains): WelcomeCustomization {
  const options = requestOptions(body);
  const siteName = displayText(options.site_name, caller);
  const contactUrl = knownContactUrl(known, options.contact_url);
  const exampleApiUrl = knownApiUrl(known, options.example_api_url);
  const fromName = caller === 'admin' ? displayText(options.email_from_name, caller) : null;
  const fromAddress = caller === 'admin' ? knownEmailAddress(known, options.email_from_address) : null;
  return {
    ...(siteName === null ? {} : { siteName }),
    ...(contactUrl === null ? {} : { contactUrl }),
    ...(exampleApiUrl === null ? {} : { exampleApiUrl }),
    ...(fromName === null && fromAddress === null ? {} : { from: { ...(fromName === null ? {} : { name: fromName }), ...(fromAddress === null ? {} : { address: fromAddress }) } }),
  };
}

/** One line of text; from a key-creator also none that a mail client would show as a link or markup (the first-name rule). */
function displayText(value: unknown, caller: 'admin' | 'key_creator'): string | null {
  const text = blankToNull(value);
  if (text === null || text.length > DISPLAY_TEXT_MAX || /\p{Cc}/u.test(text)) return null;
  return caller === 'key_creator' && looksLikeLinkOrMarkup(text) ? null : text;
}

function requestOptions(body: unknown): Record<string, unknown> {
  return isPlainObject(body) && isPlainObject(body.options) ? body.options : {};
}

/** The caller's example URL with the key in it; the HTML form is escaped (the embed inserts it as markup) with the key in bold. Only http(s) URLs. */
function exampleApiUrl(template: unknown, apiKey: string): Pick<SignupOptions, 'example_api_url' | 'example_api_url_formatted_html'> | null {
  if (typeof template !== 'string' || !/^https?:\/\//i.test(template)) return null;
  return {
    example_api_url: template.replaceAll(KEY_PLACEHOLDER, apiKey),
    example_api_url_formatted_html: escapeMarkup(template).replaceAll(`api_key=${KEY_PLACEHOLDER}`, `<strong>api_key=${apiKey}</strong>`).replaceAll(KEY_PLACEHOLDER, apiKey),
  };
}

