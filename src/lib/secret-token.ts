// Random tokens (API keys, admin tokens) and their at-rest form: an HMAC with
// the server secret plus a short prefix to look the row up by. The clear
// token is only ever returned once, to whoever created it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Bytes ≥ this would bias the modulo; they are drawn again. */
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);
export const TOKEN_LENGTH = 40;
export const LOOKUP_PREFIX_LENGTH = 16;
const PREVIEW_LENGTH = 6;

export function generateToken(length = TOKEN_LENGTH): string {
  let token = '';
  while (token.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < UNBIASED_LIMIT) token += ALPHABET[byte % ALPHABET.length];
      if (token.length === length) break;
    }
  }
  return token;
}

export interface TokenDigest {
  readonly prefix: string;
  readonly hash: Buffer;
  readonly preview: string;
}

export function digestToken(secret: string, token: string): TokenDigest {
  return { prefix: lookupPrefix(token), hash: hmac(secret, token), preview: previewOf(token) };
}

export function lookupPrefix(token: string): string {
  return token.slice(0, LOOKUP_PREFIX_LENGTH);
}

export function previewOf(token: string): string {
  return `${token.slice(0, PREVIEW_LENGTH)}...`;
}

export function hmac(secret: string, token: string): Buffer {
  return createHmac('sha256', secret).update(token).digest();
}

/** Constant-time check of a presented token against a stored HMAC. */
export function tokenMatches(secret: string, token: string, storedHash: Buffer): boolean {
  const presented = hmac(secret, token);
  return presented.length === storedHash.length && timingSafeEqual(presented, storedHash);
}
