// Statement budgets of the hottest operations (issues 10 and 22), counted with
// db.onStatement: BEGIN, COMMIT and ROLLBACK are not counted. Timings are the bench's.
// A read answers in at most 3: the client lookup (when not cached), the one statement that
// builds the whole selection, and at most one more (a page's count or a second root field).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementsDuring } from '../support/counts.ts';
import { seedLevel, seedLocation, seedProduct } from '../support/inventoryFixtures.ts';
import { createTestOrder, insertTestReturn, type TestOrder } from '../support/returnFixtures.ts';
import { call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
});
afterAll(async () => server?.close());

const statementsOf = (fn: () => Promise<unknown>) => statementsDuring(server.db, fn);

describe('statement budget', () => {
  it('an upsert of an existing customer with known fields is one statement (the budget is 5)', async () => {
    const path = `/v2.2/stores/${store.storeId}/customers`;
    const body = (n: number) => ({ email: 'budget@example.com', firstName: 'Ada', lastName: `Budget ${n}`, customFields: { tier: 'gold', visits: n } });
    expect((await call(server, 'PUT', path, { secret: store.secret, body: body(0) })).status).toBe(201);
    await call(server, 'PUT', path, { secret: store.secret, body: body(1) });
    const statements = await statementsOf(async () => expect((await call(server, 'PUT', path, { secret: store.secret, body: body(2) })).status).toBe(200));
    expect(statements.length, statements.join('\n---\n')).toBe(1);
  });
});

describe('reads', () => {
  let order: TestOrder;

  beforeAll(async () => {
    for (let i = 0; i < 20; i++) {
      order = await createTestOrder(server.db, store.storeId, { lines: [{ quantity: 2 }, { quantity: 1 }, { quantity: 3 }] });
      await insertTestReturn(server.db, store.storeId, order);
    }
    const customer = { email: 'shopper@example.com', firstName: 'Sam', lastName: 'Shopper' };
    await call(server, 'PUT', `/v2.2/stores/${store.storeId}/customers`, { secret: store.secret, body: customer });
    const locationId = await seedLocation(server.db, store.storeId, 'Budget warehouse');
    for (let i = 0; i < 20; i++) {
      const productId = await seedProduct(server.db, store.storeId, { title: `Budget product ${i}` });
      await seedLevel(server.db, { storeId: store.storeId, productId, locationId, quantity: 10 + i });
    }
  });

  it.each([
    ['the returns page of 20', () => `/v2.2/stores/${store.storeId}/returns?page-size=20`],
    ['GET order', () => `/v2.2/stores/${store.storeId}/orders/${order.id}`],
    ['GET customer', () => `/v2.2/stores/${store.storeId}/customers?email=shopper%40example.com`],
    ['the inventory levels page of 20', () => `/v2.2/stores/${store.storeId}/inventory-levels?page-size=20`],
    ['the warehouse return list', () => '/api/v1/warehouse/return/list'],
    ['the /v3/rest returns page of 20', () => '/v3/rest/returns?first=20'],
  ])('%s is at most 3 statements, none of them per row', async (_name, path) => {
    await call(server, 'GET', path(), { secret: store.secret });
    const statements = await statementsOf(async () => expect((await call(server, 'GET', path(), { secret: store.secret })).status).toBe(200));
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(3);
  });

  it('a returns page costs the same number of statements for 5 returns as for 20', async () => {
    const page = (size: number) => `/v2.2/stores/${store.storeId}/returns?page-size=${size}`;
    await call(server, 'GET', page(20), { secret: store.secret });
    const [five, twenty] = [
      await statementsOf(async () => expect((await call(server, 'GET', page(5), { secret: store.secret })).status).toBe(200)),
      await statementsOf(async () => expect((await call(server, 'GET', page(20), { secret: store.secret })).status).toBe(200)),
    ];
    expect(twenty.length, twenty.join('\n---\n')).toBe(five.length);
  });
});
