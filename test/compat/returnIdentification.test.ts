// Naming a return on the warehouse interface: the numeric path id, or the
// placeholder 0 with svc_return_id, order_name or order_id, on every :return_id route
// and on details; unknown and other stores' returns are 404; contradictions are 422.
// Also the exact shape of a return object.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { rowCounts } from '../support/counts.ts';
import { createTestOrder, insertTestReturn, type TestOrder, type TestReturn } from '../support/returnFixtures.ts';
import { createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { returnSnapshot, warehouse } from './helpers.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db, { scopes: ['returns_read', 'returns_write'] });
  other = await createTestStore(server.db, { scopes: ['returns_read', 'returns_write'], name: 'Other store' });
});
afterAll(async () => server?.close());

async function fresh(storeId = store.storeId): Promise<{ order: TestOrder; ret: TestReturn }> {
  const order = await createTestOrder(server.db, storeId, { lines: [{}, {}] });
  return { order, ret: await insertTestReturn(server.db, storeId, order) };
}

type Mode = 'path id' | 'svc_return_id' | 'order_name' | 'order_id';
const MODES: Mode[] = ['path id', 'svc_return_id', 'order_name', 'order_id'];

/** `/return/{segment}/{action}?query` naming the return the given way. */
function named(mode: Mode, order: TestOrder, ret: TestReturn): { segment: string; query: string } {
  switch (mode) {
    case 'path id':
      return { segment: String(ret.number), query: '' };
    case 'svc_return_id':
      return { segment: '0', query: `svc_return_id=${ret.id}` };
    case 'order_name':
      return { segment: '0', query: `order_name=${encodeURIComponent(order.name)}` };
    case 'order_id':
      return { segment: '0', query: `order_id=${order.id}` };
  }
}

function path(action: string, at: { segment: string; query: string }, extra = ''): string {
  const query = [at.query, extra].filter(Boolean).join('&');
  return `/return/${at.segment}/${action}${query ? `?${query}` : ''}`;
}

/** Each :return_id route, how to call it, and how to tell it acted on the return. */
const ROUTES: { action: string; method: 'GET' | 'POST'; body?: unknown; extra?: (ret: TestReturn) => string; check: (ret: TestReturn, res: { body: unknown; text: string }) => Promise<void> }[] = [
  { action: 'process', method: 'POST', check: async (ret) => expect((await returnSnapshot(server.db, ret.id)).status).toBe('complete') },
  { action: 'flag', method: 'POST', check: async (ret) => expect((await returnSnapshot(server.db, ret.id)).status).toBe('flagged') },
  { action: 'close', method: 'POST', check: async (ret) => expect((await returnSnapshot(server.db, ret.id)).status).toBe('rejected') },
  {
    action: 'cancel',
    method: 'POST',
    check: async (ret) => expect((await returnSnapshot(server.db, ret.id)).statusChanges.map((c) => c.operation)).toEqual(['reset']),
  },
  {
    action: 'remove',
    method: 'POST',
    extra: (ret) => `line_item_id=${ret.itemIds[1]}`,
    check: async (ret) => expect((await returnSnapshot(server.db, ret.id)).items.filter((i) => i.removedAt !== null).map((i) => i.id)).toEqual([ret.itemIds[1]]),
  },
  {
    action: 'note',
    method: 'POST',
    body: { content: 'scanned' },
    check: async (ret) => expect((await returnSnapshot(server.db, ret.id)).notes.map((n) => n.content)).toEqual(['scanned']),
  },
  {
    action: 'notes',
    method: 'GET',
    check: async (_ret, res) => expect(res.body).toEqual({ notes: [{ id: expect.stringMatching(/^rnt_/), content: 'seen', created_at: expect.any(String) }] }),
  },
];

describe('every :return_id route finds the same return all four ways', () => {
  for (const route of ROUTES) {
    for (const mode of MODES) {
      it(`${route.method} ${route.action} by ${mode}`, async () => {
        const { order, ret } = await fresh();
        if (route.action === 'notes') await server.db.prisma.returnNote.create({ data: { id: newId('returnNote'), returnId: ret.id, content: 'seen' } });
        // A second return of the same store that must stay untouched.
        const bystander = await fresh();
        const untouched = await returnSnapshot(server.db, bystander.ret.id);
        const res = await warehouse(server, store.secret, route.method, path(route.action, named(mode, order, ret), route.extra?.(ret)), { body: route.body });
        expect(res.status).toBe(200);
        if (route.method === 'POST') expect(res.text).toBe('true');
        await route.check(ret, res);
        expect(await returnSnapshot(server.db, bystander.ret.id)).toEqual(untouched);
      });
    }
  }
});

describe('details', () => {
  it('answers the same return object for return_id, svc_return_id, order_name and order_id', async () => {
    const { order, ret } = await fresh();
    const bodies: unknown[] = [];
    for (const query of [`return_id=${ret.number}`, `svc_return_id=${ret.id}`, `order_name=${encodeURIComponent(order.name)}`, `order_id=${order.id}`]) {
      const res = await warehouse(server, store.secret, 'GET', `/return/details?${query}`);
      expect(res.status, query).toBe(200);
      bodies.push(res.body);
    }
    expect(bodies.every((b) => JSON.stringify(b) === JSON.stringify(bodies[0]))).toBe(true);
    expect(bodies[0]).toMatchObject({ id: ret.number, svc_id: ret.id });
  });

  it('has the platform shape: snake_case, numeric id with svc_id, money strings, UTC timestamps as Get Return Details writes them', async () => {
    const order = await createTestOrder(server.db, store.storeId, {
      lines: [
        { externalId: '23984238720', title: 'Black Striped Shirt', sku: '2039473-Y', price: '78.00', discount: '6.00', quantity: 2, externalProductId: '29871298313', externalVariantId: 'v-1' },
        { title: 'Cap', sku: null, price: '12.5', externalProductId: 'p-2', externalVariantId: null },
      ],
      totalTax: '8.58',
      subtotalPrice: '150.00',
      customerEmail: 'example@example.com',
    });
    const ret = await insertTestReturn(server.db, store.storeId, order, { items: [{ lineIndex: 0, quantity: 1 }, { lineIndex: 1, outcome: 'exchange' }] });
    await server.db.prisma.returnItem.update({ where: { id: ret.itemIds[0] }, data: { reason: 'I like another style more', customerComment: 'too long' } });
    await server.db.prisma.return.update({ where: { id: ret.id }, data: { carrier: 'USPS', trackingNumber: '9400', labelStatus: 'new', labelUrl: 'https://labels.example/1.pdf' } });
    const stored = await server.db.prisma.return.findUniqueOrThrow({ where: { id: ret.id }, include: { items: { orderBy: { id: 'asc' } } } });
    const sqlTime = (date: Date) => date.toISOString().slice(0, 19).replace('T', ' ');
    const itemCreated = (id: string) => stored.items.find((item) => item.id === id)!.createdAt.toISOString();

    const res = await warehouse(server, store.secret, 'GET', `/return/details?svc_return_id=${ret.id}&currency_type=shop`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const none = { exchange: null, exchange_order_name: null, exchange_order_id: null, handling_fee: '0.00', upsell: '0.00' };
    const noExchange = { exchange_product_total: '0.00', exchange_discount_total: '0.00', exchange_tax_total: '0.00', exchange_total: '0.00', exchange_credit_total: '0.00' };
    expect(res.body).toEqual({
      id: ret.number,
      svc_id: ret.id,
      state: 'open',
      created_at: sqlTime(stored.createdAt),
      updated_at: sqlTime(stored.updatedAt),
      edited_at: sqlTime(stored.updatedAt),
      order_id: order.id,
      order_name: order.name,
      order_number: order.name.slice(1),
      provider_order_id: order.externalId,
      provider_order_number: Number(order.name.slice(1)),
      customer: 'example@example.com',
      origin_country: 'United States',
      origin_country_code: 'US',
      multi_currency: false,
      currency: 'USD',
      // 78.00 - 3.00 discount + 4.29 tax, and 12.50 + 0.72 tax
      total: '92.51',
      outcome: 'mixed',
      return_product_total: '90.50',
      return_discount_total: '3.00',
      return_tax_total: '5.01',
      return_total: '92.51',
      return_credit_total: '92.51',
      ...none,
      ...noExchange,
      gift_card: '0.00',
      gift_card_order_name: null,
      gift_card_order_id: null,
      refund: '0.00',
      refunds: [],
      carrier: 'USPS',
      tracking_number: '9400',
      label_status: 'new',
      label_url: 'https://labels.example/1.pdf',
      destination_id: null,
      line_items: [
        {
          line_item_id: ret.itemIds[0],
          provider_line_item_id: 23984238720,
          product_id: 29871298313,
          variant_id: 'v-1',
          sku: '2039473-Y',
          line_item_title: 'Black Striped Shirt',
          variant_title: null,
          title: 'Black Striped Shirt',
          image: null,
          price: '78.00',
          discount: '3.00',
          tax: '4.29',
          refund: '79.29',
          refund_item: '75.00',
          refund_tax: '4.29',
          returned_at: itemCreated(ret.itemIds[0]),
          exchange_variant: '',
          return_reason: 'I like another style more',
          parent_return_reason: null,
          return_comment: 'too long',
          barcode: null,
          outcome: 'refund',
          provider_restock_location_id: null,
          consolidation_tracking: null,
        },
        {
          line_item_id: ret.itemIds[1],
          provider_line_item_id: 'line-2',
          product_id: 'p-2',
          variant_id: null,
          sku: null,
          line_item_title: 'Cap',
          variant_title: null,
          title: 'Cap',
          image: null,
          price: '12.50',
          discount: '0.00',
          tax: '0.72',
          refund: '0.00',
          refund_item: '0.00',
          refund_tax: '0.00',
          returned_at: itemCreated(ret.itemIds[1]),
          exchange_variant: '',
          return_reason: null,
          parent_return_reason: null,
          return_comment: null,
          barcode: null,
          outcome: 'exchange',
          provider_restock_location_id: null,
          consolidation_tracking: null,
        },
      ],
    });
  });

  it('accepts currency_type shop or presentment and refuses anything else with 422', async () => {
    const { ret } = await fresh();
    for (const type of ['shop', 'presentment']) {
      expect((await warehouse(server, store.secret, 'GET', `/return/details?svc_return_id=${ret.id}&currency_type=${type}`)).status).toBe(200);
    }
    const res = await warehouse(server, store.secret, 'GET', `/return/details?svc_return_id=${ret.id}&currency_type=euro`);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: { code: 'UNPROCESSABLE_ENTITY', http_code: 422 } });
  });

  it("names an order's newest return when the order has several", async () => {
    const order = await createTestOrder(server.db, store.storeId, { lines: [{}, {}] });
    await insertTestReturn(server.db, store.storeId, order, { items: [{ lineIndex: 0 }], createdAt: new Date('2026-02-01T00:00:00Z') });
    const newest = await insertTestReturn(server.db, store.storeId, order, { items: [{ lineIndex: 1 }], createdAt: new Date('2026-02-03T00:00:00Z') });
    const res = await warehouse(server, store.secret, 'GET', `/return/details?order_id=${order.id}`);
    expect(res.body).toMatchObject({ id: newest.number });
    const byName = await warehouse(server, store.secret, 'GET', `/return/details?order_name=${encodeURIComponent(order.name)}`);
    expect(byName.body).toMatchObject({ id: newest.number });
  });
});

describe('refusals', () => {
  const notFound = { error: { code: 'NOT_FOUND', http_code: 404, message: expect.any(String) } };
  const unprocessable = { error: { code: 'UNPROCESSABLE_ENTITY', http_code: 422, message: expect.any(String) } };

  it('404 for unknown ids, every way, on details and on actions', async () => {
    const counts = await rowCounts(server.db);
    for (const target of [
      'details?return_id=987654',
      'details?svc_return_id=ffffffffffffffffffffffff',
      'details?svc_return_id=not-an-id',
      'details?order_name=%23no-such-order',
      'details?order_id=ord_nosuchorder',
    ]) {
      const res = await warehouse(server, store.secret, 'GET', `/return/${target}`);
      expect(res.status, target).toBe(404);
      expect(res.body).toEqual(notFound);
    }
    for (const target of ['987654/process', '0/flag?svc_return_id=ffffffffffffffffffffffff', '0/note?order_id=ord_x', '99999999999/close', '987654/notes']) {
      const method = target.includes('notes') ? 'GET' : 'POST';
      const res = await warehouse(server, store.secret, method, `/return/${target}`, { body: method === 'POST' ? { content: 'x' } : undefined });
      expect(res.status, target).toBe(404);
      expect(res.body).toEqual(notFound);
    }
    expect(await rowCounts(server.db)).toEqual(counts);
  });

  it("404, not 403, for another store's return named any way", async () => {
    // Order names are per store; give the other store names this store does not use.
    await server.db.prisma.store.update({ where: { id: other.storeId }, data: { nextOrderNumber: 90_001 } });
    const { order, ret } = await fresh(other.storeId);
    const before = await returnSnapshot(server.db, ret.id);
    for (const mode of MODES) {
      const at = named(mode, order, ret);
      const details = await warehouse(server, store.secret, 'GET', `/return/details?${at.query || `return_id=${ret.number}`}`);
      expect(details.status, mode).toBe(404);
      expect(details.body).toEqual(notFound);
      const action = await warehouse(server, store.secret, 'POST', path('process', at));
      expect(action.status, mode).toBe(404);
    }
    expect(await returnSnapshot(server.db, ret.id)).toEqual(before);
    // The owner still sees it.
    expect((await warehouse(server, other.secret, 'GET', `/return/details?svc_return_id=${ret.id}`)).status).toBe(200);
  });

  it('422 when a query parameter contradicts a real path id, and nothing changes', async () => {
    const { ret } = await fresh();
    const { order: otherOrder, ret: otherRet } = await fresh();
    const before = await returnSnapshot(server.db, ret.id);
    for (const query of [`svc_return_id=${otherRet.id}`, `order_name=${encodeURIComponent(otherOrder.name)}`, `order_id=${otherOrder.id}`, 'svc_return_id=ffffffffffffffffffffffff']) {
      const res = await warehouse(server, store.secret, 'POST', `/return/${ret.number}/process?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body).toEqual(unprocessable);
    }
    expect(await returnSnapshot(server.db, ret.id)).toEqual(before);
    // Agreeing parameters are fine.
    const agreeing = await warehouse(server, store.secret, 'POST', `/return/${ret.number}/flag?svc_return_id=${ret.id}`);
    expect(agreeing.text).toBe('true');
  });

  it('422 for the placeholder without a query parameter and for a path id that is not a number', async () => {
    for (const [method, target] of [
      ['POST', '/return/0/process'],
      ['GET', '/return/0/notes'],
      ['POST', '/return/abc/flag'],
      ['POST', '/return/-4/close'],
      ['GET', '/return/details'],
      ['GET', '/return/details?return_id=x1'],
    ] as const) {
      const res = await warehouse(server, store.secret, method, target);
      expect(res.status, target).toBe(422);
      expect(res.body).toEqual(unprocessable);
    }
  });
});
