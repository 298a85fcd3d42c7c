// POST /v2.2/stores/{storeId}/orders: docs/interface-rules.md "Orders" through the
// REST door: the {orderId, externalOrderId} answer, `{error}` bodies for 400/401/409 and
// problem details otherwise, each checked against the OpenAPI document; locationId rules,
// fulfillment origin, stock commitment, exact amounts; nothing written when refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { addApiClient, call, createTestStore, linkFulfillmentService, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { expectValidRestResponse } from '../support/openapi.ts';
import { rowCounts } from '../support/counts.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
let warehouse: string;
let serviceLocation: string;
let unlinkedLocation: string;
let otherStoreLocation: string;
let shirt: { id: string; sku: string };
let mug: { id: string; sku: string };

const path = (storeId: string) => `/v2.2/stores/${storeId}/orders`;
type Response = Awaited<ReturnType<typeof call>>;

async function location(storeId: string, name: string): Promise<string> {
  const id = newId('location');
  await server.db.prisma.location.create({ data: { id, storeId, name, street1: `${name} street`, city: 'Reno', stateCode: 'NV', postalCode: '89502', countryCode: 'US' } });
  return id;
}

async function product(storeId: string, title: string, sku: string, stock: Record<string, number>) {
  const id = newId('product');
  await server.db.prisma.product.create({ data: { id, storeId, title, sku } });
  for (const [locationId, quantity] of Object.entries(stock)) {
    await server.db.prisma.inventoryLevel.create({ data: { id: newId('inventoryLevel'), storeId, productId: id, locationId, quantity } });
  }
  return { id, sku };
}

const level = (productId: string, locationId: string) =>
  server.db.prisma.inventoryLevel.findUniqueOrThrow({ where: { productId_locationId: { productId, locationId } } });

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other store' });
  await server.db.prisma.store.update({
    where: { id: store.storeId },
    data: { originName: 'Head office', originStreet1: '1 Market St', originCity: 'San Francisco', originStateCode: 'CA', originPostalCode: '94105', originCountryCode: 'US' },
  });
  const service = await createTestStore(server.db, { kind: 'FULFILLMENT_SERVICE', name: '3PL' });
  const unlinked = await createTestStore(server.db, { kind: 'FULFILLMENT_SERVICE', name: 'Stranger 3PL' });
  await linkFulfillmentService(server.db.prisma, store.storeId, service.storeId);
  warehouse = await location(store.storeId, 'Main warehouse');
  serviceLocation = await location(service.storeId, '3PL Reno');
  unlinkedLocation = await location(unlinked.storeId, 'Elsewhere');
  otherStoreLocation = await location(other.storeId, 'Their warehouse');
  shirt = await product(store.storeId, 'Shirt', 'SHIRT-1', { [warehouse]: 10, [serviceLocation]: 5 });
  mug = await product(store.storeId, 'Mug', 'MUG-1', { [warehouse]: 3 });
});
afterAll(async () => server?.close());

let sequence = 0;
function order(overrides: Record<string, unknown> = {}) {
  sequence += 1;
  return {
    orderId: `ORDER-${sequence}`,
    createdAt: '2026-03-01T10:00:00Z',
    lineItems: [{ id: `L${sequence}-1`, productId: 'merchant-product-1', title: 'Something', quantity: 1, price: 10 }],
    ...overrides,
  };
}

/** `secret` null sends no Authorization header. */
async function post(body: unknown, secret: string | null = store.secret, storeId = store.storeId): Promise<Response> {
  const res = await call(server, 'POST', path(storeId), { secret: secret ?? undefined, body });
  expectValidRestResponse('POST', path(storeId), res);
  return res;
}

function expectError(res: Response, status: number, mentions?: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(res.body as object)).toEqual(['error']);
  if (mentions) expect((res.body as { error: string }).error).toContain(mentions);
}

function expectProblem(res: Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: 'about:blank', status, detail: expect.any(String) });
}

const stored = (id: string) =>
  server.db.prisma.order.findUniqueOrThrow({
    where: { id },
    include: { lineItems: { orderBy: { position: 'asc' } }, fulfillmentGroups: true },
  });

describe('creating an order', () => {
  it('accepts null in every field the reference document lets be null, as a field not given', async () => {
    const nullAddress = { address1: null, address2: null, city: null, province: null, country: null, postalCode: null };
    const res = await post(
      order({
        orderId: 'NULLS-1',
        customer: { id: null, email: null, phoneNumber: null, name: null, firstName: null, lastName: null },
        shipping: { method: null, cost: null, address: nullAddress },
        billingAddress: nullAddress,
        totalPrice: null,
        subtotalPrice: null,
        totalTax: null,
        totalDiscount: null,
        tags: null,
        currencyCode: null,
        locationId: null,
        lineItems: [{ id: 'N1', productId: 'p', title: 'Thing', quantity: 1, variantId: null, sku: null, price: null, imageUrl: null, discount: null }],
      }),
    );
    expect(res.status).toBe(200);
    const saved = await stored((res.body as { orderId: string }).orderId);
    expect(saved).toMatchObject({ externalId: 'NULLS-1', totalPrice: null, customerEmail: null, tags: [] });
    expect(saved.lineItems[0]).toMatchObject({ externalVariantId: null, imageUrl: null, sku: null, price: null });
  });

  it('answers 200 {orderId, externalOrderId} and stores the order as sent, with exact amounts', async () => {
    const body = order({
      orderId: 'SHOP-1001',
      totalPrice: 1234567.891,
      subtotalPrice: 19.99,
      totalTax: 0.1,
      totalDiscount: 0,
      currencyCode: 'eur',
      tags: ['vip', 'gift'],
      customer: { id: 'c-77', email: 'Buyer@Example.com', phoneNumber: '+14155550123', name: 'Bea Buyer', firstName: 'Bea', lastName: 'Buyer' },
      shipping: { method: 'Express', cost: 4.5, address: { address1: '10 Mission St', city: 'San Francisco', province: 'CA', country: 'US', postalCode: '94105' } },
      billingAddress: { address1: '1 Bill St', city: 'Oakland' },
      lineItems: [
        { id: 'A', productId: 'ext-9', variantId: 'v-1', sku: 'NOPE', title: 'Poster', quantity: 2, price: 0.3, discount: 0.1, imageUrl: 'https://img.example/p.png' },
      ],
    });
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ orderId: expect.stringMatching(/^ord_[0-9a-z]{20}$/), externalOrderId: 'SHOP-1001' });
    const saved = await stored((res.body as { orderId: string }).orderId);
    expect(saved).toMatchObject({
      storeId: store.storeId,
      externalId: 'SHOP-1001',
      currency: 'EUR',
      tags: ['vip', 'gift'],
      customerExternalId: 'c-77',
      customerEmail: 'buyer@example.com',
      customerName: 'Bea Buyer',
      shippingMethod: 'Express',
      shippingAddress: { address1: '10 Mission St', city: 'San Francisco', province: 'CA', country: 'US', postalCode: '94105' },
      billingAddress: { address1: '1 Bill St', city: 'Oakland' },
    });
    expect(saved.placedAt.toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(saved.totalPrice!.toFixed()).toBe('1234567.891');
    expect(saved.subtotalPrice!.toFixed()).toBe('19.99');
    expect(saved.totalTax!.toFixed()).toBe('0.1');
    expect(saved.shippingCost!.toFixed()).toBe('4.5');
    expect(saved.lineItems).toHaveLength(1);
    expect(saved.lineItems[0]).toMatchObject({ externalId: 'A', externalProductId: 'ext-9', externalVariantId: 'v-1', sku: 'NOPE', title: 'Poster', quantity: 2, productId: null, imageUrl: 'https://img.example/p.png' });
    expect(saved.lineItems[0].price!.toFixed()).toBe('0.3');
    expect(saved.lineItems[0].discount!.toFixed()).toBe('0.1');
  });

  it('names orders #1001, #1002 ... in the store and uses the store currency by default', async () => {
    const before = await server.db.prisma.store.findUniqueOrThrow({ where: { id: store.storeId } });
    const first = await stored(((await post(order())).body as { orderId: string }).orderId);
    const second = await stored(((await post(order())).body as { orderId: string }).orderId);
    expect(first.name).toBe(`#${before.nextOrderNumber}`);
    expect(second.name).toBe(`#${before.nextOrderNumber + 1}`);
    expect(first.currency).toBe('USD');
  });

  it('records order.created in the outbox', async () => {
    const res = await post(order({ orderId: 'EVENTFUL' }));
    const id = (res.body as { orderId: string }).orderId;
    const events = await server.db.prisma.event.findMany({ where: { subjectId: id } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ topic: 'order.created', storeId: store.storeId, data: { id, externalId: 'EVENTFUL' } });
  });

  it('ignores properties the request format does not name', async () => {
    const res = await post(order({ note: 'gift wrap', lineItems: [{ id: 'X', productId: 'p', title: 'T', quantity: 1, colour: 'red' }] }));
    expect(res.status).toBe(200);
  });

  it('accepts the smallest order: the required fields only', async () => {
    const res = await post({ orderId: 'MINIMAL', createdAt: '2026-01-01T00:00:00+02:00', lineItems: [{ id: '1', productId: 'p', title: 'T', quantity: 1000 }] });
    expect(res.status).toBe(200);
  });
});

describe('fulfillment location and stock', () => {
  it("takes the origin from the store's default address and commits at its default location when locationId is omitted", async () => {
    const before = await level(shirt.id, warehouse);
    const { defaultLocationId } = await server.db.prisma.store.findUniqueOrThrow({ where: { id: store.storeId } });
    const res = await post(order({ lineItems: [{ id: '1', productId: shirt.id, title: 'Shirt', quantity: 2 }] }));
    const saved = await stored((res.body as { orderId: string }).orderId);
    expect(saved.fulfillmentGroups).toHaveLength(1);
    expect(saved.fulfillmentGroups[0]).toMatchObject({ locationId: defaultLocationId, originName: 'Head office', originStreet1: '1 Market St', originCity: 'San Francisco', originCountryCode: 'US' });
    expect(saved.lineItems[0]).toMatchObject({ productId: shirt.id, oversoldQuantity: 2 });
    expect((await level(shirt.id, warehouse)).committed).toBe(before.committed);
    expect(await level(shirt.id, defaultLocationId!)).toMatchObject({ quantity: 0, committed: 2 });
  });

  it("commits at the store's own location by our product id and by sku, and takes the origin from it", async () => {
    const shirtBefore = await level(shirt.id, warehouse);
    const mugBefore = await level(mug.id, warehouse);
    const res = await post(
      order({
        locationId: warehouse,
        lineItems: [
          { id: '1', productId: shirt.id, title: 'Shirt', quantity: 2 },
          { id: '2', productId: 'merchant-mug', sku: mug.sku, title: 'Mug', quantity: 1 },
          { id: '3', productId: shirt.id, title: 'Shirt again', quantity: 1 },
          { id: '4', productId: 'unknown', sku: 'UNKNOWN', title: 'Other', quantity: 7 },
        ],
      }),
    );
    expect(res.status).toBe(200);
    const saved = await stored((res.body as { orderId: string }).orderId);
    expect(saved.fulfillmentGroups[0]).toMatchObject({ locationId: warehouse, originName: 'Main warehouse', originStreet1: 'Main warehouse street' });
    expect(saved.lineItems.map((l) => l.productId)).toEqual([shirt.id, mug.id, shirt.id, null]);
    expect((await level(shirt.id, warehouse)).committed).toBe(shirtBefore.committed + 3);
    expect((await level(mug.id, warehouse)).committed).toBe(mugBefore.committed + 1);
    const adjustments = await server.db.prisma.inventoryAdjustment.findMany({ where: { referenceId: saved.id } });
    expect(adjustments.map((a) => a.committedDelta).sort()).toEqual([1, 3]);
  });

  it("accepts a linked fulfillment service's location and commits there", async () => {
    const before = await level(shirt.id, serviceLocation);
    const res = await post(order({ locationId: serviceLocation, lineItems: [{ id: '1', productId: 'x', sku: shirt.sku, title: 'Shirt', quantity: 4 }] }));
    expect(res.status).toBe(200);
    const saved = await stored((res.body as { orderId: string }).orderId);
    expect(saved.fulfillmentGroups[0]).toMatchObject({ locationId: serviceLocation, originName: '3PL Reno', originCity: 'Reno' });
    expect((await level(shirt.id, serviceLocation)).committed).toBe(before.committed + 4);
  });

  it('refuses with 400 {error} naming locationId a location of another store, of an unlinked service, or unknown; nothing written', async () => {
    const before = await rowCounts(server.db);
    for (const locationId of [otherStoreLocation, unlinkedLocation, 'loc_doesnotexist', 'nonsense']) {
      expectError(await post(order({ locationId, lineItems: [{ id: '1', productId: shirt.id, title: 'S', quantity: 1 }] })), 400, 'locationId');
    }
    expect(await rowCounts(server.db)).toEqual(before);
  });

  it('accepts an order whose lines exceed the stock on hand: 200, the shortfall recorded as oversold', async () => {
    const before = await level(mug.id, warehouse);
    const res = await post(order({ locationId: warehouse, lineItems: [{ id: '1', productId: 'ok', title: 'Other', quantity: 1 }, { id: '2', productId: mug.id, title: 'Mug', quantity: 50 }] }));
    expect(res.status).toBe(200);
    const saved = await stored((res.body as { orderId: string }).orderId);
    const after = await level(mug.id, warehouse);
    expect(after.committed).toBe(before.committed + 50);
    const shortfall = 50 - Math.max(0, before.quantity - before.committed - before.reserved);
    expect(saved.lineItems.map((l) => l.oversoldQuantity)).toEqual([0, shortfall]);
    expect(after.quantity - after.committed - after.reserved).toBe(-shortfall);
  });
});

describe('validation: 400 {error} naming the field, nothing written', () => {
  const line = { id: 'L', productId: 'P', title: 'T', quantity: 1 };
  const cases: [string, unknown, string][] = [
    ['missing orderId', { createdAt: '2026-01-01T00:00:00Z', lineItems: [line] }, 'orderId'],
    ['empty orderId', { orderId: '  ', createdAt: '2026-01-01T00:00:00Z', lineItems: [line] }, 'orderId'],
    ['missing createdAt', { orderId: 'V1', lineItems: [line] }, 'createdAt'],
    ['createdAt not a date-time', { orderId: 'V1', createdAt: 'yesterday', lineItems: [line] }, 'createdAt'],
    ['createdAt without a time zone', { orderId: 'V1', createdAt: '2026-01-01T10:00:00', lineItems: [line] }, 'createdAt'],
    ['missing lineItems', { orderId: 'V1', createdAt: '2026-01-01T00:00:00Z' }, 'lineItems'],
    ['empty lineItems', { orderId: 'V1', createdAt: '2026-01-01T00:00:00Z', lineItems: [] }, 'lineItems'],
    ['lineItems not an array', { orderId: 'V1', createdAt: '2026-01-01T00:00:00Z', lineItems: line }, 'lineItems'],
    ['line without id', order({ lineItems: [{ productId: 'P', title: 'T', quantity: 1 }] }), 'lineItems.0.id'],
    ['line without productId', order({ lineItems: [line, { id: 'M', title: 'T', quantity: 1 }] }), 'lineItems.1.productId'],
    ['line without title', order({ lineItems: [{ id: 'L', productId: 'P', quantity: 1 }] }), 'lineItems.0.title'],
    ['line without quantity', order({ lineItems: [{ id: 'L', productId: 'P', title: 'T' }] }), 'lineItems.0.quantity'],
    ['quantity 0', order({ lineItems: [{ ...line, quantity: 0 }] }), 'lineItems.0.quantity'],
    ['quantity 1001', order({ lineItems: [{ ...line, quantity: 1001 }] }), 'lineItems.0.quantity'],
    ['quantity not an integer', order({ lineItems: [{ ...line, quantity: 1.5 }] }), 'lineItems.0.quantity'],
    ['quantity a string', order({ lineItems: [{ ...line, quantity: '2' }] }), 'lineItems.0.quantity'],
    ['the same line id twice', order({ lineItems: [line, { ...line }] }), 'lineItems.1.id'],
    ['negative totalPrice', order({ totalPrice: -0.01 }), 'totalPrice'],
    ['negative subtotalPrice', order({ subtotalPrice: -1 }), 'subtotalPrice'],
    ['negative totalTax', order({ totalTax: -1 }), 'totalTax'],
    ['negative totalDiscount', order({ totalDiscount: -1 }), 'totalDiscount'],
    ['negative line price', order({ lineItems: [{ ...line, price: -5 }] }), 'lineItems.0.price'],
    ['negative line discount', order({ lineItems: [{ ...line, discount: -5 }] }), 'lineItems.0.discount'],
    ['negative shipping cost', order({ shipping: { cost: -2 } }), 'shipping.cost'],
    ['amount as a string', order({ totalPrice: '10.00' }), 'totalPrice'],
    ['amount finer than 4 decimals', order({ lineItems: [{ ...line, price: 1.23456 }] }), 'lineItems.0.price'],
    ['amount too large', order({ totalPrice: 1e16 }), 'totalPrice'],
    ['currency not ISO 4217', order({ currencyCode: 'EURO' }), 'currencyCode'],
    ['customer e-mail invalid', order({ customer: { email: 'nobody' } }), 'customer.email'],
    ['tags not strings', order({ tags: ['a', 1] }), 'tags.1'],
    ['body an array', [order()], 'must be an object'],
  ];
  for (const [name, body, field] of cases) {
    it(name, async () => {
      const before = await rowCounts(server.db);
      expectError(await post(body), 400, field);
      expect(await rowCounts(server.db)).toEqual(before);
    });
  }

  it('malformed JSON and an empty body are 400 {error}', async () => {
    for (const body of ['{"orderId": ', undefined]) {
      const res = await call(server, 'POST', path(store.storeId), { secret: store.secret, body });
      expectValidRestResponse('POST', path(store.storeId), res);
      expectError(res, 400);
    }
  });
});

describe('duplicates', () => {
  it('answers 409 {error} for an orderId the store already has, writing nothing', async () => {
    expect((await post(order({ orderId: 'TWICE' }))).status).toBe(200);
    const before = await rowCounts(server.db);
    expectError(await post(order({ orderId: 'TWICE', locationId: warehouse, lineItems: [{ id: '1', productId: shirt.id, title: 'S', quantity: 1 }] })), 409, 'TWICE');
    expect(await rowCounts(server.db)).toEqual(before);
  });

  it('lets another store use the same orderId', async () => {
    await post(order({ orderId: 'SHARED' }));
    expect((await post(order({ orderId: 'SHARED' }), other.secret, other.storeId)).status).toBe(200);
  });

  it('creates one order from concurrent requests with the same orderId; the others are 409', { timeout: 120_000 }, async () => {
    const before = await level(shirt.id, warehouse);
    const responses = await Promise.all(
      Array.from({ length: 12 }, () => call(server, 'POST', path(store.storeId), { secret: store.secret, body: order({ orderId: 'RACE', locationId: warehouse, lineItems: [{ id: '1', productId: shirt.id, title: 'S', quantity: 1 }] }) })),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([200, ...Array(11).fill(409)]);
    expect(await server.db.prisma.order.count({ where: { storeId: store.storeId, externalId: 'RACE' } })).toBe(1);
    expect((await level(shirt.id, warehouse)).committed).toBe(before.committed + 1);
  });

  it('numbers concurrent orders without gaps or repeats', { timeout: 120_000 }, async () => {
    const responses = await Promise.all(Array.from({ length: 10 }, () => call(server, 'POST', path(store.storeId), { secret: store.secret, body: order() })));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    const ids = responses.map((r) => (r.body as { orderId: string }).orderId);
    const names = (await server.db.prisma.order.findMany({ where: { id: { in: ids } } })).map((o) => Number(o.name.slice(1))).sort((a, b) => a - b);
    expect(names).toEqual(Array.from({ length: 10 }, (_, i) => names[0] + i));
  });
});

describe('authentication, scopes and stores', () => {
  it('401 {error} without or with an unknown secret', async () => {
    const before = await rowCounts(server.db);
    expectError(await post(order(), null), 401);
    expectError(await post(order(), 'sk_unknown'), 401);
    expect(await rowCounts(server.db)).toEqual(before);
  });

  it('403 problem for a secret of another store or without orders_write; nothing written', async () => {
    const reader = await addApiClient(server.db, store.storeId, ['orders_read', 'customers_write']);
    const before = await rowCounts(server.db);
    expectProblem(await post(order(), other.secret, store.storeId), 403);
    expectProblem(await post(order(), reader.secret), 403);
    expect(await rowCounts(server.db)).toEqual(before);
  });

  it('needs orders_write only', async () => {
    const writer = await addApiClient(server.db, store.storeId, ['orders_write']);
    expect((await post(order(), writer.secret)).status).toBe(200);
  });

  it('405 with Allow for another method', async () => {
    const res = await call(server, 'GET', path(store.storeId), { secret: store.secret });
    expectProblem(res, 405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});
