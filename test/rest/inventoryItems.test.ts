// GET /v2.2/stores/{storeId}/inventory-items[/{id}]: only products with units on hand,
// newest update first, quantity per location (or at the filtered location), checked
// against the reference document by call(); another store's products are invisible.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
let main: string;
let annex: string;
const products: Record<string, string> = {};

const base = (storeId = store.storeId) => `/v2.2/stores/${storeId}/inventory-items`;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other' });
  main = newId('location');
  annex = newId('location');
  await server.db.prisma.location.createMany({ data: [{ id: main, storeId: store.storeId, name: 'Main' }, { id: annex, storeId: store.storeId, name: 'Annex' }] });
  const stock: [string, Record<string, number>, number][] = [
    ['Shirt', { [main]: 4, [annex]: 2 }, 1],
    ['Mug', { [main]: 0 }, 2],
    ['Cap', { [annex]: 7 }, 3],
  ];
  for (const [title, levels, minute] of stock) {
    const id = newId('product');
    const at = new Date(`2026-06-01T00:0${minute}:00Z`);
    await server.db.prisma.product.create({ data: { id, storeId: store.storeId, title, sku: title.toUpperCase(), createdAt: at, updatedAt: at } });
    for (const [locationId, quantity] of Object.entries(levels)) {
      await server.db.prisma.inventoryLevel.create({ data: { id: newId('inventoryLevel'), storeId: store.storeId, productId: id, locationId, quantity } });
    }
    products[title] = id;
  }
});
afterAll(async () => server?.close());

describe('inventory items', () => {
  it('lists products on hand, newest update first, with quantity per location', async () => {
    const res = await call(server, 'GET', base(), { secret: store.secret });
    expect(res.status).toBe(200);
    const items = (res.body as { inventory_items: { id: string; quantity: number; locations: unknown[] }[] }).inventory_items;
    expect(items.map((i) => i.id)).toEqual([products.Cap, products.Shirt]);
    expect(items[1]).toMatchObject({
      sku: 'SHIRT',
      name: 'Shirt',
      kind: 'PRODUCT',
      quantity: 6,
      locations: expect.arrayContaining([
        { location_id: main, location_name: 'Main', quantity: 4 },
        { location_id: annex, location_name: 'Annex', quantity: 2 },
      ]),
    });
  });

  it('filters by location (quantity is then the quantity there) and pages with X-Page-Next', async () => {
    const atMain = await call(server, 'GET', `${base()}?location_id=${main}`, { secret: store.secret });
    expect(atMain.body).toMatchObject({ inventory_items: [{ id: products.Shirt, quantity: 4 }] });
    const first = await call(server, 'GET', `${base()}?page-size=1`, { secret: store.secret });
    const next = first.headers.get('x-page-next');
    expect(next).toBeTruthy();
    const second = await call(server, 'GET', `${base()}?page-size=1&page-continue=${encodeURIComponent(next!)}`, { secret: store.secret });
    expect((second.body as { inventory_items: { id: string }[] }).inventory_items.map((i) => i.id)).toEqual([products.Shirt]);
    expect(second.headers.get('x-page-next')).toBeNull();
  });

  it('answers one item; 404 problem for an item out of stock, unknown, or of another store; 400 for bad filters', async () => {
    const one = await call(server, 'GET', `${base()}/${products.Cap}`, { secret: store.secret });
    expect(one.body).toMatchObject({ inventory_item: { id: products.Cap, quantity: 7 } });
    for (const id of [products.Mug, 'prd_unknown', 'li_x']) {
      expect((await call(server, 'GET', `${base()}/${id}`, { secret: store.secret })).status).toBe(404);
    }
    expect((await call(server, 'GET', `${base(other.storeId)}/${products.Cap}`, { secret: other.secret })).status).toBe(404);
    expect((await call(server, 'GET', base(other.storeId), { secret: other.secret })).body).toEqual({ inventory_items: [] });
    const bad = await call(server, 'GET', `${base()}?location_id=prd_1&kind=RETURN`, { secret: store.secret });
    expect(bad.status).toBe(400);
    expect((bad.body as { errors: { path: string }[] }).errors.map((e) => e.path).sort()).toEqual(['kind', 'location_id']);
  });
});
