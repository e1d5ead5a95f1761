// GET /users takes DataTables' orders (API Umbrella's order_fields for
// users), in SQL along an index, paging through ties without a user twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
let made: { id: string; email: string }[];
beforeAll(async () => {
  gw = await startTestGateway();
  const users = [
    { email: 'c-order@example.com', first_name: 'carl', last_name: null, registration_source: 'web' },
    { email: 'A-order@example.com', first_name: 'Bea', last_name: 'Zed', registration_source: 'api' },
    { email: 'b-order@example.com', first_name: 'anna', last_name: 'Young', registration_source: 'web' },
    { email: 'd-order@example.com', first_name: 'Dan', last_name: 'Xu', registration_source: 'api' },
  ];
  made = [];
  for (const user of users) made.push({ id: (await gw.createUser({ ...user, use_description: 'ordered' })).id, email: user.email });
  const times = [
    ['2017-01-01', '2017-01-02'],
    ['2017-01-01', '2017-01-03'],
    ['2017-01-02', '2017-01-03'],
    ['2017-01-03', '2017-01-03'],
  ];
  made.forEach((user, i) =>
    gw.context.db.prepare('UPDATE api_users SET created_at = ?, updated_at = ? WHERE id = ?').run(`${times[i]![0]}T00:00:00.000Z`, `${times[i]![1]}T00:00:00.000Z`, user.id),
  );
});
afterAll(() => gw.stop());

function orderQuery(orders: readonly (readonly [string, 'asc' | 'desc'])[]): string {
  return orders.flatMap(([field, dir], i) => [`columns%5B${i}%5D%5Bdata%5D=${field}`, `order%5B${i * 10 + 2}%5D%5Bcolumn%5D=${i}`, `order%5B${i * 10 + 2}%5D%5Bdir%5D=${dir}`]).join('&');
}

async function order(query: string): Promise<number[]> {
  const listed = await gw.adminApi('GET', `/users.json?search=-order%40example.com&${query}`);
  expect(listed.status).toBe(200);
  return listed.body.data.map((user: { id: string }) => made.findIndex((known) => known.id === user.id));
}

describe('GET /users ordered', () => {
  it('orders by email ignoring case, either way', async () => {
    expect(await order(orderQuery([['email', 'asc']]))).toEqual([1, 2, 0, 3]);
    expect(await order(orderQuery([['email', 'desc']]))).toEqual([3, 0, 2, 1]);
  });

  it('orders by first and last name (no name first), registration source and the times', async () => {
    expect(await order(orderQuery([['first_name', 'asc']]))).toEqual([2, 1, 0, 3]);
    expect(await order(orderQuery([['last_name', 'asc']]))).toEqual([0, 3, 2, 1]);
    expect(await order(orderQuery([['registration_source', 'desc'], ['email', 'asc']]))).toEqual([2, 0, 1, 3]);
    expect(await order(orderQuery([['created_at', 'asc'], ['updated_at', 'asc']]))).toEqual([0, 1, 2, 3]);
    expect(await order(orderQuery([['created_at', 'desc'], ['updated_at', 'desc']]))).toEqual([3, 2, 1, 0]);
    expect(await order(orderQuery([['created_at', 'desc'], ['updated_at', 'asc']]))).toEqual([3, 2, 0, 1]);
  });

  it('pages through users that tie on the order, each once, in the order asked for', async () => {
    const paged = async (column: string, dir: 'asc' | 'desc') => {
      const seen: number[] = [];
      for (let start = 0; start < 4; start += 1) seen.push(...(await order(`${orderQuery([[column, dir]])}&start=${start}&length=1`)));
      return seen;
    };
    for (const column of ['use_description', 'registration_source', 'updated_at'] as const) {
      for (const dir of ['asc', 'desc'] as const) expect({ column, dir, seen: (await paged(column, dir)).sort() }).toEqual({ column, dir, seen: [0, 1, 2, 3] });
    }
    // "api" (1 and 3) before "web" (0 and 2), each run in whatever order ties take.
    const bySource = await paged('registration_source', 'asc');
    expect([bySource.slice(0, 2).sort(), bySource.slice(2).sort()]).toEqual([[1, 3], [0, 2]]);
    const byUpdate = await paged('updated_at', 'asc');
    expect(byUpdate[0]).toBe(0);
  });

  it('orders within a status, and newest first when no order is asked for', async () => {
    expect(await order(`status=enabled&${orderQuery([['email', 'desc']])}`)).toEqual([3, 0, 2, 1]);
    expect((await order('')).slice(0, 2)).toEqual([3, 2]);
  });
});
