// Locations and stock through v3: Location and LocationInventoryLevel fields, the
// inventoryLevels filters and order, location mutations, and inventoryAdjust with
// every invariant (quantity never below 0, committed/reserved never above quantity),
// its ledger row and its inventory_level.updated event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowCounts } from '../support/counts.ts';
import { createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { query, seedCatalog, type Catalog, type UserErrors } from './fixtures.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
let catalog: Catalog;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other store' });
  catalog = await seedCatalog(server.db, store.storeId);
});
afterAll(async () => server?.close());

interface Level {
  id: string;
  quantity: number;
  available: number;
  committed: number;
  reserved: number;
  buildable: number;
}

const ADJUST = `mutation($input: InventoryAdjustInput!) { inventoryAdjust(input: $input) {
  inventoryLevel { id quantity available committed reserved buildable location { id } product { id } }
  userErrors { code field message } } }`;

async function adjust(input: Record<string, unknown>, secret = store.secret) {
  const data = await query<{ inventoryAdjust: UserErrors & { inventoryLevel: Level | null } }>(server, secret, ADJUST, { input });
  return data.inventoryAdjust;
}

describe('locations', () => {
  it('creates and updates a location with every field', async () => {
    const created = await query<{ locationCreate: UserErrors & { location: Record<string, unknown> } }>(
      server,
      store.secret,
      `mutation($input: LocationInput!) { locationCreate(input: $input) { location { id name company street1 street2 city stateCode postalCode countryCode phone createdAt updatedAt } userErrors { code field message } } }`,
      { input: { name: 'Annex', company: 'Tee Co', street1: '1 Dock Rd', city: 'Oakland', stateCode: 'CA', postalCode: '94607', countryCode: 'us', phone: '+1 510 555 0100' } },
    );
    expect(created.locationCreate.userErrors).toEqual([]);
    expect(created.locationCreate.location).toMatchObject({ name: 'Annex', street2: null, countryCode: 'US', phone: '+1 510 555 0100' });
    const updated = await query<{ locationUpdate: UserErrors & { location: Record<string, unknown> } }>(
      server,
      store.secret,
      `mutation($id: ID!) { locationUpdate(id: $id, input: { name: "Annex 2", phone: null }) { location { name city phone } userErrors { code } } }`,
      { id: created.locationCreate.location.id },
    );
    expect(updated.locationUpdate).toEqual({ location: { name: 'Annex 2', city: 'Oakland', phone: null }, userErrors: [] });
  });

  it.each([
    ['an empty name', { name: ' ' }, ['input', 'name']],
    ['a bad country code', { name: 'X', countryCode: 'USA' }, ['input', 'countryCode']],
    ['a bad phone', { name: 'X', phone: 'call me' }, ['input', 'phone']],
  ])('refuses %s', async (_what, input, field) => {
    const data = await query<{ locationCreate: UserErrors & { location: unknown } }>(
      server,
      store.secret,
      `mutation($input: LocationInput!) { locationCreate(input: $input) { location { id } userErrors { code field message } } }`,
      { input },
    );
    expect(data.locationCreate.location).toBeNull();
    expect(data.locationCreate.userErrors).toContainEqual(expect.objectContaining({ code: 'INVALID', field }));
  });

  it('does not let another store update or see a location', async () => {
    const data = await query<{ locationUpdate: UserErrors; location: unknown; locations: { nodes: unknown[] } }>(
      server,
      other.secret,
      `mutation($id: ID!) { locationUpdate(id: $id, input: { name: "Taken" }) { userErrors { code field } } }`,
      { id: catalog.warehouseId },
    );
    expect(data.locationUpdate.userErrors).toEqual([{ code: 'NOT_FOUND', field: ['id'] }]);
    const read = await query<{ location: unknown; locations: { nodes: unknown[] } }>(
      server,
      other.secret,
      `query($id: ID!) { location(id: $id) { id } locations { nodes { id } } }`,
      { id: catalog.warehouseId },
    );
    // It sees only the location every store is made with.
    const { defaultLocationId } = await server.db.prisma.store.findUniqueOrThrow({ where: { id: other.storeId } });
    expect(read).toEqual({ location: null, locations: { nodes: [{ id: defaultLocationId }] } });
  });

  it('lists the levels at a location', async () => {
    const data = await query<{ location: { inventoryLevels: { nodes: { quantity: number; product: { id: string } }[] } } }>(
      server,
      store.secret,
      `query($id: ID!) { location(id: $id) { inventoryLevels(first: 10) { nodes { quantity product { id } } } } }`,
      { id: catalog.warehouseId },
    );
    expect(data.location.inventoryLevels.nodes.map((l) => [l.product.id, l.quantity])).toEqual(catalog.productIds.map((id, i) => [id, 10 * (i + 1)]));
  });
});

describe('inventoryLevels', () => {
  it('answers a relation asked twice with other arguments, under rows whose type leaves its id out', async () => {
    // Each level's location is planned once; the second alias cannot join that plan and loads on
    // its own, by the level's id, which levels load only then.
    type Levels = { nodes: { quantity: number; product: { title: string } }[] };
    const data = await query<{ location: { inventoryLevels: { nodes: { first: { inventoryLevels: Levels }; all: { inventoryLevels: Levels } }[] } } }>(
      server,
      store.secret,
      `query($id: ID!) { location(id: $id) { inventoryLevels(first: 2) { nodes {
        first: location { inventoryLevels(first: 1) { nodes { quantity product { title } } } }
        all: location { inventoryLevels(first: 10) { nodes { quantity product { title } } } } } } } }`,
      { id: catalog.warehouseId },
    );
    const alone = await query<{ location: { inventoryLevels: Levels } }>(
      server,
      store.secret,
      `query($id: ID!) { location(id: $id) { inventoryLevels(first: 10) { nodes { quantity product { title } } } } }`,
      { id: catalog.warehouseId },
    );
    expect(alone.location.inventoryLevels.nodes.length).toBeGreaterThan(1);
    for (const node of data.location.inventoryLevels.nodes) {
      expect(node.all.inventoryLevels).toEqual(alone.location.inventoryLevels);
      expect(node.first.inventoryLevels.nodes).toEqual(alone.location.inventoryLevels.nodes.slice(0, 1));
    }
  });

  it('exposes every field of a level, available = quantity - committed - reserved', async () => {
    const level = await server.db.prisma.inventoryLevel.findFirstOrThrow({ where: { productId: catalog.productIds[1], locationId: catalog.warehouseId } });
    await server.db.prisma.inventoryLevel.update({ where: { id: level.id }, data: { committed: 3, reserved: 2, buildable: 4 } });
    const data = await query<{ inventoryLevel: Record<string, unknown> }>(
      server,
      store.secret,
      `query($id: ID!) { inventoryLevel(id: $id) { id quantity available committed reserved buildable createdAt updatedAt
        location { id name } product { id title } inventoryProduct { id title sku upc barcodes weight { value unit } dimensions { length width height unit } } } }`,
      { id: level.id },
    );
    expect(data.inventoryLevel).toMatchObject({
      id: level.id,
      quantity: 20,
      available: 15,
      committed: 3,
      reserved: 2,
      buildable: 4,
      location: { id: catalog.warehouseId, name: 'Warehouse' },
      product: { id: catalog.productIds[1], title: 'Tee Red M' },
      inventoryProduct: {
        id: catalog.productIds[1],
        title: 'Tee Red M',
        sku: 'TEE-RED-M',
        upc: null,
        barcodes: [],
        weight: { value: 180, unit: 'G' },
        dimensions: { length: 30, width: 25, height: 2, unit: 'CM' },
      },
    });
    const product = await query<{ product: { inventoryLevel: { id: string }; none: null; inventoryLevels: { nodes: { id: string }[] } } }>(
      server,
      store.secret,
      `query($id: ID!, $loc: ID!, $empty: ID!) { product(id: $id) { inventoryLevel(locationId: $loc) { id } none: inventoryLevel(locationId: $empty) { id } inventoryLevels { nodes { id } } } }`,
      { id: catalog.productIds[1], loc: catalog.warehouseId, empty: catalog.storeRoomId },
    );
    expect(product.product).toEqual({ inventoryLevel: { id: level.id }, none: null, inventoryLevels: { nodes: [{ id: level.id }] } });
  });

  it('filters by location, product, sku and updatedAt window and orders by updatedAt desc', async () => {
    const all = await query<{ inventoryLevels: { nodes: { id: string; updatedAt: string; product: { id: string } }[] } }>(
      server,
      store.secret,
      `{ inventoryLevels(first: 100) { nodes { id updatedAt product { id } } } }`,
    );
    const stamps = all.inventoryLevels.nodes.map((l) => l.updatedAt);
    expect(stamps).toEqual([...stamps].sort().reverse());
    const filtered = (variables: Record<string, unknown>) =>
      query<{ inventoryLevels: { nodes: { product: { id: string } }[] } }>(
        server,
        store.secret,
        `query($loc: ID, $product: ID, $sku: String, $min: DateTime, $max: DateTime) {
          inventoryLevels(locationId: $loc, productId: $product, sku: $sku, updatedAtMin: $min, updatedAtMax: $max) { nodes { product { id } } } }`,
        variables,
      ).then((d) => d.inventoryLevels.nodes.map((l) => l.product.id));
    expect(await filtered({ product: catalog.productIds[2] })).toEqual([catalog.productIds[2]]);
    expect(await filtered({ sku: 'TEE-BLUE-M' })).toEqual([catalog.productIds[3]]);
    expect(await filtered({ loc: catalog.storeRoomId })).toEqual([]);
    const [newest] = all.inventoryLevels.nodes;
    expect(await filtered({ min: newest.updatedAt })).toEqual([newest.product.id]);
    expect(await filtered({ max: newest.updatedAt })).not.toContain(newest.product.id);
  });
});

describe('inventoryAdjust', () => {
  it('creates a missing level, changes it by deltas, and writes the ledger and the event in one go', async () => {
    const productId = catalog.productIds[0];
    const first = await adjust({ productId, locationId: catalog.storeRoomId, quantityDelta: 12, reason: 'received', referenceId: 'DOC-1' });
    expect(first.userErrors).toEqual([]);
    expect(first.inventoryLevel).toMatchObject({ quantity: 12, available: 12, committed: 0, reserved: 0, location: { id: catalog.storeRoomId }, product: { id: productId } });
    const levelId = first.inventoryLevel!.id;
    const second = await adjust({ inventoryLevelId: levelId, quantityDelta: -2, committedDelta: 4, reservedDelta: 1, buildableDelta: 3, reason: 'cycle_count' });
    expect(second.inventoryLevel).toMatchObject({ quantity: 10, committed: 4, reserved: 1, buildable: 3, available: 5 });
    const ledger = await server.db.prisma.inventoryAdjustment.findMany({ where: { levelId }, orderBy: { createdAt: 'asc' } });
    expect(ledger.map((l) => [l.reason, l.quantityDelta, l.committedDelta, l.reservedDelta, l.buildableDelta, l.referenceId])).toEqual([
      ['received', 12, 0, 0, 0, 'DOC-1'],
      ['cycle_count', -2, 4, 1, 3, null],
    ]);
    const events = await server.db.prisma.event.findMany({ where: { subjectId: levelId }, orderBy: { createdAt: 'asc' } });
    expect(events.map((e) => e.topic)).toEqual(['inventory_level.updated', 'inventory_level.updated']);
    expect(events[1]).toMatchObject({ storeId: store.storeId, data: expect.objectContaining({ id: levelId, quantity: 10, available: 5, committed: 4 }) });
  });

  it.each([
    ['quantity below 0', { quantityDelta: -11 }, 'UNPROCESSABLE', ['input', 'quantityDelta']],
    ['committed above quantity', { committedDelta: 11 }, 'UNPROCESSABLE', ['input', 'committedDelta']],
    ['reserved above quantity', { reservedDelta: 11 }, 'UNPROCESSABLE', ['input', 'reservedDelta']],
    ['committed below 0', { committedDelta: -1 }, 'UNPROCESSABLE', ['input', 'committedDelta']],
    ['no change', { quantityDelta: 0 }, 'INVALID', ['input', 'quantityDelta']],
    ['an empty reason', { quantityDelta: 1, reason: '' }, 'INVALID', ['input', 'reason']],
    ['a level named twice', { quantityDelta: 1, productId: 'PRODUCT' }, 'INVALID', ['input', 'inventoryLevelId']],
    ['an unknown level', { quantityDelta: 1, inventoryLevelId: 'li_nope' }, 'NOT_FOUND', ['input', 'inventoryLevelId']],
  ])('refuses %s and writes nothing', async (_what, change, code, field) => {
    const level = await server.db.prisma.inventoryLevel.findFirstOrThrow({ where: { productId: catalog.productIds[0], locationId: catalog.warehouseId } });
    const input: Record<string, unknown> = { inventoryLevelId: level.id, reason: 'test', ...change };
    if (input.productId === 'PRODUCT') input.productId = catalog.productIds[0];
    const before = await rowCounts(server.db);
    const result = await adjust(input);
    expect(result.inventoryLevel).toBeNull();
    expect(result.userErrors).toContainEqual(expect.objectContaining({ code, field }));
    expect(await rowCounts(server.db)).toEqual(before);
    expect(await server.db.prisma.inventoryLevel.findUniqueOrThrow({ where: { id: level.id } })).toEqual(level);
  });

  it('refuses an unknown product or location, and another store’s level', async () => {
    expect((await adjust({ productId: 'prd_nope', locationId: catalog.warehouseId, quantityDelta: 1, reason: 'x' })).userErrors).toEqual([
      expect.objectContaining({ code: 'NOT_FOUND', field: ['input', 'productId'] }),
    ]);
    expect((await adjust({ productId: catalog.productIds[0], locationId: 'loc_nope', quantityDelta: 1, reason: 'x' })).userErrors).toEqual([
      expect.objectContaining({ code: 'NOT_FOUND', field: ['input', 'locationId'] }),
    ]);
    const level = await server.db.prisma.inventoryLevel.findFirstOrThrow({ where: { storeId: store.storeId } });
    expect((await adjust({ inventoryLevelId: level.id, quantityDelta: 1, reason: 'x' }, other.secret)).userErrors).toEqual([
      expect.objectContaining({ code: 'NOT_FOUND', field: ['input', 'inventoryLevelId'] }),
    ]);
  });
});
