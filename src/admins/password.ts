import argon2 from 'argon2';

export const PASSWORD_MAX_LENGTH = 72;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

/** API Umbrella's rule: between the configured minimum and 72 characters. */
export function passwordProblem(password: string, confirmation: string | undefined, minLength: number): string | null {
  if (password === '') return "can't be blank";
  if (password.length < minLength) return `is too short (minimum is ${minLength} characters)`;
  if (password.length > PASSWORD_MAX_LENGTH) return `is too long (maximum is ${PASSWORD_MAX_LENGTH} characters)`;
  if (confirmation !== undefined && confirmation !== password) return "doesn't match Password";
  return null;
}
