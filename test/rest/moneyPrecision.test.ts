// Amounts take up to 15 integer and 4 fractional digits (19 significant), more than a
// double holds. They must come back exact wherever they are read, including through a
// relation: Prisma's relationJoins strategy parses a relation's numerics as JSON numbers
// and rounds them (prisma/orm#25639), which is why relations load one statement per level.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

const PRICE = '12345678901234.5678';
const TOTAL = '123456789012345.6789';

let server: TestServer;
let store: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  const order = await createTestOrder(server.db, store.storeId, { lines: [{ price: PRICE }], totalPrice: TOTAL, subtotalPrice: PRICE });
  await insertTestReturn(server.db, store.storeId, order);
});
afterAll(async () => server?.close());

describe('amounts of 19 significant digits read through relations', () => {
  it('are exact on v3: the order line, the returned item and the order total', async () => {
    const result = await graphql(
      server,
      store.secret,
      `{ returns(first: 5) { nodes { items { unitPrice { amount } } order { totalPrice { amount } lineItems { price { amount } } } } } }`,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      returns: {
        nodes: [{ items: [{ unitPrice: { amount: PRICE } }], order: { totalPrice: { amount: TOTAL }, lineItems: [{ price: { amount: PRICE } }] } }],
      },
    });
  });

  it('are exact on the v2.2 returns page', async () => {
    const response = await call(server, 'GET', `/v2.2/stores/${store.storeId}/returns`, { secret: store.secret });
    expect(response.status).toBe(200);
    expect(response.text).toContain(`"${PRICE}"`);
    expect(response.text).toContain(`"${TOTAL}"`);
    expect(response.text).not.toMatch(/12345678901234\.568\b/);
  });
});
