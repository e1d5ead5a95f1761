// The admin API's lists read DataTables' parameters as API Umbrella's do
// (its test/support/api_umbrella_shared_tests/data_tables_api.rb and each
// list's test_index.rb): search over the fields its tests name, ignoring
// case, the id whole; order[i][column] naming columns[n][data], several at
// once; and 422 for paging or orders it cannot read.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

type Row = { id: string };

/** API Umbrella's response_order: columns[i][data] = field, order[i*10+2] = {column: i, dir} (so order[12] must come after order[2]). */
function orderQuery(orders: readonly (readonly [field: string, dir: 'asc' | 'desc' | ''])[]): string {
  return orders
    .flatMap(([field, dir], i) => [`columns[${i}][data]=${field}`, `order[${i * 10 + 2}][column]=${i}`, `order[${i * 10 + 2}][dir]=${dir}`])
    .map((pair) => pair.replace(/\[/g, '%5B').replace(/\]/g, '%5D'))
    .join('&');
}

/** The ids of `records` in the order the list answers them. */
async function listedOrder(path: string, query: string, records: readonly Row[]): Promise<string[]> {
  const listed = await gw.adminApi('GET', `${path}?${query}`);
  expect(listed.status).toBe(200);
  const wanted = new Set(records.map((record) => record.id));
  return listed.body.data.map((row: Row) => row.id).filter((id: string) => wanted.has(id));
}

async function search(path: string, value: string) {
  const found = await gw.adminApi('GET', `${path}?search%5Bvalue%5D=${encodeURIComponent(value)}`);
  expect(found.status).toBe(200);
  return found.body;
}

/** data_tables_api.rb's assert_data_tables_search: any part, either case, the whole value; nothing with LIKE or regex characters around it. */
async function expectSearchFinds(path: string, record: Row, value: string, part: string): Promise<void> {
  for (const text of [part, part.toLowerCase(), part.toUpperCase(), value, record.id, record.id.toUpperCase()]) {
    const found = await search(path, text);
    expect({ text, total: found.recordsTotal, ids: found.data.map((row: Row) => row.id) }).toEqual({ text, total: 1, ids: [record.id] });
  }
  for (const extra of ['%', '_', '\\', '*', '.']) {
    for (const text of [`${part}${extra}`, `${extra}${part}`]) expect({ text, found: (await search(path, text)).recordsTotal }).toEqual({ text, found: 0 });
  }
}

async function createScope(name: string, host: string, path_prefix: string): Promise<Row & Record<string, string>> {
  const created = await gw.adminApi('POST', '/api_scopes', { api_scope: { name, host, path_prefix } });
  expect(created.status).toBe(201);
  return created.body.api_scope;
}

async function createGroup(name: string): Promise<Row> {
  const scope = await createScope(`scope of ${name}`, `${randomUUID().slice(0, 8)}.groups.example.com`, '/');
  const created = await gw.adminApi('POST', '/admin_groups', { admin_group: { name, api_scope_ids: [scope.id], permission_ids: ['analytics'] } });
  expect(created.status).toBe(201);
  return created.body.admin_group;
}

async function createAdmin(email: string): Promise<Row & { email: string }> {
  const created = await gw.adminApi('POST', '/admins', { admin: { email, password: 'correct horse battery staple', superuser: true } });
  expect(created.status).toBe(201);
  return created.body.admin;
}

/** Sets a row's times straight in the store, as API Umbrella's tests make records with given times. */
function setTimes(table: string, id: string, created_at: string, updated_at: string): void {
  gw.context.db.prepare(`UPDATE ${table} SET created_at = ?, updated_at = ? WHERE id = ?`).run(created_at, updated_at, id);
}

const LISTS = ['/admins', '/admin_groups', '/api_scopes', '/apis', '/users'] as const;

describe('search[value]', () => {
  it('finds admins by any part of their email, ignoring case, and by their whole id; LIKE characters are plain', async () => {
    const admin = await createAdmin('EmailSearchTest@example.com');
    await expectSearchFinds('/admins.json', admin, 'EmailSearchTest@example.com', 'mailsearchtest@exampl');
    // What a script does next, "find, then act on the first row", reaches that admin.
    expect((await search('/admins.json', 'lsearchtest@')).data[0].email).toBe(admin.email);
  });

  it('finds admin groups by any part of their name', async () => {
    const group = await createGroup('NameSearchTest');
    await expectSearchFinds('/admin_groups.json', group, 'NameSearchTest', 'amesearcht');
  });

  it('finds API scopes by any part of their name, host or path prefix', async () => {
    await expectSearchFinds('/api_scopes.json', await createScope('ScopeNameSearchTest', 'scope.example.com', '/scope-name/'), 'ScopeNameSearchTest', 'copenamesearcht');
    await expectSearchFinds('/api_scopes.json', await createScope('Host', 'hostsearchtest.com', '/'), 'hostsearchtest.com', 'ostsearcht');
    await expectSearchFinds('/api_scopes.json', await createScope('Prefix', 'prefix.example.com', '/path-prefix/search-test/'), '/path-prefix/search-test/', 'refix/searc');
  });

  it('answers an empty DataTables page when nothing matches, on every list', async () => {
    for (const path of LISTS) {
      const found = await search(`${path}.json`, randomUUID() + randomUUID());
      expect({ path, found }).toEqual({ path, found: { draw: 0, recordsTotal: 0, recordsFiltered: 0, data: [] } });
    }
  });
});

describe('order[i][column] and order[i][dir]', () => {
  it('orders admins by email and by when they were made, ascending unless desc is asked for', async () => {
    const records = [await createAdmin('a-order@example.com'), await createAdmin('b-order@example.com')];
    for (const [field, dir, expected] of [
      ['email', '', [0, 1]],
      ['email', 'asc', [0, 1]],
      ['email', 'desc', [1, 0]],
      ['username', 'desc', [1, 0]],
    ] as const) {
      expect(await listedOrder('/admins.json', orderQuery([[field, dir]]), records), `${field} ${dir}`).toEqual(expected.map((i) => records[i]!.id));
    }
    setTimes('admins', records[0]!.id, '2017-01-02T00:00:00.000Z', '2017-01-02T00:00:00.000Z');
    setTimes('admins', records[1]!.id, '2017-01-01T00:00:00.000Z', '2017-01-01T00:00:00.000Z');
    expect(await listedOrder('/admins.json', orderQuery([['created_at', 'asc']]), records)).toEqual([records[1]!.id, records[0]!.id]);
    expect(await listedOrder('/admins.json', orderQuery([['updated_at', 'desc']]), records)).toEqual([records[0]!.id, records[1]!.id]);
  });

  it('orders by several columns, the lower order index first (order[2] before order[12])', async () => {
    const groups = [await createGroup('Multi 1'), await createGroup('Multi 2'), await createGroup('Multi 3'), await createGroup('Multi 4')];
    const times = [
      ['2017-01-01', '2017-01-02'],
      ['2017-01-01', '2017-01-03'],
      ['2017-01-02', '2017-01-03'],
      ['2017-01-03', '2017-01-03'],
    ];
    groups.forEach((group, i) => setTimes('admin_groups', group.id, `${times[i]![0]}T00:00:00.000Z`, `${times[i]![1]}T00:00:00.000Z`));
    const ids = (order: number[]) => order.map((i) => groups[i]!.id);
    expect(await listedOrder('/admin_groups.json', orderQuery([['created_at', 'asc'], ['updated_at', 'asc']]), groups)).toEqual(ids([0, 1, 2, 3]));
    expect(await listedOrder('/admin_groups.json', orderQuery([['created_at', 'desc'], ['updated_at', 'desc']]), groups)).toEqual(ids([3, 2, 1, 0]));
    expect(await listedOrder('/admin_groups.json', orderQuery([['created_at', 'desc'], ['updated_at', 'asc']]), groups)).toEqual(ids([3, 2, 0, 1]));
  });

  it('lists API scopes by name when no order is asked for, and by host or prefix when one is', async () => {
    const host = 'default-order.example.com';
    const scopes = [await createScope('A', host, '/4'), await createScope('Z', host, '/1'), await createScope('B', host, '/3'), await createScope('Y', host, '/2')];
    const names = async (query: string) => {
      const listed = await gw.adminApi('GET', `/api_scopes.json${query}`);
      return listed.body.data.filter((scope: { host: string }) => scope.host === host).map((scope: { name: string }) => scope.name);
    };
    expect(await names('')).toEqual(['A', 'B', 'Y', 'Z']);
    expect(await names(`?${orderQuery([['path_prefix', 'asc']])}`)).toEqual(['Z', 'Y', 'B', 'A']);
    expect(await names(`?${orderQuery([['name', 'desc']])}`)).toEqual(['Z', 'Y', 'B', 'A']);
    expect(await listedOrder('/api_scopes.json', orderQuery([['host', 'desc'], ['name', 'asc']]), scopes)).toEqual([scopes[0], scopes[2], scopes[3], scopes[1]].map((scope) => scope!.id));
  });

  it('orders API backends by name or frontend host', async () => {
    const made: Row[] = [];
    for (const name of ['Order B', 'Order C', 'Order A']) {
      const created = await gw.adminApi('POST', '/apis', {
        api: { name, frontend_host: `${name.slice(-1).toLowerCase()}.order.example.com`, backend_host: 'example.com', servers: [{ host: 'example.com', port: 80 }], url_matches: [{ frontend_prefix: `/${name.slice(-1)}/`, backend_prefix: '/' }] },
      });
      expect(created.status).toBe(201);
      made.push(created.body.api);
    }
    expect(await listedOrder('/apis.json', orderQuery([['name', 'asc']]), made)).toEqual([made[2], made[0], made[1]].map((api) => api!.id));
    expect(await listedOrder('/apis.json', orderQuery([['frontend_host', 'desc']]), made)).toEqual([made[1], made[0], made[2]].map((api) => api!.id));
    // A search and an order together, paged.
    const page = await gw.adminApi('GET', `/apis.json?search%5Bvalue%5D=order.example&${orderQuery([['name', 'desc']])}&start=1&length=1`);
    expect(page.body).toMatchObject({ recordsTotal: 3, data: [{ id: made[0]!.id }] });
  });
});

describe('parameters API Umbrella refuses', () => {
  const invalid = (field: string, field_label: string, message: string) => ({ status: 422, body: { errors: [{ code: 'INVALID_INPUT', field, field_label, message }] } });

  it('answers 422 for a start, length or draw that is no number, on every list', async () => {
    for (const path of LISTS) {
      for (const field of ['length', 'start', 'draw']) {
        const answer = await gw.adminApi('GET', `${path}.json?${field}=abc`);
        expect({ path, status: answer.status, body: answer.body }).toEqual({ path, ...invalid(field, field, 'is not a number') });
      }
    }
    // Numbers that are no page keep the default: DataTables sends length=-1 for "all".
    expect((await gw.adminApi('GET', '/api_scopes.json?length=-1')).status).toBe(200);
    expect((await gw.adminApi('GET', '/users.json?length=&start=')).status).toBe(200);
  });

  it('answers 422 for a search given twice or as a list, which was read as no search (every row), on every list', async () => {
    for (const path of LISTS) {
      for (const [query, label] of [
        ['search=zzz&search=yyy', 'search'],
        ['search%5B%5D=zzz', 'search[]'],
        ['search%5Bvalue%5D=zzz&search%5Bvalue%5D=yyy', 'search[value]'],
        ['search%5Bvalue%5D%5B%5D=zzz', 'search[value][]'],
      ] as const) {
        const answer = await gw.adminApi('GET', `${path}.json?${query}`);
        expect({ path, query, status: answer.status, body: answer.body }).toEqual({ path, query, ...invalid('search', label, 'is not a string') });
      }
    }
    // DataTables sends search[regex] beside the value.
    expect((await gw.adminApi('GET', '/users.json?search%5Bvalue%5D=zzz&search%5Bregex%5D=false')).status).toBe(200);
  });

  it('answers 422 for an order on a column that is not orderable, a column index not sent, or a direction other than asc and desc', async () => {
    for (const path of LISTS) {
      expect({ path, ...(await gw.adminApi('GET', `${path}?${orderQuery([['password_hash', 'asc']])}`)) }).toMatchObject({
        path,
        ...invalid('data', 'columns[0][data]', 'is not a valid orderable column name'),
      });
      expect({ path, ...(await gw.adminApi('GET', `${path}?${orderQuery([['created_at', 'up' as 'asc']])}`)) }).toMatchObject({
        path,
        ...invalid('dir', 'order[2][dir]', "must be 'asc' or 'desc'"),
      });
      expect({ path, ...(await gw.adminApi('GET', `${path}?order%5B0%5D%5Bcolumn%5D=3`)) }).toMatchObject({
        path,
        ...invalid('column', 'order[0][column]', 'is not a valid column index'),
      });
    }
  });
});
