// POST and GET /v2.2/stores/{storeId}/returns, as the reference document describes them
// (body create-return-request.schema, answers return-read / order-read): creation with Idempotency-Key (replay,
// conflicting reuse, concurrent duplicates), every validation rule with its problem
// body, auth, scope and cross-store refusals, the list filters, the orders beside the
// returns, and keyset pagination over 3+ pages with inserts between pages. Every
// answer is checked against the served OpenAPI document; refused requests write nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { rowCounts } from '../support/counts.ts';
import { expectValidRestResponse } from '../support/openapi.ts';
import { createTestOrder, insertTestReturn, setReturnTimes, type TestOrder } from '../support/returnFixtures.ts';
import { addApiClient, call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db, { scopes: ['returns_read', 'returns_write'] });
  other = await createTestStore(server.db, { scopes: ['returns_read', 'returns_write'], name: 'Other store' });
});
afterAll(async () => server?.close());

const returnsPath = (storeId: string) => `/v2.2/stores/${storeId}/returns`;

async function post(body: unknown, options: { secret?: string; storeId?: string; key?: string } = {}) {
  const path = returnsPath(options.storeId ?? store.storeId);
  const res = await call(server, 'POST', path, {
    secret: options.secret ?? store.secret,
    body,
    headers: options.key ? { 'idempotency-key': options.key } : {},
  });
  expectValidRestResponse('POST', path, res);
  return res;
}

async function get(query = '', options: { secret?: string; storeId?: string; headers?: Record<string, string> } = {}) {
  const path = `${returnsPath(options.storeId ?? store.storeId)}${query ? `?${query}` : ''}`;
  const res = await call(server, 'GET', path, { secret: options.secret ?? store.secret, headers: options.headers });
  expectValidRestResponse('GET', path, res);
  return res;
}

type RestReturn = { id: string; status: string; items: { id: string; orderItem: { id: string } }[]; order: { id: string; name: string } };

const ADDRESS = { line1: '5 Elm St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };

/** The reference's create-return-request body for some lines of an order. */
function returnBody(order: { externalId: string }, items: Record<string, unknown>[], data: Record<string, unknown> = {}) {
  return {
    data: {
      provider: 'shopify',
      externalOrderId: order.externalId,
      items: items.map((item) => ({ reason: 'Too small', compensation: 'refund', ...item })),
      shippingAddress: ADDRESS,
      ...data,
    },
  };
}

describe('POST /stores/{storeId}/returns', () => {
  it('creates an open return from the reference body and answers 201 with the return-read shape', async () => {
    const locationId = newId('location');
    await server.db.prisma.location.create({
      data: { id: locationId, storeId: store.storeId, name: 'Returns DC', street1: '9 Dock Rd', city: 'Reno', stateCode: 'NV', postalCode: '89502', countryCode: 'US' },
    });
    const order = await createTestOrder(server.db, store.storeId, {
      lines: [{ title: 'Trail Tee', sku: 'TEE-1', price: '25.00', quantity: 2, externalProductId: 'prd_merchant1' }, { title: 'Cap', price: '10' }],
      locationId,
    });
    const res = await post(
      returnBody(order, [{ lineItemId: 'line-1', quantity: 2 }, { lineItemId: order.lineItems[1].id, quantity: 1, compensation: 'store_credit', reasonCode: 'SIZE', notes: 'Runs small' }], {
        label: { trackingNumber: '1Z999', carrier: 'ups', trackingUrl: 'https://track.example/1Z999', postageLabelUrl: 'https://labels.example/1.pdf' },
        notes: 'Customer called ahead',
      }),
      { key: 'create-1' },
    );
    expect(res.status).toBe(201);
    const body = res.body as { return: RestReturn & Record<string, unknown>; externalRMAResponses: unknown[] };
    expect(body.externalRMAResponses).toEqual([]);
    const created = body.return;
    const stored = await server.db.prisma.return.findUniqueOrThrow({ where: { id: created.id }, include: { items: true } });
    const itemId = (lineId: string) => stored.items.find((i) => i.orderLineItemId === lineId)!.id;
    expect(created).toMatchObject({
      id: stored.id,
      status: 'open',
      type: 'return',
      order: { id: order.id, name: order.name },
      items: [
        { id: itemId(order.lineItems[0].id), orderItem: { id: order.lineItems[0].id }, quantity: 2, reason: 'Too small', reasons: ['Too small'], reasonCodes: [], outcome: 'refund', sku: 'TEE-1' },
        { id: itemId(order.lineItems[1].id), orderItem: { id: order.lineItems[1].id }, quantity: 1, outcome: 'credit', reasonCode: 'SIZE', reasonCodes: ['SIZE'], customerComment: 'Runs small' },
      ],
      compensationMethods: ['refund', 'store_credit'],
      source: { emailAddress: 'shopper@example.com', mailingAddress: { ...ADDRESS, line2: '' } },
      destination: { mailingAddress: { line1: '9 Dock Rd', line2: '', city: 'Reno', state: 'NV', postalCode: '89502', country: 'US' } },
      totals: { refund: { amount: { amount: '0.00', currency: 'USD' } }, storeCredit: { amount: { amount: '0.00', currency: 'USD' } } },
      notes: [{ message: 'Customer called ahead' }],
      shipment: { carrier: 'ups', tracker: '1Z999', trackingUrl: 'https://track.example/1Z999', postageLabel: 'https://labels.example/1.pdf' },
    });
    expect(stored.originAddress).toEqual({ ...ADDRESS, line2: null });
    expect(await server.db.prisma.event.count({ where: { subjectId: stored.id, topic: 'return.created' } })).toBe(1);
  });

  it('takes null for every optional member (read as absent)', async () => {
    const order = await createTestOrder(server.db, store.storeId, { lines: [{ quantity: 1 }] });
    const res = await post({
      data: {
        ...returnBody(order, [{ lineItemId: 'line-1', quantity: 1, reasonCode: null, notes: null }]).data,
        shippingAddress: { ...ADDRESS, line2: null },
        label: null,
        notes: null,
      },
      options: null,
    });
    expect(res.status).toBe(201);
  });

  it('replays the same request under the same Idempotency-Key with 200 and the same return', async () => {
    const order = await createTestOrder(server.db, store.storeId, { lines: [{ quantity: 3 }] });
    const body = returnBody(order, [{ lineItemId: 'line-1', quantity: 1 }]);
    const first = await post(body, { key: 'retry-1' });
    expect(first.status).toBe(201);
    const counts = await rowCounts(server.db);
    const again = await post(body, { key: 'retry-1' });
    expect(again.status).toBe(200);
    expect((again.body as { return: RestReturn }).return.id).toBe((first.body as { return: RestReturn }).return.id);
    expect(await rowCounts(server.db)).toEqual(counts);
    // Without a key the same body is a new return.
    expect((await post(body)).status).toBe(201);
  });

  it('refuses the key with a different body: 409 (application/json, as documented), nothing written', async () => {
    const order = await createTestOrder(server.db, store.storeId, { lines: [{ quantity: 3 }] });
    await post(returnBody(order, [{ lineItemId: 'line-1', quantity: 1 }]), { key: 'retry-2' });
    const counts = await rowCounts(server.db);
    const res = await post(returnBody(order, [{ lineItemId: 'line-1', quantity: 2 }]), { key: 'retry-2' });
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toMatchObject({ status: 409, errors: [{ path: 'Idempotency-Key' }] });
    expect(await rowCounts(server.db)).toEqual(counts);
  });

  it('creates one return from concurrent duplicates under one key', async () => {
    const order = await createTestOrder(server.db, store.storeId, { lines: [{ quantity: 10 }] });
    const body = returnBody(order, [{ lineItemId: 'line-1', quantity: 1 }]);
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(body, { key: 'race-key' })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(answers.map((a) => (a.body as { return: RestReturn }).return.id)).size).toBe(1);
    expect(await server.db.prisma.return.count({ where: { orderId: order.id } })).toBe(1);
  });

  it("404 for an unknown order and for another store's order, nothing written", async () => {
    const foreign = await createTestOrder(server.db, other.storeId);
    const counts = await rowCounts(server.db);
    for (const externalId of ['ext-unknown', foreign.externalId]) {
      const res = await post(returnBody({ externalId }, [{ lineItemId: 'line-1', quantity: 1 }]));
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.body).toMatchObject({ type: 'about:blank', title: 'Not Found', status: 404, errors: [{ path: 'data.externalOrderId' }] });
    }
    expect(await rowCounts(server.db)).toEqual(counts);
  });

  it('409 when a quantity exceeds what was ordered minus what is already being returned', async () => {
    const order = await createTestOrder(server.db, store.storeId, { lines: [{ quantity: 2 }] });
    expect((await post(returnBody(order, [{ lineItemId: 'line-1', quantity: 1 }]))).status).toBe(201);
    const counts = await rowCounts(server.db);
    const res = await post(returnBody(order, [{ lineItemId: 'line-1', quantity: 2 }]));
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ status: 409, title: 'Conflict', errors: [{ path: 'data.items.0.quantity', message: expect.stringContaining('only 1') }] });
    expect(await rowCounts(server.db)).toEqual(counts);
  });

  describe('validation: 400 (application/json, as documented) naming each field, nothing written', () => {
    let order: TestOrder;
    beforeAll(async () => {
      order = await createTestOrder(server.db, store.storeId, { lines: [{ quantity: 5 }, { quantity: 5 }] });
    });
    const item = { lineItemId: 'line-1', quantity: 1, reason: 'r', compensation: 'refund' };
    const data = (o: TestOrder, extra: Record<string, unknown> = {}) => ({ provider: 'shopify', externalOrderId: o.externalId, items: [item], shippingAddress: ADDRESS, ...extra });
    const cases: [string, (o: TestOrder) => unknown, string[]][] = [
      ['no body', () => undefined, ['']],
      ['a body that is not an object', () => [1, 2], ['']],
      ['data missing', () => ({}), ['data']],
      ['externalOrderId missing', (o) => ({ data: data(o, { externalOrderId: undefined }) }), ['data.externalOrderId']],
      ['externalOrderId not a string', (o) => ({ data: data(o, { externalOrderId: 7 }) }), ['data.externalOrderId']],
      ['provider missing', (o) => ({ data: data(o, { provider: undefined }) }), ['data.provider']],
      ['shippingAddress missing', (o) => ({ data: data(o, { shippingAddress: undefined }) }), ['data.shippingAddress']],
      ['shippingAddress without a city', (o) => ({ data: data(o, { shippingAddress: { ...ADDRESS, city: undefined } }) }), ['data.shippingAddress.city']],
      ['items missing', (o) => ({ data: data(o, { items: undefined }) }), ['data.items']],
      ['items not a list', (o) => ({ data: data(o, { items: item }) }), ['data.items']],
      ['items empty', (o) => ({ data: data(o, { items: [] }) }), ['data.items']],
      ['an item that is not an object', (o) => ({ data: data(o, { items: ['line-1'] }) }), ['data.items.0']],
      ['lineItemId missing', (o) => ({ data: data(o, { items: [{ ...item, lineItemId: undefined }] }) }), ['data.items.0.lineItemId']],
      ['quantity not an integer', (o) => ({ data: data(o, { items: [{ ...item, quantity: 1.5 }] }) }), ['data.items.0.quantity']],
      ['quantity zero', (o) => ({ data: data(o, { items: [{ ...item, quantity: 0 }] }) }), ['data.items.0.quantity']],
      ['reason missing', (o) => ({ data: data(o, { items: [{ ...item, reason: undefined }] }) }), ['data.items.0.reason']],
      ['reason over 255 characters', (o) => ({ data: data(o, { items: [{ ...item, reason: 'r'.repeat(256) }] }) }), ['data.items.0.reason']],
      ['an unknown compensation', (o) => ({ data: data(o, { items: [{ ...item, compensation: 'cash' }] }) }), ['data.items.0.compensation']],
      ['a label without a tracking number', (o) => ({ data: data(o, { label: { carrier: 'ups' } }) }), ['data.label.trackingNumber']],
      ['a line item the order does not have', (o) => ({ data: data(o, { items: [{ ...item, lineItemId: 'line-9' }] }) }), ['data.items.0.lineItemId']],
      ['the same line twice', (o) => ({ data: data(o, { items: [item, item] }) }), ['data.items.1.lineItemId']],
      [
        'several mistakes at once',
        (o) => ({ data: data(o, { items: [{ ...item, quantity: -1 }, { ...item, lineItemId: '', quantity: 2 }] }) }),
        ['data.items.0.quantity', 'data.items.1.lineItemId'],
      ],
    ];
    for (const [name, body, paths] of cases) {
      it(name, async () => {
        const counts = await rowCounts(server.db);
        const res = await post(body(order));
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toContain('application/json');
        expect(res.body).toMatchObject({ type: 'about:blank', title: 'Bad Request', status: 400, detail: expect.any(String) });
        expect((res.body as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(paths);
        expect(await rowCounts(server.db)).toEqual(counts);
      });
    }

    it('an Idempotency-Key over 255 characters', async () => {
      const res = await post({ data: data(order) }, { key: 'k'.repeat(256) });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errors: [{ path: 'Idempotency-Key' }] });
    });

    it('a body that is not JSON', async () => {
      const res = await call(server, 'POST', returnsPath(store.storeId), { secret: store.secret, body: '{"data": ' });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/json');
    });
  });
});

describe('auth, scopes and stores', () => {
  it('401 without a secret or with an unknown one, 403 for another store or a missing scope; nothing written', async () => {
    const order = await createTestOrder(server.db, store.storeId);
    const body = returnBody(order, [{ lineItemId: 'line-1', quantity: 1 }]);
    const reader = await addApiClient(server.db, store.storeId, ['returns_read']);
    const writer = await addApiClient(server.db, store.storeId, ['returns_write']);
    const counts = await rowCounts(server.db);
    const noSecret = await call(server, 'POST', returnsPath(store.storeId), { body });
    expect(noSecret.status).toBe(401);
    expect(noSecret.headers.get('content-type')).toContain('application/problem+json');
    expect((await post(body, { secret: 'sk_unknown' })).status).toBe(401);
    const crossStore = await post(body, { secret: other.secret });
    expect(crossStore.status).toBe(403);
    expect(crossStore.body).toMatchObject({ status: 403, title: 'Forbidden' });
    const noWrite = await post(body, { secret: reader.secret });
    expect(noWrite.status).toBe(403);
    expect(noWrite.body).toMatchObject({ detail: expect.stringContaining('returns_write') });
    expect(await rowCounts(server.db)).toEqual(counts);

    const noRead = await get('', { secret: writer.secret });
    expect(noRead.status).toBe(403);
    expect((await get('', { secret: other.secret })).status).toBe(403);
    expect((await call(server, 'GET', returnsPath(store.storeId))).status).toBe(401);
  });
});

describe('GET /stores/{storeId}/returns', () => {
  let listing: TestStore;
  let orders: TestOrder[];
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    listing = await createTestStore(server.db, { scopes: ['returns_read', 'returns_write'], name: 'Listing store' });
    orders = [];
    for (let i = 0; i < 3; i++) orders.push(await createTestOrder(server.db, listing.storeId, { lines: [{}, {}], totalPrice: '60.00', totalTax: '5.00', subtotalPrice: '50.00' }));
    const make = async (name: string, order: TestOrder, lineIndex: number, status: 'open' | 'complete' | 'flagged', updatedAt: string) => {
      const ret = await insertTestReturn(server.db, listing.storeId, order, { status, items: [{ lineIndex }] });
      await setReturnTimes(server.db, ret.id, { createdAt: new Date('2026-05-01T00:00:00Z'), updatedAt: new Date(updatedAt) });
      ids[name] = ret.id;
    };
    await make('a', orders[0], 0, 'open', '2026-05-01T10:00:00Z');
    await make('b', orders[0], 1, 'complete', '2026-05-02T10:00:00Z');
    await make('c', orders[1], 0, 'flagged', '2026-05-03T10:00:00Z');
    await make('d', orders[2], 0, 'open', '2026-05-04T10:00:00Z');
  });

  const listed = async (query: string) => {
    const res = await get(query, { secret: listing.secret, storeId: listing.storeId });
    expect(res.status, query).toBe(200);
    return res.body as { returns: RestReturn[]; orders: { id: string }[] };
  };
  const names = (body: { returns: RestReturn[] }) => body.returns.map((r) => Object.keys(ids).find((k) => ids[k] === r.id));

  it('lists newest update first with the orders of the page, each once', async () => {
    const body = await listed('');
    expect(names(body)).toEqual(['d', 'c', 'b', 'a']);
    expect(body.orders.map((o) => o.id)).toEqual([orders[2].id, orders[1].id, orders[0].id]);
    expect(body.orders[0]).toEqual({
      id: orders[2].id,
      name: orders[2].name,
      externalId: orders[2].externalId,
      customer: { name: { given: 'Sam', surname: 'Shopper' }, emailAddress: 'shopper@example.com' },
      items: [
        { id: orders[2].lineItems[0].id, externalId: 'line-1', product: { name: 'Item 1' }, variant: { name: 'Item 1' }, quantity: 1, price: { amount: '25.00', currency: 'USD' }, fulfillmentLocationId: null },
        { id: orders[2].lineItems[1].id, externalId: 'line-2', product: { name: 'Item 2' }, variant: { name: 'Item 2' }, quantity: 1, price: { amount: '25.00', currency: 'USD' }, fulfillmentLocationId: null },
      ],
      // The reference's order-read.schema requires every amount as money: what the order did not state is 0.
      discounts: { amount: '0', currency: 'USD' },
      lineItemsTotal: { amount: '50.00', currency: 'USD' },
      shippingCost: { amount: '0', currency: 'USD' },
      taxes: { amount: '5.00', currency: 'USD' },
      total: { amount: '60.00', currency: 'USD' },
      protection: { covered: false, returnsCoverage: false, packageProtection: false, finalSaleCoverage: false },
    });
  });

  it('filters by status, one or several', async () => {
    expect(names(await listed('status=open'))).toEqual(['d', 'a']);
    expect(names(await listed('status=flagged,complete'))).toEqual(['c', 'b']);
    expect(names(await listed('status=rejected'))).toEqual([]);
  });

  it('filters by updated_at_min (inclusive) and updated_at_max (exclusive)', async () => {
    expect(names(await listed('updated_at_min=2026-05-02T10:00:00Z'))).toEqual(['d', 'c', 'b']);
    expect(names(await listed('updated_at_max=2026-05-03T10:00:00Z'))).toEqual(['b', 'a']);
    expect(names(await listed('updated_at_min=2026-05-02T10:00:00Z&updated_at_max=2026-05-04T10:00:00Z'))).toEqual(['c', 'b']);
  });

  it.each(['provider_order_name', 'shopify_order_name', 'order_name'])('filters by %s', async (parameter) => {
    const body = await listed(`${parameter}=${encodeURIComponent(orders[0].name)}`);
    expect(names(body)).toEqual(['b', 'a']);
    expect(body.orders.map((o) => o.id)).toEqual([orders[0].id]);
    const alias = parameter === 'order_name' ? 'shopify_order_name' : 'order_name';
    expect(names(await listed(`${parameter}=${encodeURIComponent(orders[0].name)}&${alias}=${encodeURIComponent(orders[0].name)}`))).toEqual(['b', 'a']);
  });

  it('400 when two names of the order-name filter name different orders', async () => {
    const res = await get(`provider_order_name=${encodeURIComponent(orders[0].name)}&shopify_order_name=${encodeURIComponent(orders[1].name)}`, {
      secret: listing.secret,
      storeId: listing.storeId,
    });
    expect(res.status).toBe(400);
    expect((res.body as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(['shopify_order_name']);
  });

  it('400 naming the parameter for a bad status, date or page-size', async () => {
    for (const [query, path] of [
      ['status=shipped', 'status'],
      ['status=open&status=complete', 'status'],
      ['updated_at_min=yesterday', 'updated_at_min'],
      ['updated_at_max=2026-05-01', 'updated_at_max'],
      ['page-size=0', 'page-size'],
      ['page-size=501', 'page-size'],
    ]) {
      const res = await get(query, { secret: listing.secret, storeId: listing.storeId });
      expect(res.status, query).toBe(400);
      expect(res.body).toMatchObject({ status: 400, errors: [{ path }] });
    }
  });

  it('walks 3+ pages with X-Page-Next while returns are inserted, never skipping or repeating one', async () => {
    const walker = await createTestStore(server.db, { scopes: ['returns_read', 'returns_write'], name: 'Walker' });
    const seeded: string[] = [];
    for (let i = 0; i < 8; i++) {
      const order = await createTestOrder(server.db, walker.storeId, { lines: [{}] });
      const ret = await insertTestReturn(server.db, walker.storeId, order);
      await setReturnTimes(server.db, ret.id, { updatedAt: new Date(Date.UTC(2026, 4, 10, i)) });
      seeded.unshift(ret.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `page-size=3${cursor ? `&page-continue=${encodeURIComponent(cursor)}` : ''}`;
      const res = await get(query, { secret: walker.secret, storeId: walker.storeId });
      expect(res.status).toBe(200);
      seen.push(...(res.body as { returns: RestReturn[] }).returns.map((r) => r.id));
      cursor = res.headers.get('x-page-next');
      pages++;
      // Newer returns appear while the client walks; they sort before the cursor.
      const order = await createTestOrder(server.db, walker.storeId, { lines: [{}] });
      await post({ orderId: order.id, items: [{ lineItemId: 'line-1', quantity: 1 }] }, { secret: walker.secret, storeId: walker.storeId });
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(seeded);
  });

  it('takes the page size and cursor as X-Page-Size / X-Page-Continue headers too', async () => {
    const first = await get('', { secret: listing.secret, storeId: listing.storeId, headers: { 'x-page-size': '2' } });
    expect(names(first.body as { returns: RestReturn[] })).toEqual(['d', 'c']);
    const next = first.headers.get('x-page-next')!;
    const second = await get('', { secret: listing.secret, storeId: listing.storeId, headers: { 'x-page-size': '2', 'x-page-continue': next } });
    expect(names(second.body as { returns: RestReturn[] })).toEqual(['b', 'a']);
    expect(second.headers.get('x-page-next')).toBeNull();
  });

  it('400 for an altered cursor', async () => {
    const first = await get('page-size=1', { secret: listing.secret, storeId: listing.storeId });
    const cursor = first.headers.get('x-page-next')!;
    const altered = cursor.slice(0, -2) + (cursor.endsWith('AA') ? 'BB' : 'AA');
    const [payload, signature] = cursor.split('.');
    const forged = `${Buffer.from(JSON.stringify(['returns:updatedAt:desc', '2030-01-01T00:00:00.000Z', 'x'])).toString('base64url')}.${signature}`;
    for (const bad of [altered, forged, `${payload}.`, 'garbage']) {
      const res = await get(`page-continue=${encodeURIComponent(bad)}`, { secret: listing.secret, storeId: listing.storeId });
      expect(res.status, bad).toBe(400);
      expect(res.body).toMatchObject({ status: 400, errors: [{ path: 'page-continue' }] });
    }
  });
});
