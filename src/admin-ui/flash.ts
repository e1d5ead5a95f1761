// One-shot messages shown on the next page ("Successfully published the
// configuration"). They live in a signed cookie so that they also work before
// sign-in (the login page's "An initial admin account already exists.").
import type { FastifyReply, FastifyRequest } from 'fastify';

export type FlashKind = 'success' | 'error' | 'info';

export interface Flash {
  readonly kind: FlashKind;
  readonly message: string;
}

const FLASH_COOKIE = 'parasol_flash';
const COOKIE_OPTIONS = { path: '/admin', httpOnly: true, sameSite: 'lax', secure: 'auto', signed: true } as const;
const KINDS: readonly FlashKind[] = ['success', 'error', 'info'];

export function setFlash(reply: FastifyReply, kind: FlashKind, message: string): FastifyReply {
  return reply.setCookie(FLASH_COOKIE, JSON.stringify({ kind, message }), COOKIE_OPTIONS);
}

/** Reads the pending message, if any, and clears it so that it shows once. */
export function takeFlash(request: FastifyRequest, reply: FastifyReply): Flash | null {
  const raw = request.cookies[FLASH_COOKIE];
  if (raw === undefined) return null;
  reply.clearCookie(FLASH_COOKIE, { path: COOKIE_OPTIONS.path });
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || unsigned.value === null) return null;
  try {
    const parsed = JSON.parse(unsigned.value) as Partial<Flash>;
    return KINDS.includes(parsed.kind as FlashKind) && typeof parsed.message === 'string' ? { kind: parsed.kind!, message: parsed.message } : null;
  } catch {
    return null;
  }
}

/** Redirects after a form (POST → redirect → GET), with a message for the next page. */
export function redirectWithFlash(reply: FastifyReply, location: string, kind: FlashKind, message: string): FastifyReply {
  return setFlash(reply, kind, message).redirect(location, 303);
}
