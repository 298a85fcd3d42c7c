// POST /stores/{storeId}/custom/orders: the reference's custom returns integration. The
// first sync creates the order, a re-sync of the same id updates it in place (lines kept
// by id, fulfillments replaced); lines on returns cannot be removed or lowered below what
// returns claim. Every answer is checked against the reference document by call().
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowCounts } from '../support/counts.ts';
import { call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other store' });
});
afterAll(async () => server?.close());

const sync = (body: unknown, secret = store.secret, storeId = store.storeId) => call(server, 'POST', `/v2.2/stores/${storeId}/custom/orders`, { secret, body });

const money = (amount: string) => ({ presentmentMoney: { amount, currencyCode: 'USD' }, shopMoney: { amount, currencyCode: 'USD' } });

let sequence = 0;

function customOrder(overrides: Record<string, unknown> = {}) {
  sequence += 1;
  return {
    id: `shop-order-${sequence}`,
    type: 'order',
    createdAt: '2026-11-01T10:00:00Z',
    updatedAt: '2026-11-01T10:05:00Z',
    presentmentCurrency: 'USD',
    shopCurrency: 'USD',
    customer: { email: 'Pat@Example.com', firstName: 'Pat', lastName: 'Buyer', phone: '+15550123', id: 'cust-9' },
    lineItems: [
      {
        id: 'L1',
        quantity: 2,
        priceSet: money('20.00'),
        title: 'Shirt',
        productId: 'shirt',
        sku: 'SHIRT-1',
        discounts: [{ amountSet: money('4.00'), discountId: 'd1' }],
        taxLines: [{ priceSet: money('3.60'), rate: '0.1' }],
      },
      { id: 'L2', quantity: 1, priceSet: money('10.00'), title: 'Socks', productId: 'socks', sku: 'SOCKS-1' },
    ],
    orderDiscounts: [{ amountSet: money('1.00'), discountId: 'o1' }],
    shippingLines: [{ id: 's1', title: 'Ground', priceSet: money('5.00'), taxLines: [{ priceSet: money('0.50'), rate: null }] }],
    fulfillments: [{ id: 'F1', lineItems: [{ id: 'L1', quantity: 2 }], trackingNumbers: [{ carrier: 'UPS', trackingNumber: '1Z999' }] }],
    shippingAddress: { address1: '1 Main St', city: 'Springfield', provinceCode: 'IL', zip: '62701', countryCode: 'US' },
    ...overrides,
  };
}

describe('POST /stores/{storeId}/custom/orders', () => {
  it('creates the order with totals from its parts, lines, customer, addresses and fulfillments', async () => {
    const body = customOrder();
    const res = await sync(body);
    expect(res.status).toBe(200);
    const answer = res.body as { message: string; orderId: string; redoId: string };
    expect(answer).toEqual({ message: 'Order synced successfully', orderId: body.id, redoId: expect.stringMatching(/^ord_/) });
    const order = await server.db.prisma.order.findUniqueOrThrow({
      where: { id: answer.redoId },
      include: { lineItems: { orderBy: { position: 'asc' } }, fulfillments: { include: { lineItems: true } } },
    });
    expect(order.externalId).toBe(body.id);
    expect([order.subtotalPrice?.toString(), order.totalTax?.toString(), order.totalDiscount?.toString(), order.shippingCost?.toString(), order.totalPrice?.toString()]).toEqual([
      '46', // 2 x 20 - 4 + 10
      '4.1',
      '5',
      '5',
      '54.1', // 46 - 1 + 5 + 4.1
    ]);
    expect(order.lineItems.map((l) => [l.externalId, l.quantity, l.price?.toString(), l.discount?.toString()])).toEqual([
      ['L1', 2, '20', '4'],
      ['L2', 1, '10', '0'],
    ]);
    expect([order.customerEmail, order.customerFirstName, order.customerPhone]).toEqual(['pat@example.com', 'Pat', '+15550123']);
    expect(order.shippingAddress).toEqual({ address1: '1 Main St', city: 'Springfield', province: 'IL', postalCode: '62701', country: 'US' });
    expect(order.fulfillments.map((f) => [f.externalId, f.trackingCompany, f.trackingNumber, f.lineItems[0].quantity])).toEqual([['F1', 'UPS', '1Z999', 2]]);
    expect(await server.db.prisma.event.count({ where: { subjectId: order.id, topic: 'order.created' } })).toBe(1);
  });

  it('a re-sync updates the same order in place: lines kept by id, new ones added, gone ones removed, fulfillments replaced', async () => {
    const body = customOrder();
    const first = (await sync(body)).body as { redoId: string };
    const before = await server.db.prisma.orderLineItem.findMany({ where: { orderId: first.redoId } });
    const orders = await server.db.prisma.order.count();
    const changed = {
      ...body,
      customer: { ...body.customer, firstName: 'Patricia' },
      lineItems: [{ ...body.lineItems[0], quantity: 3 }, { id: 'L3', quantity: 1, priceSet: money('7.00'), title: 'Hat', productId: 'hat', sku: 'HAT-1' }],
      fulfillments: [{ id: 'F2', lineItems: [{ id: 'L3', quantity: 1 }], trackingNumbers: [{ carrier: null, trackingNumber: 'TRK-2' }], deliveryDate: '2026-11-03T12:00:00Z' }],
      shippingAddress: { ...body.shippingAddress, city: 'Shelbyville' },
    };
    const res = await sync(changed);
    expect(res.status).toBe(200);
    expect((res.body as { redoId: string }).redoId).toBe(first.redoId);
    expect(await server.db.prisma.order.count()).toBe(orders);
    const order = await server.db.prisma.order.findUniqueOrThrow({
      where: { id: first.redoId },
      include: { lineItems: { orderBy: { position: 'asc' } }, fulfillments: true },
    });
    expect(order.lineItems.map((l) => [l.externalId, l.quantity])).toEqual([['L1', 3], ['L3', 1]]);
    expect(order.lineItems[0].id).toBe(before.find((l) => l.externalId === 'L1')!.id);
    expect([order.customerFirstName, (order.shippingAddress as { city: string }).city]).toEqual(['Patricia', 'Shelbyville']);
    expect(order.fulfillments.map((f) => [f.externalId, f.trackingNumber, f.status])).toEqual([['F2', 'TRK-2', 'delivered']]);
    expect(await server.db.prisma.event.count({ where: { subjectId: order.id, topic: 'order.updated' } })).toBe(1);
  });

  it('accepts null for every field the document lets be null', async () => {
    const body = customOrder({
      salesChannel: null,
      cancelledAt: null,
      cancelReason: null,
      billingAddress: null,
      customer: { email: 'nul@example.com', firstName: 'N', lastName: 'L', phone: null },
      shippingAddress: { address1: '2 Side St', address2: null, company: null, firstName: null, lastName: null, phone: null, city: 'X', provinceCode: 'CA', zip: '90001', countryCode: 'US' },
      lineItems: [
        {
          id: 'N1',
          quantity: 1,
          priceSet: money('3.00'),
          title: 'Pen',
          productId: 'pen',
          sku: 'PEN',
          returnableQuantity: null,
          variantTitle: null,
          vendor: null,
          fulfillmentService: null,
          variantId: null,
          additionalProductId: null,
          weight: null,
          image: null,
          images: [{ url: 'https://example.com/p.png', data: null }],
          taxLines: [{ priceSet: money('0.30'), rate: null }],
        },
      ],
      fulfillments: [{ id: 'FN', lineItems: [{ id: 'N1', quantity: 1 }], trackingNumbers: [{ carrier: null, trackingNumber: 'T' }], shippingDate: null, deliveryDate: null }],
      refunds: [{ id: 'r1', createdAt: '2026-11-02T00:00:00Z', note: null }],
    });
    const billing = customOrder({ billingAddress: { address1: null, address2: null, city: null, company: null, firstName: null, lastName: null, provinceCode: null, zip: null, countryCode: null, phone: null } });
    expect((await sync(body)).status).toBe(200);
    expect((await sync(billing)).status).toBe(200);
  });

  it('refuses bad input with {error, errors} naming the request fields; nothing written', async () => {
    const good = customOrder();
    const counts = await rowCounts(server.db);
    const cases: [unknown, string][] = [
      [{ ...good, type: 'invoice' }, 'type'],
      [{ ...good, lineItems: 'none' }, 'lineItems'],
      [{ ...good, customer: { firstName: 'A', lastName: 'B' } }, 'customer'],
      [{ ...good, createdAt: 'yesterday' }, 'createdAt'],
      [{ ...good, lineItems: [{ ...good.lineItems[0], quantity: 1.5 }] }, 'lineItems'],
      [{ ...good, lineItems: [{ ...good.lineItems[0], priceSet: money('-1') }] }, 'lineItems'],
      [{ ...good, lineItems: [] }, 'lineItems'],
      [{ ...good, fulfillments: [{ id: 'F', lineItems: [{ id: 'L1', quantity: 9 }] }] }, 'fulfillments'],
      [{ ...good, fulfillments: [{ id: 'F', lineItems: [{ id: 'nope', quantity: 1 }] }] }, 'fulfillments'],
      [{ ...good, presentmentCurrency: 'dollars' }, 'presentmentCurrency'],
    ];
    for (const [body, field] of cases) {
      const res = await sync(body);
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      const answer = res.body as { error: string; errors: Record<string, unknown> };
      expect(answer.error).toContain(field);
      expect(Object.keys(answer.errors), answer.error).toContain(field);
    }
    expect((await sync('not json{')).status).toBe(400);
    expect(await rowCounts(server.db)).toEqual(counts);
  });

  it('a line on a return cannot be removed nor lowered below the claimed units; the order stays as it was', async () => {
    const body = customOrder();
    const { redoId } = (await sync(body)).body as { redoId: string };
    const created = await graphql(server, store.secret, 'mutation($input: CreateReturnInput!) { createReturn(input: $input) { return { id } } }', {
      input: { orderId: redoId, items: [{ lineItemId: 'L1', quantity: 2 }] },
    });
    expect(created.errors).toBeUndefined();
    const counts = await rowCounts(server.db);
    const lowered = await sync({ ...body, lineItems: [{ ...body.lineItems[0], quantity: 1 }, body.lineItems[1]], fulfillments: [] });
    expect(lowered.status).toBe(400);
    expect((lowered.body as { error: string }).error).toMatch(/lineItems\.0\.quantity: line item L1 has 2 unit\(s\) claimed by returns/);
    const removed = await sync({ ...body, lineItems: [body.lineItems[1]], fulfillments: [] });
    expect(removed.status).toBe(400);
    expect((removed.body as { error: string }).error).toMatch(/line item L1 is on a return and cannot be removed/);
    expect(await rowCounts(server.db)).toEqual(counts);
    expect((await sync({ ...body, lineItems: [{ ...body.lineItems[0], quantity: 5 }, body.lineItems[1]] })).status).toBe(200);
  });

  it('another store: 403 problem for its path; the same order id in two stores is two orders', async () => {
    const body = customOrder();
    const refused = await sync(body, store.secret, other.storeId);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    const mine = (await sync(body)).body as { redoId: string };
    const theirs = (await sync(body, other.secret, other.storeId)).body as { redoId: string };
    expect(theirs.redoId).not.toBe(mine.redoId);
    expect((await sync(body, 'wrong-secret')).status).toBe(401);
  });

  it('the v3 mutation syncOrder is the same operation', async () => {
    const result = await graphql(server, store.secret, 'mutation($input: OrderSyncInput!) { syncOrder(input: $input) { created order { externalId lineItems { externalId } } } }', {
      input: { orderId: 'v3-sync', createdAt: '2026-11-01T00:00:00Z', lineItems: [{ id: 'A', productId: 'p', title: 'A', quantity: 1, price: '2.50', taxes: ['0.25'] }] },
    });
    expect(result.data).toEqual({ syncOrder: { created: true, order: { externalId: 'v3-sync', lineItems: [{ externalId: 'A' }] } } });
    const again = await graphql(server, store.secret, 'mutation($input: OrderSyncInput!) { syncOrder(input: $input) { created } }', {
      input: { orderId: 'v3-sync', createdAt: '2026-11-01T00:00:00Z', lineItems: [{ id: 'A', productId: 'p', title: 'A', quantity: 2 }] },
    });
    expect(again.data).toEqual({ syncOrder: { created: false } });
  });
});
