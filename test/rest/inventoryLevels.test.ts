// GET /v2.2/stores/{storeId}/inventory-levels and /inventory-levels/{id}: the
// snake_case shape its integrations read, every filter and its validation, pagination
// (a walk over 3+ pages with inserts between pages), scopes, other stores, the
// fulfillment-service view, and nothing written on any refused request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addApiClient, call, createTestStore, linkFulfillmentService, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { expectValidRestResponse } from '../support/openapi.ts';
import { rowCounts } from '../support/counts.ts';
import { seedLevel, seedLocation, seedProduct } from '../support/inventoryFixtures.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
let warehouse: string;
let shop: string;
let widget: string;
let gadget: string;
/** Level ids, newest update first. */
let levelIds: string[];
let otherLevel: string;

const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 12, minute, 0));
const base = () => `/v2.2/stores/${store.storeId}/inventory-levels`;

type LevelJson = { id: string; product: { id: string }; location: { id: string }; updated_at: string };

async function list(query = '', secret = store.secret) {
  const url = `${base()}${query ? `?${query}` : ''}`;
  const res = await call(server, 'GET', url, { secret });
  expectValidRestResponse('GET', url, res);
  return res;
}

const idsOf = (res: { body: unknown }) => (res.body as { inventory_levels: LevelJson[] }).inventory_levels.map((l) => l.id);

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other' });
  warehouse = await seedLocation(server.db, store.storeId, 'Main warehouse');
  shop = await seedLocation(server.db, store.storeId, 'Shop floor');
  widget = await seedProduct(server.db, store.storeId, { title: 'Widget', sku: 'WID-1' });
  gadget = await seedProduct(server.db, store.storeId, { title: 'Gadget', sku: null });
  const seeds = [
    { productId: widget, locationId: warehouse, quantity: 50, committed: 5, reserved: 3, buildable: 7, updatedAt: at(40) },
    { productId: widget, locationId: shop, quantity: 4, updatedAt: at(30) },
    { productId: gadget, locationId: warehouse, quantity: 10, committed: 10, updatedAt: at(20) },
    { productId: gadget, locationId: shop, quantity: 1, reserved: 1, buildable: 2, updatedAt: at(10) },
  ];
  levelIds = [];
  for (const seed of seeds) levelIds.push(await seedLevel(server.db, { storeId: store.storeId, ...seed }));
  const otherLocation = await seedLocation(server.db, other.storeId, 'Elsewhere');
  const otherProduct = await seedProduct(server.db, other.storeId, { title: 'Foreign', sku: 'WID-1' });
  otherLevel = await seedLevel(server.db, { storeId: other.storeId, productId: otherProduct, locationId: otherLocation, quantity: 99 });
});
afterAll(async () => server?.close());

describe('list', () => {
  it('answers {inventory_levels} in the legacy snake_case shape, newest update first, only the store\'s own', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-page-next')).toBeNull();
    const body = res.body as { inventory_levels: unknown[] };
    expect(Object.keys(body)).toEqual(['inventory_levels']);
    expect(idsOf(res)).toEqual(levelIds);
    expect(body.inventory_levels[0]).toEqual({
      id: levelIds[0],
      product: { id: widget, title: 'Widget', sku: 'WID-1' },
      location: { id: warehouse, name: 'Main warehouse' },
      quantity: 50,
      available: 42,
      committed: 5,
      reserved: 3,
      buildable: 7,
      total_available: 49,
      updated_at: at(40).toISOString(),
    });
    expect(body.inventory_levels[3]).toMatchObject({
      product: { id: gadget, title: 'Gadget', sku: null },
      quantity: 1,
      available: 0,
      reserved: 1,
      buildable: 2,
      total_available: 2,
    });
    expect(idsOf(res)).not.toContain(otherLevel);
  });

  it('filters by location_id, product_id, sku and the updated_at window (min inclusive, max exclusive)', async () => {
    expect(idsOf(await list(`location_id=${shop}`))).toEqual([levelIds[1], levelIds[3]]);
    expect(idsOf(await list(`product_id=${gadget}`))).toEqual([levelIds[2], levelIds[3]]);
    expect(idsOf(await list('sku=WID-1'))).toEqual([levelIds[0], levelIds[1]]);
    expect(idsOf(await list(`updated_at_min=${at(20).toISOString()}`))).toEqual(levelIds.slice(0, 3));
    expect(idsOf(await list(`updated_at_max=${at(30).toISOString()}`))).toEqual([levelIds[2], levelIds[3]]);
    expect(idsOf(await list(`updated_at_min=${at(20).toISOString()}&updated_at_max=${at(40).toISOString()}`))).toEqual([levelIds[1], levelIds[2]]);
    expect(idsOf(await list(`location_id=${warehouse}&sku=WID-1`))).toEqual([levelIds[0]]);
  });

  it('answers an empty list, without X-Page-Next, when nothing matches', async () => {
    for (const query of ['sku=NOPE', 'location_id=loc_doesnotexist', `product_id=prd_unknown`, `updated_at_min=2030-01-01T00:00:00Z`]) {
      const res = await list(query);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ inventory_levels: [] });
      expect(res.headers.get('x-page-next')).toBeNull();
    }
  });

  it("does not show another store's levels through a filter naming them", async () => {
    const foreign = await list(`sku=WID-1&location_id=${(await server.db.prisma.inventoryLevel.findUniqueOrThrow({ where: { id: otherLevel } })).locationId}`);
    expect(foreign.body).toEqual({ inventory_levels: [] });
  });
});

describe('validation', () => {
  const cases: [string, string, RegExp][] = [
    ['location_id=prd_abc', 'location_id', /starting with loc_/],
    ['location_id=', 'location_id', /must not be empty/],
    ['product_id=loc_abc', 'product_id', /starting with prd_/],
    ['product_id=PRD_ABC', 'product_id', /starting with prd_/],
    ['sku=', 'sku', /must not be empty/],
    ['sku=a&sku=b', 'sku', /at most once/],
    ['updated_at_min=yesterday', 'updated_at_min', /ISO 8601/],
    ['updated_at_min=2026-03-01', 'updated_at_min', /ISO 8601/],
    ['updated_at_max=2026-03-01T12:00:00', 'updated_at_max', /ISO 8601/],
    ['page-size=0', 'page-size', /from 1 to 500/],
    ['page-size=501', 'page-size', /from 1 to 500/],
    ['page-size=abc', 'page-size', /from 1 to 500/],
    ['page-continue=', 'page-continue', /must not be empty/],
    ['page-continue=not-a-cursor', 'page-continue', /cursor/],
  ];
  for (const [query, path, message] of cases) {
    it(`400 problem for ${query || '(empty)'} naming ${path}`, async () => {
      const res = await list(query);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const body = res.body as { status: number; instance: string; errors: { path: string; message: string }[] };
      expect(body).toMatchObject({ type: 'about:blank', title: 'Bad Request', status: 400, instance: `${base()}?${query}` });
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0].path).toBe(path);
      expect(body.errors[0].message).toMatch(message);
    });
  }

  it('lists every bad parameter at once', async () => {
    const res = await list('page-size=0&location_id=x&updated_at_min=soon&updated_at_max=later');
    expect(res.status).toBe(400);
    expect((res.body as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(['page-size', 'location_id', 'updated_at_min', 'updated_at_max']);
  });

  it('refuses an altered cursor with 400 naming page-continue', async () => {
    const first = await list('page-size=1');
    const cursor = first.headers.get('x-page-next')!;
    expect(cursor).toBeTruthy();
    const [payload, signature] = cursor.split('.');
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
    decoded[2] = levelIds[3];
    const forged = `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${signature}`;
    const flipped = cursor.slice(0, -1) + (cursor.endsWith('A') ? 'B' : 'A');
    for (const altered of [forged, flipped, `${cursor}x`, cursor.slice(1), `${cursor}.extra`]) {
      const res = await list(`page-continue=${encodeURIComponent(altered)}`);
      expect(res.status, altered).toBe(400);
      expect((res.body as { errors: { path: string }[] }).errors).toEqual([{ path: 'page-continue', message: expect.stringMatching(/cursor/) }]);
    }
    expect((await list(`page-size=1&page-continue=${encodeURIComponent(cursor)}`)).status).toBe(200);
  });
});

describe('pagination', () => {
  it('walks 3+ pages with inserts between pages, never skipping or repeating a level', async () => {
    const location = await seedLocation(server.db, store.storeId, 'Pagination');
    const expected: string[] = [];
    for (let i = 0; i < 10; i++) {
      const product = await seedProduct(server.db, store.storeId, { title: `P${i}`, sku: 'PAGED' });
      // Two pairs share an instant: ties are broken by id.
      expected.push(await seedLevel(server.db, { storeId: store.storeId, productId: product, locationId: location, quantity: i, updatedAt: at(50 - Math.floor(i / 2)) }));
    }
    const levels = await server.db.prisma.inventoryLevel.findMany({ where: { id: { in: expected } }, orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }], select: { id: true } });
    const order = levels.map((l) => l.id);

    const seen: string[] = [];
    const pageSizes: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `sku=PAGED&page-size=3${cursor ? `&page-continue=${encodeURIComponent(cursor)}` : ''}`;
      const res = await list(query);
      expect(res.status).toBe(200);
      pageSizes.push(idsOf(res).length);
      seen.push(...idsOf(res));
      cursor = res.headers.get('x-page-next');
      pages++;
      // Inserts between pages: new levels (newest of all) and one older than everything.
      const product = await seedProduct(server.db, store.storeId, { title: `New ${pages}`, sku: 'PAGED' });
      await seedLevel(server.db, { storeId: store.storeId, productId: product, locationId: location, updatedAt: new Date(Date.UTC(2027, 0, pages)) });
      const old = await seedProduct(server.db, store.storeId, { title: `Old ${pages}`, sku: 'PAGED' });
      await seedLevel(server.db, { storeId: store.storeId, productId: old, locationId: shop, updatedAt: new Date(Date.UTC(2020, 0, pages)) });
    } while (cursor && pages < 20);

    expect(pages).toBeGreaterThanOrEqual(4);
    expect(pageSizes.slice(0, 4)).toEqual([3, 3, 3, 3]);
    const walked = seen.filter((id) => order.includes(id));
    expect(walked).toEqual(order);
    expect(new Set(seen).size).toBe(seen.length);
    // The older rows inserted during the walk lie ahead of the cursor and are reached, each once.
    expect(seen.length - walked.length).toBeGreaterThanOrEqual(1);
    const inserted = await server.db.prisma.inventoryLevel.findMany({ where: { updatedAt: { gte: new Date(Date.UTC(2027, 0, 1)) } }, select: { id: true } });
    expect(inserted.length).toBe(pages);
    expect(seen.filter((id) => inserted.some((l) => l.id === id))).toEqual([]);
  });

  it('takes page-size and page-continue as X-Page-Size and X-Page-Continue headers too', async () => {
    const first = await call(server, 'GET', base(), { secret: store.secret, headers: { 'x-page-size': '2' } });
    expect(idsOf(first)).toHaveLength(2);
    const next = first.headers.get('x-page-next')!;
    const second = await call(server, 'GET', base(), { secret: store.secret, headers: { 'x-page-size': '2', 'x-page-continue': next } });
    const viaQuery = await list(`page-size=2&page-continue=${encodeURIComponent(next)}`);
    expect(idsOf(second)).toEqual(idsOf(viaQuery));
    expect(idsOf(second)).not.toContain(idsOf(first)[0]);
  });

  it(`defaults to 20 per page`, async () => {
    const res = await list();
    expect(idsOf(res)).toHaveLength(20);
    expect(res.headers.get('x-page-next')).toBeTruthy();
  });
});

describe('one level', () => {
  it('answers {inventory_level}: the list shape plus the product upc, external_ids (none kept) and created_at', async () => {
    const url = `${base()}/${levelIds[0]}`;
    const res = await call(server, 'GET', url, { secret: store.secret });
    expectValidRestResponse('GET', url, res);
    expect(res.status).toBe(200);
    const listed = (await list(`location_id=${warehouse}&sku=WID-1`)).body as { inventory_levels: { product: object }[] };
    const stored = await server.db.prisma.inventoryLevel.findUniqueOrThrow({ where: { id: levelIds[0] }, include: { product: true } });
    expect(res.body).toEqual({
      inventory_level: {
        ...listed.inventory_levels[0],
        product: { ...listed.inventory_levels[0].product, upc: stored.product.upc },
        external_ids: null,
        created_at: stored.createdAt.toISOString(),
      },
    });
  });

  it("404 problem for an unknown id, an id of another kind and another store's level", async () => {
    for (const id of ['li_doesnotexist', 'prd_abc', 'hello', otherLevel, encodeURIComponent('li_a b')]) {
      const url = `${base()}/${id}`;
      const res = await call(server, 'GET', url, { secret: store.secret });
      expect(res.status, id).toBe(404);
      expect(res.body).toMatchObject({ type: 'about:blank', title: 'Not Found', status: 404, instance: url });
      expectValidRestResponse('GET', url, res);
    }
  });
});

describe('scopes and stores', () => {
  it('needs inventory_read and locations_read', async () => {
    for (const scopes of [['inventory_read'], ['locations_read'], ['products_read', 'inventory_write']]) {
      const client = await addApiClient(server.db, store.storeId, scopes);
      for (const url of [base(), `${base()}/${levelIds[0]}`]) {
        const res = await call(server, 'GET', url, { secret: client.secret });
        expect(res.status).toBe(403);
        expect((res.body as { detail: string }).detail).toMatch(/^missing scope: /);
        expectValidRestResponse('GET', url, res);
      }
    }
    const enough = await addApiClient(server.db, store.storeId, ['inventory_read', 'locations_read']);
    expect((await list('', enough.secret)).status).toBe(200);
  });

  it("refuses another store's secret with 403 and no secret with 401", async () => {
    expect((await call(server, 'GET', base(), { secret: other.secret })).status).toBe(403);
    expect((await call(server, 'GET', `${base()}/${levelIds[0]}`, { secret: other.secret })).status).toBe(403);
    expect((await call(server, 'GET', base())).status).toBe(401);
  });

  it("shows a fulfillment service the merchant's levels at its locations, and the merchant its levels there", async () => {
    const service = await createTestStore(server.db, { kind: 'FULFILLMENT_SERVICE', name: '3PL' });
    await linkFulfillmentService(server.db.prisma, store.storeId, service.storeId);
    const dock = await seedLocation(server.db, service.storeId, '3PL dock');
    const level = await seedLevel(server.db, { storeId: store.storeId, productId: widget, locationId: dock, quantity: 8, updatedAt: at(5) });

    const serviceUrl = `/v2.2/stores/${service.storeId}/inventory-levels`;
    const res = await call(server, 'GET', serviceUrl, { secret: service.secret });
    expectValidRestResponse('GET', serviceUrl, res);
    const fromService = res.body as { inventory_levels: LevelJson[] };
    expect(fromService.inventory_levels).toEqual([
      expect.objectContaining({ id: level, product: { id: widget, title: 'Widget', sku: 'WID-1' }, location: { id: dock, name: '3PL dock' }, quantity: 8 }),
    ]);
    const fromMerchant = await list(`location_id=${dock}`);
    expect(idsOf(fromMerchant)).toEqual([level]);
    const one = await call(server, 'GET', `/v2.2/stores/${service.storeId}/inventory-levels/${level}`, { secret: service.secret });
    expect(one.status).toBe(200);
    expect((one.body as { inventory_level: LevelJson }).inventory_level.product.id).toBe(widget);
  });
});

describe('refused requests', () => {
  it('write nothing', async () => {
    const before = await rowCounts(server.db);
    const inventoryOnly = await addApiClient(server.db, store.storeId, ['inventory_read']);
    const afterClient = await rowCounts(server.db);
    const statuses = await Promise.all([
      call(server, 'GET', `${base()}?page-size=0`, { secret: store.secret }),
      call(server, 'GET', `${base()}?page-continue=forged`, { secret: store.secret }),
      call(server, 'GET', `${base()}/li_nothing`, { secret: store.secret }),
      call(server, 'GET', base(), { secret: inventoryOnly.secret }),
      call(server, 'GET', base(), { secret: other.secret }),
      call(server, 'POST', base(), { secret: store.secret, body: { quantity: 5 } }),
      call(server, 'PUT', `${base()}/${levelIds[0]}`, { secret: store.secret, body: { quantity: 5 } }),
    ]).then((all) => all.map((r) => r.status));
    expect(statuses).toEqual([400, 400, 404, 403, 403, 405, 405]);
    expect(await rowCounts(server.db)).toEqual(afterClient);
    expect(afterClient.ApiClient).toBe(before.ApiClient + 1);
  });
});
