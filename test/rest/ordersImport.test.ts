// Bulk import of existing orders (issue 46): POST /v2.2/stores/{storeId}/orders/bulk and the v3
// ordersImport mutation. Each order is judged as order creation judges it and refused alone
// (with creation's status and message), the rest are written with gapless numbers; historical
// orders commit no stock unless asked; an Idempotency-Key replays the answer and writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { rowCounts } from '../support/counts.ts';
import { call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({}, { WEBHOOK_DISPATCHER: 'false' });
});
afterAll(async () => server?.close());

async function storeWithStock(name: string): Promise<{ store: TestStore; levelId: string }> {
  const store = await createTestStore(server.db, { name });
  const { defaultLocationId } = await server.db.prisma.store.findUniqueOrThrow({ where: { id: store.storeId } });
  const productId = newId('product');
  await server.db.prisma.product.create({ data: { id: productId, storeId: store.storeId, title: 'Tee', sku: 'TEE' } });
  const levelId = newId('inventoryLevel');
  await server.db.prisma.inventoryLevel.create({ data: { id: levelId, storeId: store.storeId, productId, locationId: defaultLocationId!, quantity: 5 } });
  return { store, levelId };
}

const order = (orderId: string, extra: Record<string, unknown> = {}) => ({
  orderId,
  createdAt: '2024-02-01T10:00:00Z',
  lineItems: [{ id: 'l0', productId: 'ext-tee', sku: 'TEE', title: 'Tee', quantity: 2, price: 10 }],
  ...extra,
});

const importPath = (store: TestStore) => `/v2.2/stores/${store.storeId}/orders/bulk`;

describe('POST /orders/bulk', () => {
  it('writes the valid orders, refuses the others by index with the status and message creation answers', async () => {
    const { store, levelId } = await storeWithStock('Import');
    expect((await call(server, 'POST', `/v2.2/stores/${store.storeId}/orders`, { secret: store.secret, body: order('taken') })).status).toBe(200);
    const orders = [
      order('h-1'),
      order('h-2', { lineItems: [{ id: 'l0', productId: 'p', title: 'T', quantity: 0 }] }),
      order('taken'),
      order('h-3', { createdAt: 'yesterday' }),
      order('h-1'),
      { orderId: 'h-4' },
      order('h-5', { locationId: 'loc_unknown', currencyCode: 'eur' }),
      order('h-6', { totalPrice: 1.23456 }),
      order('h-7'),
    ];
    const answer = await call(server, 'POST', importPath(store), { secret: store.secret, body: { orders } });
    expect(answer.status).toBe(200);
    const body = answer.body as { totalCount: number; processedCount: number; errorCount: number; results: Record<string, unknown>[] };
    expect(body).toMatchObject({ totalCount: 9, processedCount: 2, errorCount: 7 });
    expect(body.results.map((r) => [r.index, r.status, r.statusCode ?? r.name])).toEqual([
      [0, 'created', '#1002'],
      [1, 'error', 400],
      [2, 'error', 409],
      [3, 'error', 400],
      [4, 'error', 409],
      [5, 'error', 400],
      [6, 'error', 400],
      [7, 'error', 400],
      [8, 'created', '#1003'],
    ]);
    expect(body.results[1].error).toBe('lineItems.0.quantity: must be an integer from 1 to 1000');
    expect(body.results[2].error).toBe('an order with orderId "taken" already exists');
    expect(body.results[3].error).toMatch(/^createdAt: DateTime must be an ISO 8601 date-time/);
    expect(body.results[4].error).toBe('orderId "h-1" appears earlier in the request');
    expect(body.results[5].error).toMatch(/createdAt/);
    expect(body.results[6].error).toBe('locationId: loc_unknown is not a location of this store or of a fulfillment service linked to it');
    expect(body.results[7].error).toMatch(/^totalPrice: /);
    const created = await server.db.prisma.order.findUniqueOrThrow({ where: { id: body.results[0].orderId as string }, include: { lineItems: true } });
    expect(created).toMatchObject({ externalId: 'h-1', name: '#1002' });
    // Historical: the line names our product but commits nothing.
    expect(created.lineItems[0]).toMatchObject({ committedLevelId: null, oversoldQuantity: 0 });
    expect(created.lineItems[0].productId).not.toBeNull();
    expect((await server.db.prisma.inventoryLevel.findUniqueOrThrow({ where: { id: levelId } })).committed).toBe(2);
    expect(await server.db.prisma.event.count({ where: { storeId: store.storeId, topic: 'order.created' } })).toBe(3);
  });

  it('commits stock when asked, as creation does', async () => {
    const { store, levelId } = await storeWithStock('Import with stock');
    const answer = await call(server, 'POST', importPath(store), { secret: store.secret, body: { orders: [order('a'), order('b'), order('c')], commitStock: true } });
    expect((answer.body as { processedCount: number }).processedCount).toBe(3);
    const level = await server.db.prisma.inventoryLevel.findUniqueOrThrow({ where: { id: levelId } });
    expect(level.committed).toBe(6);
    const lines = await server.db.prisma.orderLineItem.findMany({ where: { committedLevelId: levelId } });
    expect(lines.reduce((sum, line) => sum + line.oversoldQuantity, 0)).toBe(1);
  });

  it('writes 250 orders in batches with gapless numbers', async () => {
    const { store } = await storeWithStock('Import many');
    const orders = Array.from({ length: 250 }, (_, i) => order(`m-${i}`));
    const answer = await call(server, 'POST', importPath(store), { secret: store.secret, body: { orders } });
    const results = (answer.body as { results: { name: string }[] }).results;
    expect(results.map((r) => r.name)).toEqual(orders.map((_o, i) => `#${1001 + i}`));
  });

  it('refuses a body that is not a list of 1 to 1,000 orders with 400 and writes nothing', async () => {
    const { store } = await storeWithStock('Import refused');
    const before = await rowCounts(server.db);
    for (const body of [{}, { orders: [] }, { orders: Array.from({ length: 1001 }, (_, i) => order(`x-${i}`)) }, { orders: 'all' }]) {
      const answer = await call(server, 'POST', importPath(store), { secret: store.secret, body });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: expect.stringMatching(/orders/) });
    }
    expect(await rowCounts(server.db)).toEqual(before);
  });

  it('answers a retry with the same Idempotency-Key with the first answer, writing nothing again', async () => {
    const { store } = await storeWithStock('Import idempotent');
    const send = () => call(server, 'POST', importPath(store), { secret: store.secret, body: { orders: [order('k-1'), order('k-2')] }, headers: { 'idempotency-key': 'import-1' } });
    const first = await send();
    const before = await rowCounts(server.db);
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await rowCounts(server.db)).toEqual(before);
  });
});

describe('v3 ordersImport', () => {
  it('answers each order at its index: the order written, or user errors under orders.<index>', async () => {
    const { store } = await storeWithStock('Import v3');
    const result = await graphql(
      server,
      store.secret,
      `mutation ($orders: [OrderInput!]!) { ordersImport(orders: $orders) { index order { name externalId lineItems { quantity oversoldQuantity } } userErrors { code field message } } }`,
      { orders: [order('v-1'), order('v-2', { lineItems: [] }), order('v-1')] },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data?.ordersImport).toEqual([
      { index: 0, order: { name: '#1001', externalId: 'v-1', lineItems: [{ quantity: 2, oversoldQuantity: 0 }] }, userErrors: [] },
      { index: 1, order: null, userErrors: [{ code: 'INVALID', field: ['orders', '1', 'lineItems'], message: 'must contain at least one line item' }] },
      { index: 2, order: null, userErrors: [{ code: 'CONFLICT', field: ['orders', '2', 'orderId'], message: 'orderId "v-1" appears earlier in the request' }] },
    ]);
  });

  it('needs orders_write', async () => {
    const store = await createTestStore(server.db, { scopes: ['orders_read'] });
    const result = await graphql(server, store.secret, `mutation ($orders: [OrderInput!]!) { ordersImport(orders: $orders) { index } }`, { orders: [order('n-1')] });
    expect(result.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect(await server.db.prisma.order.count({ where: { storeId: store.storeId } })).toBe(0);
  });
});
