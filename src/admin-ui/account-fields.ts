// Checks shared by every form that sets an admin's email or password.
import { passwordProblem } from '../admins/password.js';
import { isEmailAddress } from '../lib/email-address.js';
import type { FieldErrors } from '../lib/validation-errors.js';

export function emailProblem(email: string): string | null {
  if (email === '') return "can't be blank";
  if (email.length > 255) return 'is too long (maximum is 255 characters)';
  return isEmailAddress(email) ? null : 'is invalid';
}

/** Field errors for a new password and its confirmation (API Umbrella's messages). */
export function newPasswordErrors(password: string, confirmation: string, minLength: number): FieldErrors {
  const problem = passwordProblem(password, confirmation, minLength);
  if (problem === null) return {};
  return problem === "doesn't match Password" ? { password_confirmation: [problem] } : { password: [problem] };
}

/** A form value as sent (absent or repeated fields count as blank); callers trim what is not a password. */
export function formString(body: unknown, field: string): string {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' ? value : '';
}

/** Every value of a field sent once per checked box (none when no box is checked). */
export function formStrings(body: unknown, field: string): string[] {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
  return [value].flat().filter((item): item is string => typeof item === 'string');
}
