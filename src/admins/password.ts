// Admin passwords: argon2id hashes, and the length rule they are set with.
//
// argon2 runs on libuv's thread pool (4 threads by default), which the
// gateway's gzip and other fs and crypto work also wait for. Every hash and
// verification here therefore takes its turn, one at a time in the process:
// a flood of sign-in attempts (each verifies, an unknown email against a
// dummy hash) queues behind itself and holds one thread of the pool at
// most, instead of all of them while proxied responses wait to be
// compressed.
import argon2 from 'argon2';
import { AtMost } from '../lib/at-most.js';

export const PASSWORD_MAX_LENGTH = 72;

const argon2Turns = new AtMost(1);

export function hashPassword(password: string): Promise<string> {
  return argon2Turns.run(() => argon2.hash(password, { type: argon2.argon2id }));
}

/** Whether `password` is the one `hash` was made from; false for a hash argon2 cannot read. */
export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2Turns.run(() => argon2.verify(hash, password));
  } catch {
    return false;
  }
}

/** API Umbrella's rule: between the configured minimum and 72 characters. */
export function passwordProblem(password: string, minLength: number): string | null {
  if (password === '') return "can't be blank";
  if (password.length < minLength) return `is too short (minimum is ${minLength} characters)`;
  if (password.length > PASSWORD_MAX_LENGTH) return `is too long (maximum is ${PASSWORD_MAX_LENGTH} characters)`;
  return null;
}
