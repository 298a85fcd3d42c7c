// GET / DELETE /v2.2/stores/{storeId}/orders/{orderId}, fulfillments and shipment status
// through the REST door, every answer checked against the reference document by call():
// the order as created (nulls where nothing was sent), fulfillments with tracking, statuses
// versus automation events, stock released on delete, `{error}` bodies for 400/404, nothing
// written when refused, another store's orders invisible.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { rowCounts } from '../support/counts.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
let productId: string;
let levelId: string;
let locationId: string;

const orders = (storeId = store.storeId) => `/v2.2/stores/${storeId}/orders`;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other' });
  locationId = newId('location');
  await server.db.prisma.location.create({ data: { id: locationId, storeId: store.storeId, name: 'Main' } });
  productId = newId('product');
  await server.db.prisma.product.create({ data: { id: productId, storeId: store.storeId, title: 'Shirt', sku: 'SHIRT' } });
  levelId = newId('inventoryLevel');
  await server.db.prisma.inventoryLevel.create({ data: { id: levelId, storeId: store.storeId, productId, locationId, quantity: 10 } });
});
afterAll(async () => server?.close());

async function createOrder(orderId: string, extra: Record<string, unknown> = {}) {
  const res = await call(server, 'POST', orders(), {
    secret: store.secret,
    body: {
      orderId,
      createdAt: '2026-05-01T10:00:00Z',
      locationId,
      lineItems: [
        { id: 'L1', productId, title: 'Shirt', quantity: 3, price: 12.5, variantId: null, imageUrl: null },
        { id: 'L2', productId: 'ext-2', title: 'Sticker', quantity: 1 },
      ],
      ...extra,
    },
  });
  expect(res.status).toBe(200);
  return res.body as { orderId: string; externalOrderId: string };
}

describe('GET order', () => {
  it('answers the order as created, by our id, the merchant orderId or the name, with null where nothing was sent', async () => {
    const { orderId } = await createOrder('GET-1', { shipping: { method: 'Ground', cost: 5, address: { address1: '1 Main', address2: null } } });
    for (const reference of [orderId, 'GET-1']) {
      const res = await call(server, 'GET', `${orders()}/${encodeURIComponent(reference)}`, { secret: store.secret });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        orderId: 'GET-1',
        createdAt: '2026-05-01T10:00:00.000Z',
        lineItems: [
          { id: 'L1', productId, title: 'Shirt', quantity: 3, price: 12.5, variantId: null, imageUrl: null },
          { id: 'L2', productId: 'ext-2', price: null },
        ],
        shipping: { method: 'Ground', cost: 5, address: { address1: '1 Main', address2: null } },
        totalPrice: null,
        fulfillments: [],
      });
    }
    const name = (await server.db.prisma.order.findUniqueOrThrow({ where: { id: orderId } })).name;
    expect((await call(server, 'GET', `${orders()}/${encodeURIComponent(name)}`, { secret: store.secret })).status).toBe(200);
  });

  it("reads a reference as our id first, then the merchant's orderId, then the name", async () => {
    const first = await createOrder('REF-1');
    const firstName = (await server.db.prisma.order.findUniqueOrThrow({ where: { id: first.orderId } })).name;
    // Another order whose merchant orderId is the first one's id, and a third whose orderId is the first one's name.
    await createOrder(first.orderId);
    await createOrder(firstName);
    const named = async (reference: string) => {
      const res = await call(server, 'GET', `${orders()}/${encodeURIComponent(reference)}`, { secret: store.secret });
      expect(res.status).toBe(200);
      return (res.body as { orderId: string }).orderId;
    };
    expect(await named(first.orderId)).toBe('REF-1');
    expect(await named(firstName)).toBe(firstName);
    expect(await named('REF-1')).toBe('REF-1');
  });

  it("404 {error} for an unknown order and for another store's order", async () => {
    const { orderId } = await createOrder('GET-2');
    const unknown = await call(server, 'GET', `${orders()}/nope`, { secret: store.secret });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: expect.stringContaining('nope') });
    expect((await call(server, 'GET', `${orders(other.storeId)}/${orderId}`, { secret: other.secret })).status).toBe(404);
    expect((await call(server, 'GET', `${orders(other.storeId)}/${orderId}`, { secret: store.secret })).status).toBe(403);
  });
});

describe('fulfillments', () => {
  it('fulfills lines with tracking, then statuses replace the current status and events only add history', async () => {
    await createOrder('FUL-1');
    const created = await call(server, 'POST', `${orders()}/FUL-1/fulfillments`, {
      secret: store.secret,
      body: { fulfillmentId: 'F1', lineItems: [{ id: 'L1', quantity: 2 }], tracking: { carrier: 'UPS', code: '1Z1' }, useDummyTracking: true },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      success: true,
      fulfillment: { id: 'F1', status: 'pre_transit', trackingCompany: 'UPS', trackingNumber: '1Z1', lineItems: [{ id: 'L1', quantity: 2, title: 'Shirt', productId }], trackingHistory: [] },
    });
    const moved = await call(server, 'POST', `${orders()}/FUL-1/fulfillments/F1/shipment-status`, {
      secret: store.secret,
      body: { status: 'in_transit', estimatedDeliveryDate: '2026-05-04T00:00:00Z', message: 'Departed', datetime: '2026-05-02T08:00:00Z', location: { city: 'Reno', state: null } },
    });
    expect(moved.body).toMatchObject({ fulfillment: { status: 'in_transit', estimatedDeliveryDate: '2026-05-04' } });
    const delayed = await call(server, 'POST', `${orders()}/FUL-1/fulfillments/F1/shipment-status`, { secret: store.secret, body: { status: 'delayed', message: null } });
    const fulfillment = (delayed.body as { fulfillment: { status: string; trackingHistory: { status: string; message: string }[] } }).fulfillment;
    expect(fulfillment.status).toBe('in_transit');
    expect(fulfillment.trackingHistory.map((e) => [e.status, e.message])).toEqual([
      ['in_transit', 'Departed'],
      ['delayed', 'delayed'],
    ]);
    await call(server, 'POST', `${orders()}/FUL-1/fulfillments/F1/shipment-status`, { secret: store.secret, body: { status: 'delivered' } });
    const order = await call(server, 'GET', `${orders()}/FUL-1`, { secret: store.secret });
    expect(order.body).toMatchObject({ fulfillments: [{ id: 'F1', status: 'delivered', deliveredAt: expect.any(String) }] });
    const topics = await server.db.prisma.event.findMany({ where: { storeId: store.storeId, topic: { startsWith: 'fulfillment.' } }, orderBy: { createdAt: 'asc' } });
    expect(topics.map((e) => e.topic)).toEqual(['fulfillment.created', 'fulfillment.updated', 'fulfillment.updated', 'fulfillment.updated']);
  });

  it.each([
    ['no lineItems', {}, /lineItems/],
    ['an unknown line', { lineItems: [{ id: 'L9', quantity: 1 }] }, /lineItems\.0\.id/],
    ['more than ordered over all fulfillments', { lineItems: [{ id: 'L1', quantity: 2 }, { id: 'L1', quantity: 2 }] }, /lineItems\.1\.quantity/],
    ['quantity 0', { lineItems: [{ id: 'L1', quantity: 0 }] }, /lineItems\.0\.quantity/],
    ['tracking without code', { lineItems: [{ id: 'L1', quantity: 1 }], tracking: { carrier: 'UPS' } }, /tracking\.code/],
    ['an unknown initial status', { lineItems: [{ id: 'L1', quantity: 1 }], initialTracking: { status: 'lost' } }, /initialTracking\.status/],
  ])('400 {error} for %s; nothing written', async (_name, body, field) => {
    await createOrder(`BAD-${_name}`);
    const before = await rowCounts(server.db);
    const res = await call(server, 'POST', `${orders()}/${encodeURIComponent(`BAD-${_name}`)}/fulfillments`, { secret: store.secret, body });
    expect(res.status).toBe(400);
    expect((res.body as { error: string }).error).toMatch(field);
    expect(await rowCounts(server.db)).toEqual(before);
  });

  it("404 {error} for an unknown order or fulfillment, another store's order, and a bad status update; 409 problem for a duplicate fulfillmentId", async () => {
    await createOrder('FUL-2');
    await call(server, 'POST', `${orders()}/FUL-2/fulfillments`, { secret: store.secret, body: { fulfillmentId: 'F', lineItems: [{ id: 'L2', quantity: 1 }] } });
    const before = await rowCounts(server.db);
    expect((await call(server, 'POST', `${orders()}/NOPE/fulfillments`, { secret: store.secret, body: { lineItems: [{ id: 'L1', quantity: 1 }] } })).status).toBe(404);
    expect((await call(server, 'POST', `${orders(other.storeId)}/FUL-2/fulfillments`, { secret: other.secret, body: { lineItems: [{ id: 'L1', quantity: 1 }] } })).status).toBe(404);
    expect((await call(server, 'POST', `${orders()}/FUL-2/fulfillments/G/shipment-status`, { secret: store.secret, body: { status: 'delivered' } })).status).toBe(404);
    const bad = await call(server, 'POST', `${orders()}/FUL-2/fulfillments/F/shipment-status`, { secret: store.secret, body: { status: 'unknown' } });
    expect(bad.status).toBe(400);
    const duplicate = await call(server, 'POST', `${orders()}/FUL-2/fulfillments`, { secret: store.secret, body: { fulfillmentId: 'F', lineItems: [{ id: 'L1', quantity: 1 }] } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.headers.get('content-type')).toMatch(/problem\+json/);
    expect(await rowCounts(server.db)).toEqual(before);
  });
});

describe('DELETE order', () => {
  it('deletes the order, releases its committed stock and records order.deleted', async () => {
    const committedBefore = (await server.db.prisma.inventoryLevel.findUniqueOrThrow({ where: { id: levelId } })).committed;
    const { orderId } = await createOrder('DEL-1');
    expect((await server.db.prisma.inventoryLevel.findUniqueOrThrow({ where: { id: levelId } })).committed).toBe(committedBefore + 3);
    expect((await call(server, 'DELETE', `${orders(other.storeId)}/DEL-1`, { secret: other.secret })).status).toBe(404);
    const res = await call(server, 'DELETE', `${orders()}/DEL-1`, { secret: store.secret });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, orderId, externalOrderId: 'DEL-1' });
    expect(await server.db.prisma.order.findUnique({ where: { id: orderId } })).toBeNull();
    expect((await server.db.prisma.inventoryLevel.findUniqueOrThrow({ where: { id: levelId } })).committed).toBe(committedBefore);
    expect(await server.db.prisma.event.count({ where: { topic: 'order.deleted', subjectId: orderId } })).toBe(1);
    expect((await call(server, 'DELETE', `${orders()}/DEL-1`, { secret: store.secret })).status).toBe(404);
  });
});
