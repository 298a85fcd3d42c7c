// An order goes in with its search document complete, its lines' text included (migration
// order_search_document_at_insert): every order written through the doors (REST creation, the
// REST bulk import, v3 ordersImport) holds exactly order_search_document of its stored row and
// lines, and creating an order writes the order row once, so its lines' insert does not
// rewrite it (an update of every index of Order, with its triggers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '../../src/generated/prisma/client.ts';
import { createOrder } from '../../src/domain/orders.ts';
import { orderInput } from '../support/orderInput.ts';
import { call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;

beforeAll(async () => {
  server = await startTestServer({}, { WEBHOOK_DISPATCHER: 'false' });
  store = await createTestStore(server.db, { name: 'Searched store' });
});
afterAll(async () => server?.close());

const order = (orderId: string, extra: Record<string, unknown> = {}) => ({
  orderId,
  createdAt: '2026-02-01T10:00:00Z',
  customer: { email: 'Zoe.Dupont@Example.com', firstName: 'Zoë', lastName: 'Dupont', phoneNumber: '+1 (415) 555-0107' },
  tags: ['VIP', 'Rentrée'],
  lineItems: [
    { id: 'l0', productId: 'ext-poster', sku: 'POSTER-01', title: 'Affiche Café', quantity: 1, price: 10 },
    { id: 'l1', productId: 'ext-mug', title: 'Mug without a SKU', quantity: 2, price: 5 },
    { id: 'l2', productId: 'ext-tee', sku: 'TEE-RED-M', title: 'Trail Tee Red', quantity: 1, price: 20 },
  ],
  ...extra,
});

describe("an order's search document", () => {
  it('is order_search_document of the stored order and lines, for orders created and imported through the doors', async () => {
    expect((await call(server, 'POST', `/v2.2/stores/${store.storeId}/orders`, { secret: store.secret, body: order('doc-1') })).status).toBe(200);
    expect((await call(server, 'POST', `/v2.2/stores/${store.storeId}/orders`, { secret: store.secret, body: order('doc-2', { tags: [], customer: undefined }) })).status).toBe(200);
    const imported = await call(server, 'POST', `/v2.2/stores/${store.storeId}/orders/bulk`, {
      secret: store.secret,
      body: { orders: [order('doc-3'), order('doc-4', { lineItems: [{ id: 'only', productId: 'p', title: 'Élan', quantity: 1 }] }), order('doc-5')] },
    });
    expect(imported.body).toMatchObject({ processedCount: 3, errorCount: 0 });
    const v3 = await graphql(server, store.secret, `mutation ($orders: [OrderInput!]!) { ordersImport(orders: $orders) { index userErrors { message } } }`, {
      orders: [{ ...order('doc-6'), customer: { email: 'ada@example.com', firstName: 'Ada' } }],
    });
    expect(v3.errors).toBeUndefined();

    const rows = await server.db.sql.query<{ externalId: string; searchText: string | null; expected: string | null }>(
      `SELECT o."externalId", o."searchText", order_search_document(o) AS expected FROM "Order" o WHERE o."storeId" = $1 ORDER BY o."externalId"`,
      [store.storeId],
    );
    expect(rows.map((r) => r.externalId)).toEqual(['doc-1', 'doc-2', 'doc-3', 'doc-4', 'doc-5', 'doc-6']);
    for (const row of rows) expect(row.searchText, row.externalId).toBe(row.expected);
    // The lines' text is in it, folded as the query words are.
    expect(rows[0].searchText).toContain('affiche cafe\nmug without a sku\ntee-red-m\ntrail tee red');
    expect(rows[3].searchText).toContain('elan');
  });

  it('is written with the order row: creating an order updates no Order row', async () => {
    // The transaction's own counts (PGlite's single backend may carry earlier ones: the difference is this order's).
    const written = (tx: Prisma.TransactionClient) =>
      tx.$queryRawUnsafe<{ inserted: number; updated: number }[]>(`SELECT n_tup_ins::int AS inserted, n_tup_upd::int AS updated FROM pg_stat_xact_user_tables WHERE relname = 'Order'`);
    await server.db.prisma.$transaction(async (tx) => {
      const [before] = await written(tx);
      await createOrder(tx, store.storeId, orderInput('doc-once', { email: 'grace@example.org', name: 'Grace Hopper' }, [{ sku: 'CAP-01', title: 'Cap' }, { sku: 'MUG-02', title: 'Enamel Mug' }]));
      const [after] = await written(tx);
      expect({ inserted: after.inserted - before.inserted, updated: after.updated - before.updated }).toEqual({ inserted: 1, updated: 0 });
    });
  });
});
