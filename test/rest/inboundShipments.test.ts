// GET /v2.2/stores/{storeId}/inbound-shipments and /inbound-shipments/{id}: the
// snake_case shape its integrations read (money as decimal strings, item totals, purchase
// orders on the single shipment), every filter and its validation, pagination over
// 3+ pages with inserts between pages, scopes, other stores, nothing written on refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addApiClient, call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { expectValidRestResponse } from '../support/openapi.ts';
import { rowCounts } from '../support/counts.ts';
import { seedLevel, seedLocation, seedProduct, seedShipment } from '../support/inventoryFixtures.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
let dock: string;
let annex: string;
let widget: string;
let gadget: string;
let full: Awaited<ReturnType<typeof seedShipment>>;
/** Shipment ids, newest update first. */
let shipmentIds: string[];
let otherShipment: string;

const at = (day: number, hour = 0) => new Date(Date.UTC(2026, 3, day, hour));
const base = () => `/v2.2/stores/${store.storeId}/inbound-shipments`;

type ShipmentJson = { id: string; status: string; created_at: string; updated_at: string };

async function list(query = '', secret = store.secret) {
  const url = `${base()}${query ? `?${query}` : ''}`;
  const res = await call(server, 'GET', url, { secret });
  expectValidRestResponse('GET', url, res);
  return res;
}

const idsOf = (res: { body: unknown }) => (res.body as { inbound_shipments: ShipmentJson[] }).inbound_shipments.map((s) => s.id);

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other' });
  dock = await seedLocation(server.db, store.storeId, 'Receiving dock');
  annex = await seedLocation(server.db, store.storeId, 'Annex');
  widget = await seedProduct(server.db, store.storeId, { title: 'Widget', sku: 'WID-1' });
  gadget = await seedProduct(server.db, store.storeId, { title: 'Gadget' });
  full = await seedShipment(server.db, {
    storeId: store.storeId,
    locationId: dock,
    status: 'PARTIALLY_RECEIVED',
    carrier: 'UPS',
    carrierShipmentId: 'UPS-778',
    trackingNumber: '1Z999',
    trackingUrl: 'https://track.example/1Z999',
    freightType: 'LTL',
    paymentTerms: 'NET30',
    currency: 'EUR',
    freightCost: '120.5',
    dutyCost: '0.125',
    estimatedArrivalDate: new Date('2026-04-20T00:00:00Z'),
    actualArrivalDate: new Date('2026-04-21T00:00:00Z'),
    createdAt: at(1),
    updatedAt: at(9),
    items: [
      { productId: widget, quantity: 10, receivedQuantity: 6, damagedQuantity: 1 },
      { productId: gadget, quantity: 5, receivedQuantity: 5 },
      { productId: widget, quantity: 2 },
    ],
    purchaseOrderNames: ['PO-2', 'PO-1'],
  });
  const bare = await seedShipment(server.db, { storeId: store.storeId, locationId: annex, status: 'IN_TRANSIT', createdAt: at(3), updatedAt: at(7) });
  const pending = await seedShipment(server.db, { storeId: store.storeId, locationId: dock, createdAt: at(5), updatedAt: at(5), items: [{ productId: gadget, quantity: 3 }] });
  const cancelled = await seedShipment(server.db, { storeId: store.storeId, locationId: annex, status: 'CANCELLED', createdAt: at(2), updatedAt: at(3) });
  shipmentIds = [full.id, bare.id, pending.id];
  cancelledId = cancelled.id;
  const elsewhere = await seedLocation(server.db, other.storeId, 'Elsewhere');
  otherShipment = (await seedShipment(server.db, { storeId: other.storeId, locationId: elsewhere, createdAt: at(4), updatedAt: at(8) })).id;
});
afterAll(async () => server?.close());

let cancelledId: string;

describe('list', () => {
  it("answers {inbound_shipments} in the legacy snake_case shape, newest update first, only the store's own", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-page-next')).toBeNull();
    expect(Object.keys(res.body as object)).toEqual(['inbound_shipments']);
    expect(idsOf(res)).toEqual(shipmentIds);
    const [first, second] = (res.body as { inbound_shipments: unknown[] }).inbound_shipments;
    expect(first).toEqual({
      id: full.id,
      shipment_id: 'UPS-778',
      status: 'PARTIALLY_RECEIVED',
      location: { id: dock, name: 'Receiving dock' },
      carrier: 'UPS',
      tracking_number: '1Z999',
      tracking_url: 'https://track.example/1Z999',
      estimated_arrival_date: '2026-04-20',
      actual_arrival_date: '2026-04-21',
      freight_type: 'LTL',
      payment_terms: 'NET30',
      freight_cost: { amount: '120.50', currency: 'EUR' },
      duty_cost: { amount: '0.125', currency: 'EUR' },
      items: [
        { id: full.itemIds[0], product: { id: widget, title: 'Widget', sku: 'WID-1' }, quantity: 10, received_quantity: 6, damaged_quantity: 1, missing_quantity: 0 },
        { id: full.itemIds[1], product: { id: gadget, title: 'Gadget', sku: null }, quantity: 5, received_quantity: 5, damaged_quantity: 0, missing_quantity: 0 },
        { id: full.itemIds[2], product: { id: widget, title: 'Widget', sku: 'WID-1' }, quantity: 2, received_quantity: 0, damaged_quantity: 0, missing_quantity: 0 },
      ],
      sku_count: 2,
      item_count: 17,
      received_count: 11,
      created_at: at(1).toISOString(),
      updated_at: at(9).toISOString(),
    });
    expect(second).toEqual({
      id: shipmentIds[1],
      shipment_id: null,
      status: 'IN_TRANSIT',
      location: { id: annex, name: 'Annex' },
      carrier: null,
      tracking_number: null,
      tracking_url: null,
      estimated_arrival_date: null,
      actual_arrival_date: null,
      freight_type: null,
      payment_terms: null,
      // The reference has no null cost: none recorded is zero in the shipment's currency.
      freight_cost: { amount: '0', currency: 'USD' },
      duty_cost: { amount: '0', currency: 'USD' },
      items: [],
      sku_count: 0,
      item_count: 0,
      received_count: 0,
      created_at: at(3).toISOString(),
      updated_at: at(7).toISOString(),
    });
    expect(idsOf(res)).not.toContain(otherShipment);
    expect(first).not.toHaveProperty('purchase_orders');
  });

  it('filters by status, location_id and the created_at window (min inclusive, max exclusive)', async () => {
    expect(idsOf(await list('status=IN_TRANSIT'))).toEqual([shipmentIds[1]]);
    expect(idsOf(await list('status=RECEIVED'))).toEqual([]);
    expect(idsOf(await list(`location_id=${dock}`))).toEqual([shipmentIds[0], shipmentIds[2]]);
    expect(idsOf(await list(`created_at_min=${at(2).toISOString()}`))).toEqual([shipmentIds[1], shipmentIds[2]]);
    expect(idsOf(await list(`created_at_max=${at(3).toISOString()}`))).toEqual([shipmentIds[0]]);
    expect(idsOf(await list(`created_at_min=${at(2).toISOString()}&created_at_max=${at(5).toISOString()}&location_id=${annex}`))).toEqual([
      shipmentIds[1],
    ]);
  });

  it('leaves out cancelled shipments, a status the reference document does not have (v3 shows them)', async () => {
    expect(idsOf(await list())).not.toContain(cancelledId);
    const res = await call(server, 'GET', `${base()}/${cancelledId}`, { secret: store.secret });
    expect(res.status).toBe(404);
  });
});

describe('validation', () => {
  const cases: [string, string, RegExp][] = [
    ['status=in_transit', 'status', /must be one of PENDING, IN_TRANSIT, PARTIALLY_RECEIVED, RECEIVED, got/],
    ['status=CANCELLED', 'status', /must be one of/],
    ['status=LOST', 'status', /must be one of/],
    ['status=', 'status', /must not be empty/],
    ['status=PENDING&status=RECEIVED', 'status', /at most once/],
    ['location_id=inb_abc', 'location_id', /starting with loc_/],
    ['created_at_min=last-week', 'created_at_min', /ISO 8601/],
    ['created_at_max=2026-04-01', 'created_at_max', /ISO 8601/],
    ['page-size=9999', 'page-size', /from 1 to 500/],
    ['page-continue=abc.def', 'page-continue', /cursor/],
  ];
  for (const [query, path, message] of cases) {
    it(`400 problem for ${query} naming ${path}`, async () => {
      const res = await list(query);
      expect(res.status).toBe(400);
      const body = res.body as { errors: { path: string; message: string }[] };
      expect(body).toMatchObject({ type: 'about:blank', title: 'Bad Request', status: 400, instance: `${base()}?${query}` });
      expect(body.errors).toEqual([{ path, message: expect.stringMatching(message) }]);
    });
  }

  it('lists every bad parameter at once', async () => {
    const res = await list('status=LOST&location_id=nope&created_at_min=x&page-size=-1');
    expect((res.body as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(['page-size', 'status', 'location_id', 'created_at_min']);
  });

  it('refuses a cursor of another list, and an altered one, with 400', async () => {
    await seedLevel(server.db, { storeId: store.storeId, productId: widget, locationId: dock });
    await seedLevel(server.db, { storeId: store.storeId, productId: gadget, locationId: dock });
    const levels = await call(server, 'GET', `/v2.2/stores/${store.storeId}/inventory-levels?page-size=1`, { secret: store.secret });
    const levelCursor = levels.headers.get('x-page-next')!;
    expect(levelCursor).toBeTruthy();
    const res = await list(`page-continue=${encodeURIComponent(levelCursor)}`);
    expect(res.status).toBe(400);
    expect((res.body as { errors: unknown }).errors).toEqual([{ path: 'page-continue', message: expect.stringMatching(/cursor/) }]);

    const own = (await list('page-size=1')).headers.get('x-page-next')!;
    const [payload, signature] = own.split('.');
    const tampered = JSON.parse(Buffer.from(payload, 'base64url').toString()) as unknown[];
    tampered[1] = new Date(Date.UTC(2030, 0, 1)).toISOString();
    const forged = `${Buffer.from(JSON.stringify(tampered)).toString('base64url')}.${signature}`;
    expect((await list(`page-continue=${encodeURIComponent(forged)}`)).status).toBe(400);
  });
});

describe('pagination', () => {
  it('walks 3+ pages with inserts between pages, never skipping or repeating a shipment', async () => {
    const yard = await seedLocation(server.db, store.storeId, 'Yard');
    for (let i = 0; i < 8; i++) {
      // Pairs share an instant: ties are broken by id.
      await seedShipment(server.db, { storeId: store.storeId, locationId: yard, createdAt: at(10 + Math.floor(i / 2)) });
    }
    const order = (
      await server.db.prisma.inboundShipment.findMany({ where: { locationId: yard }, orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }], select: { id: true } })
    ).map((s) => s.id);

    const seen: string[] = [];
    const newer: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `location_id=${yard}&page-size=3${cursor ? `&page-continue=${encodeURIComponent(cursor)}` : ''}`;
      const res = await list(query);
      expect(res.status).toBe(200);
      seen.push(...idsOf(res));
      cursor = res.headers.get('x-page-next');
      pages++;
      newer.push((await seedShipment(server.db, { storeId: store.storeId, locationId: yard, createdAt: at(25, pages) })).id);
      await seedShipment(server.db, { storeId: store.storeId, locationId: yard, createdAt: at(9, pages) });
    } while (cursor && pages < 20);

    expect(pages).toBeGreaterThanOrEqual(3);
    expect(seen.filter((id) => order.includes(id))).toEqual(order);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => newer.includes(id))).toEqual([]);
    expect(seen.length).toBeGreaterThan(order.length);
  });
});

describe('one shipment', () => {
  it('answers {inbound_shipment} with the list shape plus purchase_orders', async () => {
    const url = `${base()}/${full.id}`;
    const res = await call(server, 'GET', url, { secret: store.secret });
    expect(res.status).toBe(200);
    expectValidRestResponse('GET', url, res);
    const listed = ((await list(`location_id=${dock}&status=PARTIALLY_RECEIVED`)).body as { inbound_shipments: unknown[] }).inbound_shipments[0];
    const ordersByName = ['PO-1', 'PO-2'].map((name) => ({ id: full.purchaseOrderIds[name === 'PO-2' ? 0 : 1], name }));
    expect(res.body).toEqual({
      inbound_shipment: {
        ...(listed as object),
        purchase_orders: ordersByName,
        custom_volume_cubic_meters: null,
        transfer_orders: [],
        files: [],
        damaged_count: 1,
        missing_count: 0,
      },
    });
  });

  it('answers purchase_orders [] for a shipment fulfilling none', async () => {
    const url = `${base()}/${shipmentIds[1]}`;
    const res = await call(server, 'GET', url, { secret: store.secret });
    expect((res.body as { inbound_shipment: { purchase_orders: unknown } }).inbound_shipment.purchase_orders).toEqual([]);
  });

  it("404 problem for an unknown id, an id of another kind and another store's shipment", async () => {
    for (const id of ['inb_doesnotexist', 'li_abc', 'PO-1', otherShipment]) {
      const url = `${base()}/${id}`;
      const res = await call(server, 'GET', url, { secret: store.secret });
      expect(res.status, id).toBe(404);
      expect(res.body).toMatchObject({ type: 'about:blank', title: 'Not Found', status: 404, instance: url });
      expectValidRestResponse('GET', url, res);
    }
  });
});

describe('scopes and stores', () => {
  it('needs inventory_read, locations_read and products_read', async () => {
    const all = ['inventory_read', 'locations_read', 'products_read'];
    for (const missing of all) {
      const client = await addApiClient(server.db, store.storeId, all.filter((s) => s !== missing));
      for (const url of [base(), `${base()}/${full.id}`]) {
        const res = await call(server, 'GET', url, { secret: client.secret });
        expect(res.status).toBe(403);
        expect((res.body as { detail: string }).detail).toBe(`missing scope: ${missing}`);
        expectValidRestResponse('GET', url, res);
      }
    }
    const enough = await addApiClient(server.db, store.storeId, all);
    expect((await list('', enough.secret)).status).toBe(200);
  });

  it("refuses another store's secret with 403 and a missing secret with 401", async () => {
    for (const url of [base(), `${base()}/${full.id}`]) {
      expect((await call(server, 'GET', url, { secret: other.secret })).status).toBe(403);
      expect((await call(server, 'GET', url)).status).toBe(401);
    }
  });
});

describe('refused requests', () => {
  it('write nothing', async () => {
    const productsMissing = await addApiClient(server.db, store.storeId, ['inventory_read', 'locations_read']);
    const before = await rowCounts(server.db);
    const statuses = await Promise.all([
      call(server, 'GET', `${base()}?status=LOST`, { secret: store.secret }),
      call(server, 'GET', `${base()}?page-continue=forged.cursor`, { secret: store.secret }),
      call(server, 'GET', `${base()}/inb_nothing`, { secret: store.secret }),
      call(server, 'GET', base(), { secret: productsMissing.secret }),
      call(server, 'GET', base(), { secret: other.secret }),
      call(server, 'POST', base(), { secret: store.secret, body: { location_id: dock } }),
      call(server, 'DELETE', `${base()}/${full.id}`, { secret: store.secret }),
    ]).then((all) => all.map((r) => r.status));
    expect(statuses).toEqual([400, 400, 404, 403, 403, 405, 405]);
    expect(await rowCounts(server.db)).toEqual(before);
  });
});
