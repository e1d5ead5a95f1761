// API Umbrella's signup "options": what an embedded signup form sends beside
// the user (send_welcome_email, example_api_url) and reads back from the 201
// answer to show its confirmation (contact_url, site_name, verify_email,
// example_api_url with the key filled in). Its script breaks without them.
import type { Config } from '../config/schema.js';
import { contactUrl } from '../contact/contact-url.js';
import { escapeMarkup } from '../gateway/errors.js';
import { isPlainObject } from '../lib/validation-errors.js';
import { bracketedFields } from './signup-input.js';

export interface SignupOptions {
  readonly contact_url: string;
  readonly site_name: string;
  readonly send_welcome_email?: boolean;
  /** True when the key went by email only (asked for, or by signup.verify_email or allow_duplicate_emails: false). */
  readonly verify_email?: boolean;
  readonly example_api_url?: string;
  readonly example_api_url_formatted_html?: string;
}

const KEY_PLACEHOLDER = '{{api_key}}';

/**
 * options.send_welcome_email, verify_email or send_notify_email (nested or
 * as a form field): only true or "true" asks for it, as in API Umbrella;
 * undefined when not sent.
 */
export function requestedOption(body: unknown, name: 'send_welcome_email' | 'verify_email' | 'send_notify_email'): boolean | undefined {
  const value = requestOptions(body)[name];
  return value === undefined || value === null ? undefined : String(value) === 'true';
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

function requestOptions(body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) return {};
  return isPlainObject(body.options) ? body.options : bracketedFields(body, 'options');
}

/** The caller's example URL with the key in it; the HTML form is escaped (the embed inserts it as markup) with the key in bold. Only http(s) URLs. */
function exampleApiUrl(template: unknown, apiKey: string): Pick<SignupOptions, 'example_api_url' | 'example_api_url_formatted_html'> | null {
  if (typeof template !== 'string' || !/^https?:\/\//i.test(template)) return null;
  return {
    example_api_url: template.replaceAll(KEY_PLACEHOLDER, apiKey),
    example_api_url_formatted_html: escapeMarkup(template).replaceAll(`api_key=${KEY_PLACEHOLDER}`, `<strong>api_key=${apiKey}</strong>`).replaceAll(KEY_PLACEHOLDER, apiKey),
  };
}

