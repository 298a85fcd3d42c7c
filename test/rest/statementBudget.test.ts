// Statement budgets of the hottest REST operations (issue 10), counted with
// db.onStatement: BEGIN, COMMIT and ROLLBACK are not counted. Timings are the bench's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementsDuring } from '../support/counts.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
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

describe('returns page', () => {
  it('costs the same number of statements for 5 returns as for 20 (no statement per return)', async () => {
    for (let i = 0; i < 20; i++) {
      const order = await createTestOrder(server.db, store.storeId, { lines: [{ quantity: 2 }, { quantity: 1 }] });
      await insertTestReturn(server.db, store.storeId, order);
    }
    const page = (size: number) => `/v2.2/stores/${store.storeId}/returns?page-size=${size}`;
    await call(server, 'GET', page(20), { secret: store.secret });
    const [five, twenty] = [
      await statementsOf(async () => expect((await call(server, 'GET', page(5), { secret: store.secret })).status).toBe(200)),
      await statementsOf(async () => expect((await call(server, 'GET', page(20), { secret: store.secret })).status).toBe(200)),
    ];
    expect(twenty.length, twenty.join('\n---\n')).toBe(five.length);
    expect(twenty.length).toBeLessThanOrEqual(15);
  });
});
