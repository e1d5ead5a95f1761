// What a developer may send when signing up: the profile fields and the
// terms checkbox. Anything that grants access (roles, settings, enabled) is
// not read, so a signup can never create a privileged key.
import type { ApiUserInput } from '../api-users/model.js';
import { parseApiUser, USER_MESSAGES } from '../api-users/validate.js';
import { blankToNull, isPlainObject, toBoolean, type FieldErrors, type Parsed } from '../lib/validation-errors.js';

const PROFILE_FIELDS = ['first_name', 'last_name', 'email', 'website', 'use_description'] as const;
const SOURCE_MAX = 255;

export type SignupValues = Partial<Record<(typeof PROFILE_FIELDS)[number] | 'terms_and_conditions', unknown>>;

export function parseSignup(raw: unknown, defaultSource: string): Parsed<ApiUserInput> {
  const input = isPlainObject(raw) ? raw : {};
  const source = blankToNull(input.registration_source) ?? defaultSource;
  const profile = Object.fromEntries(PROFILE_FIELDS.map((field) => [field, input[field]]));
  const parsed = parseApiUser({ ...profile, registration_source: source });
  const errors: FieldErrors = parsed.ok ? {} : { ...parsed.errors };
  if (source.length > SOURCE_MAX) errors.registration_source = [USER_MESSAGES.tooLong(SOURCE_MAX)];
  if (toBoolean(input.terms_and_conditions) !== true) errors.terms_and_conditions = [USER_MESSAGES.termsUnchecked];
  return Object.keys(errors).length === 0 && parsed.ok ? parsed : { ok: false, errors };
}
