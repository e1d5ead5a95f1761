// Users stored before their rate limits had ids are read with ids: the same on
// every read and through another connection, without the stored settings
// being rewritten; saving the user stores them.
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.js';
import { apiUserInput } from '../helpers/users.js';
import { twoProcesses } from './two-processes.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A user's settings as Parasol wrote them before rate limits had ids. */
const WITHOUT_IDS = JSON.stringify({
  rate_limit_mode: 'custom',
  rate_limits: [
    { duration: 5000, limit: 10, limit_by: 'ip', response_headers: false },
    { duration: 10_000, limit: 20, limit_by: 'api_key', response_headers: true },
  ],
  allowed_ips: [],
  allowed_referers: [],
});

/** A user whose stored settings are `settings`, as written by an older Parasol. */
function storedUser(context: AppContext, settings: string): string {
  const { user } = context.users.create(apiUserInput({ email: `stored${Math.random().toString(36).slice(2)}@example.com` }), null);
  context.db.prepare('UPDATE api_users SET settings = ? WHERE id = ?').run(settings, user.id);
  return user.id;
}

const idsOf = (context: AppContext, id: string) => context.users.get(id)!.settings.rate_limits.map((limit) => limit.id);
const storedSettings = (context: AppContext, id: string) => context.db.prepare('SELECT settings FROM api_users WHERE id = ?').pluck().get(id);

describe('rate limits of users stored without ids', () => {
  it('get UUIDs on read, the same on every read and through another connection, distinct between users, the row unchanged', () => {
    const { gateway, cli } = twoProcesses();
    const id = storedUser(gateway, WITHOUT_IDS);
    const ids = idsOf(gateway, id);
    expect(ids).toHaveLength(2);
    for (const limitId of ids) expect(limitId).toMatch(UUID);
    expect(new Set(ids).size).toBe(2);
    expect(idsOf(gateway, id)).toEqual(ids);
    expect(gateway.users.list({ search: gateway.users.get(id)!.email }).users[0]!.settings.rate_limits.map((limit) => limit.id)).toEqual(ids);
    expect(idsOf(cli, id)).toEqual(ids);
    expect(idsOf(gateway, storedUser(gateway, WITHOUT_IDS)).filter((other) => ids.includes(other))).toEqual([]);
    expect(storedSettings(gateway, id)).toBe(WITHOUT_IDS);
  });

  it('keep those ids when the user is saved', () => {
    const { gateway } = twoProcesses();
    const id = storedUser(gateway, WITHOUT_IDS);
    const user = gateway.users.get(id)!;
    gateway.users.update(id, apiUserInput({ email: user.email, settings: user.settings }), null);
    expect(JSON.parse(storedSettings(gateway, id) as string).rate_limits.map((limit: { id: string }) => limit.id)).toEqual(idsOf(gateway, id));
  });

  it('read settings stored empty as the defaults', () => {
    const { gateway } = twoProcesses();
    expect(gateway.users.get(storedUser(gateway, '{}'))!.settings).toEqual({ rate_limit_mode: null, rate_limits: [], allowed_ips: [], allowed_referers: [] });
  });
});
