// Orders on the v3 GraphQL door: createOrder returning the Order with its lines, Money
// amounts, customer and addresses; order(id:), orderByExternalId and node(id:) limited to
// the caller's store; the scopes that guard them; errors as extensions.code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { addApiClient, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
let warehouse: string;
let defaultLocation: string;
let productId: string;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other' });
  warehouse = newId('location');
  await server.db.prisma.location.create({ data: { id: warehouse, storeId: store.storeId, name: 'Depot' } });
  productId = newId('product');
  await server.db.prisma.product.create({ data: { id: productId, storeId: store.storeId, title: 'Lamp', sku: 'LAMP' } });
  await server.db.prisma.inventoryLevel.create({ data: { id: newId('inventoryLevel'), storeId: store.storeId, productId, locationId: warehouse, quantity: 9 } });
  defaultLocation = (await server.db.prisma.store.findUniqueOrThrow({ where: { id: store.storeId } })).defaultLocationId!;
});
afterAll(async () => server?.close());

const ORDER_FIELDS = `
  id name externalId placedAt currency tags customer { id }
  submittedCustomer { externalId email phoneNumber name firstName lastName }
  totalPrice { amount currency } subtotalPrice { amount currency } totalTax { amount } totalDiscount { amount } shippingCost { amount }
  shippingMethod shippingAddress { address1 city province country postalCode } billingAddress { address1 address2 }
  fulfillmentLocation { id }
  lineItems { id externalId position title quantity sku price { amount currency } discount { amount } product { id } externalProductId externalVariantId imageUrl oversoldQuantity fulfillmentLocation { id } order { id } }
  createdAt updatedAt`;

const CREATE = `mutation ($input: OrderInput!) { createOrder(input: $input) { ${ORDER_FIELDS} } }`;

type OrderData = Record<string, unknown> & { id: string; lineItems: Record<string, unknown>[] };

async function create(input: Record<string, unknown>, secret = store.secret) {
  return graphql(server, secret, CREATE, { input });
}

describe('createOrder', () => {
  it('creates the order and returns it with lines, Money amounts, customer and addresses', async () => {
    const res = await create({
      orderId: 'G-1',
      createdAt: '2026-04-01T08:00:00-04:00',
      currency: 'JPY',
      totalPrice: '1500',
      subtotalPrice: 1400,
      totalTax: '100',
      totalDiscount: '0',
      tags: ['web'],
      locationId: warehouse,
      customer: { id: 'cust-1', email: 'g@example.com', firstName: 'Gee' },
      shipping: { method: 'Post', cost: '0', address: { address1: '1-1 Chiyoda', city: 'Tokyo', country: 'JP' } },
      billingAddress: { address1: 'Bill 1' },
      lineItems: [
        { id: 'a', productId, title: 'Lamp', quantity: 2, price: '700', discount: '0', imageUrl: 'https://img.example/lamp.png' },
        { id: 'b', productId: 'ext', variantId: 'v9', sku: 'X', title: 'Cable', quantity: 1 },
      ],
    });
    expect(res.errors).toBeUndefined();
    const order = (res.data as { createOrder: OrderData }).createOrder;
    expect(order).toMatchObject({
      id: expect.stringMatching(/^ord_/),
      name: expect.stringMatching(/^#\d+$/),
      externalId: 'G-1',
      placedAt: '2026-04-01T12:00:00.000Z',
      currency: 'JPY',
      customer: null,
      tags: ['web'],
      submittedCustomer: { externalId: 'cust-1', email: 'g@example.com', phoneNumber: null, name: null, firstName: 'Gee', lastName: null },
      totalPrice: { amount: '1500', currency: 'JPY' },
      subtotalPrice: { amount: '1400', currency: 'JPY' },
      totalTax: { amount: '100' },
      totalDiscount: { amount: '0' },
      shippingCost: { amount: '0' },
      shippingMethod: 'Post',
      shippingAddress: { address1: '1-1 Chiyoda', city: 'Tokyo', province: null, country: 'JP', postalCode: null },
      billingAddress: { address1: 'Bill 1', address2: null },
      fulfillmentLocation: { id: warehouse },
    });
    expect(order.lineItems).toEqual([
      {
        id: expect.stringMatching(/^oli_/),
        externalId: 'a',
        position: 0,
        title: 'Lamp',
        quantity: 2,
        sku: null,
        price: { amount: '700', currency: 'JPY' },
        discount: { amount: '0' },
        product: { id: productId },
        externalProductId: productId,
        externalVariantId: null,
        imageUrl: 'https://img.example/lamp.png',
        oversoldQuantity: 0,
        fulfillmentLocation: { id: warehouse },
        order: { id: order.id },
      },
      {
        id: expect.stringMatching(/^oli_/),
        externalId: 'b',
        position: 1,
        title: 'Cable',
        quantity: 1,
        sku: 'X',
        price: null,
        discount: null,
        product: null,
        externalProductId: 'ext',
        externalVariantId: 'v9',
        imageUrl: null,
        oversoldQuantity: 0,
        fulfillmentLocation: { id: warehouse },
        order: { id: order.id },
      },
    ]);
  });

  it('formats amounts with the currency digits and keeps finer ones', async () => {
    const res = await create({ orderId: 'G-2', createdAt: '2026-04-01T00:00:00Z', totalPrice: '12.5', subtotalPrice: '0.125', lineItems: [{ id: 'a', productId: 'p', title: 'T', quantity: 1 }] });
    expect((res.data as { createOrder: OrderData }).createOrder).toMatchObject({
      currency: 'USD',
      totalPrice: { amount: '12.50' },
      subtotalPrice: { amount: '0.125' },
      submittedCustomer: null,
      fulfillmentLocation: { id: defaultLocation },
    });
  });

  it('answers invalid input with BAD_USER_INPUT and the issues, a duplicate with CONFLICT', async () => {
    const invalid = await create({ orderId: 'G-3', createdAt: '2026-04-01T00:00:00Z', totalTax: '-1', lineItems: [{ id: 'a', productId: 'p', title: 'T', quantity: 5000 }] });
    expect(invalid.errors?.[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [
        { path: 'lineItems.0.quantity', message: expect.any(String) },
        { path: 'totalTax', message: expect.any(String) },
      ],
    });
    const badDate = await create({ orderId: 'G-3', createdAt: 'tomorrow', lineItems: [{ id: 'a', productId: 'p', title: 'T', quantity: 1 }] });
    expect(badDate.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    await create({ orderId: 'G-4', createdAt: '2026-04-01T00:00:00Z', lineItems: [{ id: 'a', productId: 'p', title: 'T', quantity: 1 }] });
    const duplicate = await create({ orderId: 'G-4', createdAt: '2026-04-01T00:00:00Z', lineItems: [{ id: 'a', productId: 'p', title: 'T', quantity: 1 }] });
    expect(duplicate.errors?.[0].extensions?.code).toBe('CONFLICT');
  });

  it('needs orders_write; the writer reads back the order it made', async () => {
    const reader = await addApiClient(server.db, store.storeId, ['orders_read']);
    const input = { orderId: 'G-5', createdAt: '2026-04-01T00:00:00Z', lineItems: [{ id: 'a', productId: 'p', title: 'T', quantity: 1 }] };
    expect((await create(input, reader.secret)).errors?.[0].extensions?.code).toBe('FORBIDDEN');
    // Reading the order back in full also reads its linked product and customer, which take their own scopes.
    const writer = await addApiClient(server.db, store.storeId, ['orders_write', 'products_read', 'customers_read']);
    const made = await create(input, writer.secret);
    expect(made.errors).toBeUndefined();
    expect((made.data as { createOrder: OrderData }).createOrder.lineItems).toHaveLength(1);
  });
});

describe('reading orders', () => {
  const ONE = `query ($id: ID!, $externalId: String!) {
    order(id: $id) { id externalId lineItems { title } }
    orderByExternalId(externalId: $externalId) { id }
  }`;

  it('finds an order by our id and by the merchant id; another store sees neither', async () => {
    const made = (await create({ orderId: 'R-1', createdAt: '2026-04-01T00:00:00Z', lineItems: [{ id: 'a', productId: 'p', title: 'Read me', quantity: 1 }] })).data as { createOrder: OrderData };
    const id = made.createOrder.id;
    expect((await graphql(server, store.secret, ONE, { id, externalId: 'R-1' })).data).toEqual({
      order: { id, externalId: 'R-1', lineItems: [{ title: 'Read me' }] },
      orderByExternalId: { id },
    });
    expect((await graphql(server, other.secret, ONE, { id, externalId: 'R-1' })).data).toEqual({ order: null, orderByExternalId: null });
    const node = `query ($id: ID!) { node(id: $id) { id ... on Order { name } } }`;
    expect((await graphql(server, store.secret, node, { id })).data).toEqual({ node: { id, name: made.createOrder.name } });
    expect((await graphql(server, other.secret, node, { id })).data).toEqual({ node: null });
  });

  it('order lookups need orders_read; returns clients may read an order through node(id:), others may not', async () => {
    const made = (await create({ orderId: 'R-2', createdAt: '2026-04-01T00:00:00Z', lineItems: [{ id: 'a', productId: 'p', title: 'T', quantity: 1 }] })).data as { createOrder: OrderData };
    const id = made.createOrder.id;
    const returns = await addApiClient(server.db, store.storeId, ['returns_read']);
    expect((await graphql(server, returns.secret, ONE, { id, externalId: 'R-2' })).errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const node = `query ($id: ID!) { node(id: $id) { ... on Order { externalId lineItems { title } } } }`;
    expect((await graphql(server, returns.secret, node, { id })).data).toEqual({ node: { externalId: 'R-2', lineItems: [{ title: 'T' }] } });
    const inventory = await addApiClient(server.db, store.storeId, ['inventory_read']);
    expect((await graphql(server, inventory.secret, node, { id })).errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});
