// v3 orders link to the objects behind their ids (issue 11): Order.customer,
// Order.fulfillmentLocation, OrderLineItem.product and .fulfillmentLocation, loaded with
// the order (plugin-prisma selections), so the statements a read costs do not grow with
// its lines; oversold lines and the default location are visible and changeable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrder } from '../../src/domain/orders.ts';
import { newId } from '../../src/domain/ids.ts';
import { createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { statementsDuring } from '../support/counts.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
let warehouse: string;
const products: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other' });
  const { prisma } = server.db;
  warehouse = newId('location');
  await prisma.location.create({ data: { id: warehouse, storeId: store.storeId, name: 'Depot' } });
  for (let i = 0; i < 20; i++) {
    const id = newId('product');
    products.push(id);
    await prisma.product.create({ data: { id, storeId: store.storeId, title: `Product ${i}`, sku: `SKU-${i}` } });
    await prisma.inventoryLevel.create({ data: { id: newId('inventoryLevel'), storeId: store.storeId, productId: id, locationId: warehouse, quantity: 1 } });
  }
  await prisma.customer.create({ data: { id: newId('customer'), storeId: store.storeId, email: 'ada@example.com' } });
});
afterAll(async () => server?.close());

const READ = `query ($id: ID!) { order(id: $id) {
  id customer { id email } fulfillmentLocation { id name }
  lineItems { quantity oversoldQuantity product { id title } fulfillmentLocation { id } }
} }`;

async function orderWithLines(n: number, orderId: string) {
  return createOrder(server.db.prisma, store.storeId, {
    orderId,
    createdAt: '2026-05-01T00:00:00Z',
    customer: { email: 'ada@example.com' },
    locationId: warehouse,
    lineItems: products.slice(0, n).map((productId, i) => ({ id: `l${i}`, productId, title: 'x', quantity: 2 })),
  });
}

async function statementsOf(run: () => Promise<unknown>): Promise<number> {
  return (await statementsDuring(server.db, run)).length;
}

describe('linked order fields', () => {
  it('reads customer, location and line products as objects, each line oversold by what stock lacked', async () => {
    const order = await orderWithLines(2, 'LINK-1');
    const res = await graphql(server, store.secret, READ, { id: order.id });
    expect(res.errors).toBeUndefined();
    expect(res.data).toMatchObject({
      order: {
        id: order.id,
        customer: { email: 'ada@example.com' },
        fulfillmentLocation: { id: warehouse, name: 'Depot' },
        lineItems: [
          { quantity: 2, oversoldQuantity: 1, product: { id: products[0], title: 'Product 0' }, fulfillmentLocation: { id: warehouse } },
          { quantity: 2, oversoldQuantity: 1, product: { id: products[1], title: 'Product 1' }, fulfillmentLocation: { id: warehouse } },
        ],
      },
    });
  });

  it('costs the same statements for 1 line as for 20 (no query per line or per link)', async () => {
    const small = await orderWithLines(1, 'LINK-S');
    const large = await orderWithLines(20, 'LINK-L');
    const one = await statementsOf(() => graphql(server, store.secret, READ, { id: small.id }));
    const twenty = await statementsOf(() => graphql(server, store.secret, READ, { id: large.id }));
    expect(one).toBeGreaterThan(0);
    expect(twenty).toBe(one);
  });

  it('keeps the links to the caller\'s store and scopes', async () => {
    const order = await orderWithLines(1, 'LINK-SCOPE');
    expect((await graphql(server, other.secret, READ, { id: order.id })).data).toEqual({ order: null });
  });
});

describe('the default location', () => {
  it('is readable on the store and changed by locationSetDefault; orders without locationId then commit there', async () => {
    const set = await graphql(server, store.secret, `mutation ($id: ID!) { locationSetDefault(id: $id) { location { id } userErrors { code field message } } }`, { id: warehouse });
    expect(set.data).toEqual({ locationSetDefault: { location: { id: warehouse }, userErrors: [] } });
    expect((await graphql(server, store.secret, '{ store { defaultLocation { id } } }')).data).toEqual({ store: { defaultLocation: { id: warehouse } } });
    const order = await createOrder(server.db.prisma, store.storeId, {
      orderId: 'DEFAULT-1',
      createdAt: '2026-05-01T00:00:00Z',
      lineItems: [{ id: '1', productId: products[5], title: 'x', quantity: 1 }],
    });
    const read = await graphql(server, store.secret, READ, { id: order.id });
    expect(read.data).toMatchObject({ order: { fulfillmentLocation: { id: warehouse }, lineItems: [{ fulfillmentLocation: { id: warehouse } }] } });
  });

  it("refuses another store's location, naming the id the caller sent", async () => {
    const { defaultLocationId } = await server.db.prisma.store.findUniqueOrThrow({ where: { id: other.storeId } });
    const res = await graphql(server, store.secret, `mutation ($id: ID!) { locationSetDefault(id: $id) { location { id } userErrors { code field message } } }`, { id: defaultLocationId });
    expect(res.data).toEqual({ locationSetDefault: { location: null, userErrors: [{ code: 'NOT_FOUND', field: ['id'], message: `location ${defaultLocationId} not found` }] } });
  });
});
