// API user input with API Umbrella's signup messages; the admin API, the
// signup form and the JSON signup API share it.
import { parseAllowedIps, parseInstantField } from '../api-backends/validate.js';
import { parseRateLimitSettings } from '../api-backends/rate-limits.js';
import { isEmailAddress } from '../lib/email-address.js';
import { DAY_MS } from '../lib/iso-instant.js';
import { ErrorCollector, isPlainObject, stringListField, textField, toBoolean, type Parsed } from '../lib/validation-errors.js';
import { distinctIds } from '../lib/record-ids.js';
import { DEFAULT_USER_SETTINGS, type ApiUser, type ApiUserInput, type StoredUserSettings } from './model.js';

const NAME_MAX = 80;
const EMAIL_MAX = 255;
const WEBSITE_MAX = 255;
const DESCRIPTION_MAX = 2000;
const SUSPICIOUS_NAME = /(http|https|www|<|>|\r|\n)/i;
const WEBSITE = /^(https?:\/\/)?[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?([/?#]\S*)?$/i;

export const USER_MESSAGES = {
  firstNameBlank: 'Provide your first name.',
  lastNameBlank: 'Provide your last name.',
  emailBlank: 'Provide your email address.',
  emailInvalid: 'Provide a valid email address.',
  termsUnchecked: 'Check the box to agree to the terms and conditions.',
  invalid: 'is invalid',
  website: 'must be a valid URL in the form of http://example.com',
  tooLong: (max: number) => `is too long (maximum is ${max} characters)`,
} as const;

/** Parses a full user (create), or merges a partial update over `existing`. */
export function parseApiUser(raw: unknown, existing?: ApiUser): Parsed<ApiUserInput> {
  const input = isPlainObject(raw) ? raw : {};
  const has = (key: string): boolean => existing === undefined || key in input;
  const errors = new ErrorCollector();
  const text = (key: keyof ApiUser): string | null => (has(key) ? textField(input[key], key, errors) : (existing![key] as string | null));

  const firstName = text('first_name');
  const lastName = text('last_name');
  const email = text('email');
  const website = text('website');
  const useDescription = text('use_description');
  const registrationSource = text('registration_source');
  checkName(firstName, 'first_name', USER_MESSAGES.firstNameBlank, errors);
  checkName(lastName, 'last_name', USER_MESSAGES.lastNameBlank, errors);
  if (email === null) addBlank('email', USER_MESSAGES.emailBlank, errors);
  else if (email.length > EMAIL_MAX) errors.add('email', USER_MESSAGES.tooLong(EMAIL_MAX));
  else if (!isEmailAddress(email)) errors.add('email', USER_MESSAGES.emailInvalid);
  if (website !== null && website.length > WEBSITE_MAX) errors.add('website', USER_MESSAGES.tooLong(WEBSITE_MAX));
  else if (website !== null && !WEBSITE.test(website)) errors.add('website', USER_MESSAGES.website);
  if (useDescription !== null && useDescription.length > DESCRIPTION_MAX) errors.add('use_description', USER_MESSAGES.tooLong(DESCRIPTION_MAX));

  const roles = has('roles') ? stringListField(input.roles, 'roles', errors) : existing!.roles;
  const settings = has('settings') ? parseUserSettings(input.settings, errors) : existing!.settings;
  const emailVerified = 'email_verified' in input ? toBoolean(input.email_verified) : (existing?.email_verified ?? true);
  // It decides which keys backends with api_key_verification_level take: a value that says neither is refused, not guessed.
  if (emailVerified === null) errors.add('email_verified', 'must be true or false');
  // Read as true, a mistyped "disable" would turn the key back on.
  const enabled = 'enabled' in input ? toBoolean(input.enabled) : (existing?.enabled ?? true);
  if (enabled === null) errors.add('enabled', 'must be true or false');
  const throttleByIp = 'throttle_by_ip' in input ? toBoolean(input.throttle_by_ip) : (existing?.throttle_by_ip ?? false);
  if (throttleByIp === null) errors.add('throttle_by_ip', 'must be true or false');
  const expiresAt = has('expires_at') ? parseInstantField(input.expires_at, 'expires_at', errors) : existing!.expires_at;
  if (!errors.isEmpty) return { ok: false, errors: errors.errors };
  return {
    ok: true,
    value: {
      email: email!,
      first_name: firstName,
      last_name: lastName,
      website,
      use_description: useDescription,
      roles,
      enabled: enabled!,
      // A user an operator makes counts as verified, as in API Umbrella; signups decide for themselves (signups.ts).
      email_verified: emailVerified!,
      throttle_by_ip: throttleByIp!,
      settings,
      expires_at: expiresAt,
      registration_source: registrationSource,
    },
  };
}

/** How long a replaced key may keep working: long enough to switch over, short enough that a leaked key does not live on. */
export const PREVIOUS_KEY_MAX_DAYS = 30;

/**
 * When a regenerated key's predecessor stops working, from the admin API's
 * `previous_api_key_expires_at` (in the body or its `user`): null (blank or
 * missing) for at once. It must lie within PREVIOUS_KEY_MAX_DAYS from now.
 */
export function parsePreviousKeyEnd(body: unknown, now: number): Parsed<string | null> {
  const errors = new ErrorCollector();
  const field = 'previous_api_key_expires_at';
  const raw = isPlainObject(body) ? (field in body ? body[field] : isPlainObject(body.user) ? body.user[field] : undefined) : undefined;
  const end = parseInstantField(raw, field, errors);
  if (end !== null && Date.parse(end) <= now) errors.add(field, 'must be later than now');
  else if (end !== null && Date.parse(end) > now + PREVIOUS_KEY_MAX_DAYS * DAY_MS) errors.add(field, `must be within ${PREVIOUS_KEY_MAX_DAYS} days from now`);
  return errors.isEmpty ? { ok: true, value: end } : { ok: false, errors: errors.errors };
}

function checkName(value: string | null, field: string, blankMessage: string, errors: ErrorCollector): void {
  if (value === null) addBlank(field, blankMessage, errors);
  else if (value.length > NAME_MAX) errors.add(field, USER_MESSAGES.tooLong(NAME_MAX));
  else if (looksLikeLinkOrMarkup(value)) errors.add(field, USER_MESSAGES.invalid);
}

/** A field found empty, unless it was sent with another type: that is refused as such ("must be text"), not as left out. */
function addBlank(field: string, message: string, errors: ErrorCollector): void {
  if (!errors.has(field)) errors.add(field, message);
}

/** API Umbrella's rule for names: nothing a mail client or page would show as a link or markup, no line breaks. */
export function looksLikeLinkOrMarkup(text: string): boolean {
  return SUSPICIOUS_NAME.test(text);
}

function parseUserSettings(raw: unknown, errors: ErrorCollector): StoredUserSettings {
  if (raw === undefined || raw === null) return DEFAULT_USER_SETTINGS;
  if (!isPlainObject(raw)) {
    errors.add('settings', 'must be an object');
    return DEFAULT_USER_SETTINGS;
  }
  const rateLimits = parseRateLimitSettings(raw, 'settings', errors);
  return {
    rate_limit_mode: rateLimits.rate_limit_mode,
    // A user's only embedded records: their ids are unique among them.
    rate_limits: rateLimits.rate_limits.map(distinctIds()),
    allowed_ips: parseAllowedIps(raw.allowed_ips, 'settings.allowed_ips', errors),
    allowed_referers: stringListField(raw.allowed_referers, 'settings.allowed_referers', errors),
  };
}
