// The users list by key status, at its edges: a key ending this very
// millisecond, a user both disabled and expired.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext, type AppContext } from '../../src/context.js';
import type { KeyStatus } from '../../src/api-users/repository.js';
import { testConfig } from '../helpers/config.js';
import { apiUserInput } from '../helpers/users.js';

const NOW = Date.UTC(2027, 0, 31, 12);
const at = (ms: number) => new Date(ms).toISOString();
let context: AppContext;
beforeAll(() => {
  context = createContext(testConfig());
  const add = (email: string, expiresAt: string | null, enabled = true) => context.users.create(apiUserInput({ email, expires_at: expiresAt, enabled }), 'test');
  add('ends-now@example.com', at(NOW));
  add('ends-next-ms@example.com', at(NOW + 1));
  add('ends-in-30-days@example.com', at(NOW + 30 * 86_400_000));
  add('ends-after-30-days@example.com', at(NOW + 30 * 86_400_000 + 1));
  add('off-and-ended@example.com', at(NOW - 1), false);
  add('never-ends@example.com', null);
});
afterAll(() => context.close());

const emails = (status: KeyStatus) => context.users.list({ status, now: NOW }).users.map((user) => user.email);

describe('users by key status', () => {
  it('counts a key ending this very millisecond as expired, as the gateway does', () => {
    expect(emails('expired')).toEqual(['ends-now@example.com']);
    expect(emails('enabled')).not.toContain('ends-now@example.com');
    expect(emails('expiring')).toEqual(['ends-next-ms@example.com', 'ends-in-30-days@example.com']);
  });

  it('lists a user both disabled and expired as disabled only', () => {
    expect(emails('disabled')).toEqual(['off-and-ended@example.com']);
    expect(emails('enabled').sort()).toEqual(['ends-after-30-days@example.com', 'ends-in-30-days@example.com', 'ends-next-ms@example.com', 'never-ends@example.com']);
  });

  it('finds the disabled users from an index of their own, without reading every user', () => {
    const plan = context.db.prepare('EXPLAIN QUERY PLAN SELECT count(*) FROM api_users WHERE enabled = 0').all() as { detail: string }[];
    expect(plan.map((step) => step.detail)).toEqual([expect.stringContaining('USING COVERING INDEX api_users_disabled')]);
  });

  it("reads a page of the list along an index in the list's order, without sorting (a deep page stays cheap)", () => {
    const planOf = (where: string) =>
      (context.db.prepare(`EXPLAIN QUERY PLAN SELECT * FROM api_users ${where} ORDER BY created_at DESC, id LIMIT 50 OFFSET 99000`).all() as { detail: string }[]).map((step) => step.detail);
    expect(planOf('')).toEqual(['SCAN api_users USING INDEX api_users_newest']);
    expect(planOf('WHERE enabled = 0')).toEqual(['SCAN api_users USING INDEX api_users_disabled']);
  });
});
