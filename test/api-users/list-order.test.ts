// The users list's orders (GET /users) read an index in their order,
// forwards or backwards, rather than sorting every user: with 100,000 users a
// sort took 20-30 ms for the first page and 400-800 ms 99,000 rows deep
// (migration 021).
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { userListOrder, USER_ORDER_COLUMNS } from '../../src/api-users/repository.js';
import { loadMigrations, migrate } from '../../src/store/db.js';

describe('users list order', () => {
  it('reads every orderable column, either way, along an index, without sorting', () => {
    const db = new Database(':memory:');
    migrate(db, loadMigrations());
    for (const column of USER_ORDER_COLUMNS) {
      for (const dir of ['asc', 'desc'] as const) {
        const sql = `SELECT * FROM api_users ORDER BY ${userListOrder({ order: [{ column, dir }] })} LIMIT 25 OFFSET 1000`;
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((step) => step.detail).join(' | ');
        expect({ column, dir, plan }).toEqual({ column, dir, plan: expect.stringMatching(/^SCAN api_users USING INDEX \w+$/) });
      }
    }
    db.close();
  });
});
