// Admin passwords are hashed and verified one at a time in the process, with
// the real argon2: a flood of sign-in attempts holds one thread of libuv's
// pool at most, and the gateway's gzip (on the same pool) need not wait for it.
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/admins/password.js';

const PASSWORD = 'correct horse battery staple';
let hash: string;

beforeAll(async () => {
  hash = await hashPassword(PASSWORD);
});

describe('argon2 one at a time', () => {
  it('leaves the thread pool to gzip: one started during five verifications ends before the first of them', async () => {
    const events: string[] = [];
    const verifications = Array.from({ length: 5 }, (_, index) => verifyPassword(hash, `guess ${index}`).then(() => events.push(`verify ${index}`)));
    const compressed = promisify(gzip)(Buffer.from('{"answer":"a JSON body worth compressing"}'.repeat(40))).then(() => events.push('gzip'));
    await Promise.all([...verifications, compressed]);
    expect(events[0]).toBe('gzip');
    expect(events.slice(1)).toEqual(Array.from({ length: 5 }, (_, index) => `verify ${index}`));
  });

  it('answers false for a hash argon2 cannot read, and the next verification and hash run all the same', async () => {
    // argon2 rejects both the unreadable hash and a password that is no string (a caller's bug): neither holds up the queue.
    const notAString = expect(hashPassword(undefined as unknown as string)).rejects.toThrow(/must be of type string/);
    const [unreadable, wrong, right, rehashed] = await Promise.all([
      verifyPassword('not an argon2 hash', PASSWORD),
      verifyPassword(hash, 'not the password'),
      verifyPassword(hash, PASSWORD),
      hashPassword(PASSWORD),
    ]);
    await notAString;
    expect([unreadable, wrong, right]).toEqual([false, false, true]);
    expect(await verifyPassword(rehashed, PASSWORD)).toBe(true);
  });
});
