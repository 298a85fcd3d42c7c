// Fulfillment-service visibility (docs/interface-rules.md, "Inventory and inbound shipments"): a merchant
// sees its products' levels at its own and its linked services' locations; a
// fulfillment service sees every level at its own locations, reads them through
// `inventoryProduct`, but `product` stays the owning merchant's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adjustInventory, createLocation } from '../../src/domain/inventory.ts';
import { addApiClient, createTestStore, graphql, linkFulfillmentService, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { errorCodes, query, seedCatalog, type Catalog } from './fixtures.ts';

let server: TestServer;
let merchant: TestStore;
let neighbour: TestStore;
let unlinked: TestStore;
let service: TestStore;
let catalog: Catalog;
let serviceLocationId: string;
let merchantLevelId: string;
let neighbourLevelId: string;

beforeAll(async () => {
  server = await startTestServer();
  merchant = await createTestStore(server.db, { name: 'Merchant' });
  neighbour = await createTestStore(server.db, { name: 'Neighbour' });
  unlinked = await createTestStore(server.db, { name: 'Unlinked' });
  service = await createTestStore(server.db, { name: '3PL', kind: 'FULFILLMENT_SERVICE' });
  await linkFulfillmentService(server.db.prisma, merchant.storeId, service.storeId);
  await linkFulfillmentService(server.db.prisma, neighbour.storeId, service.storeId);
  catalog = await seedCatalog(server.db, merchant.storeId);
  const neighbourCatalog = await seedCatalog(server.db, neighbour.storeId);
  serviceLocationId = (await createLocation(server.db.prisma, service.storeId, { name: '3PL Reno' })).id;
  merchantLevelId = (await adjustInventory(server.db.prisma, merchant.storeId, { productId: catalog.productIds[0], locationId: serviceLocationId, quantityDelta: 7, reason: 'transfer' })).id;
  neighbourLevelId = (
    await adjustInventory(server.db.prisma, neighbour.storeId, { productId: neighbourCatalog.productIds[0], locationId: serviceLocationId, quantityDelta: 3, reason: 'transfer' })
  ).id;
});
afterAll(async () => server?.close());

const LEVELS = `query($loc: ID) { inventoryLevels(locationId: $loc, first: 100) { nodes { id quantity location { id name } inventoryProduct { id sku } } } }`;

describe('the merchant', () => {
  it("sees its levels at the service's location, with location and product", async () => {
    const data = await query<{ inventoryLevels: { nodes: { id: string }[] } }>(server, merchant.secret, LEVELS, { loc: serviceLocationId });
    expect(data.inventoryLevels.nodes).toEqual([
      { id: merchantLevelId, quantity: 7, location: { id: serviceLocationId, name: '3PL Reno' }, inventoryProduct: { id: catalog.productIds[0], sku: 'TEE-RED-S' } },
    ]);
    const product = await query<{ inventoryLevel: { product: { id: string } } }>(server, merchant.secret, `query($id: ID!) { inventoryLevel(id: $id) { product { id } } }`, {
      id: merchantLevelId,
    });
    expect(product.inventoryLevel.product.id).toBe(catalog.productIds[0]);
  });

  it("lists the service's location among its locations, and sees only its own levels there", async () => {
    const data = await query<{ locations: { nodes: { id: string }[] }; location: { inventoryLevels: { nodes: { id: string }[] } } }>(
      server,
      merchant.secret,
      `query($id: ID!) { locations(first: 100) { nodes { id } } location(id: $id) { inventoryLevels { nodes { id } } } }`,
      { id: serviceLocationId },
    );
    expect(data.locations.nodes.map((l) => l.id)).toEqual(expect.arrayContaining([serviceLocationId, catalog.warehouseId]));
    expect(data.location.inventoryLevels.nodes).toEqual([{ id: merchantLevelId }]);
  });

  it("may adjust its level at the service's location but not rename the location", async () => {
    const result = await query<{ inventoryAdjust: { inventoryLevel: { quantity: number } } }>(
      server,
      merchant.secret,
      `mutation($p: ID!, $l: ID!) { inventoryAdjust(input: { productId: $p, locationId: $l, quantityDelta: 1, reason: "count" }) { inventoryLevel { quantity } } }`,
      { p: catalog.productIds[0], l: serviceLocationId },
    );
    expect(result.inventoryAdjust.inventoryLevel.quantity).toBe(8);
    const rename = await query<{ locationUpdate: { userErrors: { code: string }[] } }>(
      server,
      merchant.secret,
      `mutation($id: ID!) { locationUpdate(id: $id, input: { name: "Mine" }) { userErrors { code } } }`,
      { id: serviceLocationId },
    );
    expect(rename.locationUpdate.userErrors).toEqual([{ code: 'NOT_FOUND' }]);
  });
});

describe('the fulfillment service', () => {
  it('sees every level at its own location, read through inventoryProduct', async () => {
    const data = await query<{ inventoryLevels: { nodes: { id: string }[] } }>(server, service.secret, LEVELS, {});
    expect(data.inventoryLevels.nodes.map((l) => l.id).sort()).toEqual([merchantLevelId, neighbourLevelId].sort());
    const own = await query<{ location: { inventoryLevels: { nodes: { id: string }[] } } }>(
      server,
      service.secret,
      `query($id: ID!) { location(id: $id) { inventoryLevels { nodes { id } } } }`,
      { id: serviceLocationId },
    );
    expect(own.location.inventoryLevels.nodes).toHaveLength(2);
  });

  it("is refused the merchant's product on the level (FORBIDDEN), and the product itself stays invisible", async () => {
    const result = await graphql(server, service.secret, `query($id: ID!) { inventoryLevel(id: $id) { id inventoryProduct { title } product { title } } }`, { id: merchantLevelId });
    expect(result.data).toEqual({ inventoryLevel: { id: merchantLevelId, inventoryProduct: { title: 'Tee Red S' }, product: null } });
    expect(errorCodes(result)).toEqual(['FORBIDDEN']);
    expect(result.errors![0]).toMatchObject({ path: ['inventoryLevel', 'product'] });
    const direct = await query<{ product: unknown; node: unknown }>(server, service.secret, `query($id: ID!) { product(id: $id) { id } node(id: $id) { id } }`, {
      id: catalog.productIds[0],
    });
    expect(direct).toEqual({ product: null, node: null });
  });

  it('needs inventory_read for inventoryProduct', async () => {
    const { secret } = await addApiClient(server.db, service.storeId, ['locations_read']);
    const result = await graphql(server, secret, `query($id: ID!) { location(id: $id) { name } }`, { id: serviceLocationId });
    expect(result.data).toEqual({ location: { name: '3PL Reno' } });
    const levels = await graphql(server, secret, LEVELS, {});
    expect(errorCodes(levels)).toEqual(['FORBIDDEN']);
  });

  it('finds the levels by node(id:) and may adjust them', async () => {
    const node = await query<{ node: { id: string; quantity: number } }>(server, service.secret, `query($id: ID!) { node(id: $id) { id ... on LocationInventoryLevel { quantity } } }`, {
      id: neighbourLevelId,
    });
    expect(node.node).toEqual({ id: neighbourLevelId, quantity: 3 });
    const adjusted = await query<{ inventoryAdjust: { inventoryLevel: { quantity: number }; userErrors: unknown[] } }>(
      server,
      service.secret,
      `mutation($id: ID!) { inventoryAdjust(input: { inventoryLevelId: $id, quantityDelta: -1, reason: "damaged in handling" }) { inventoryLevel { quantity } userErrors { code } } }`,
      { id: neighbourLevelId },
    );
    expect(adjusted.inventoryAdjust).toEqual({ inventoryLevel: { quantity: 2 }, userErrors: [] });
    // The event belongs to the owner of the stock, whose subscribers follow it.
    const event = await server.db.prisma.event.findFirstOrThrow({ where: { subjectId: neighbourLevelId }, orderBy: { createdAt: 'desc' } });
    expect(event.storeId).toBe(neighbour.storeId);
  });
});

describe('a merchant not linked to the service', () => {
  it("sees neither the service's location nor any level there", async () => {
    const data = await query<{ locations: { nodes: unknown[] }; location: unknown; inventoryLevels: { nodes: unknown[] }; node: unknown }>(
      server,
      unlinked.secret,
      `query($loc: ID!, $level: ID!) { locations { nodes { id } } location(id: $loc) { id } inventoryLevels { nodes { id } } node(id: $level) { id } }`,
      { loc: serviceLocationId, level: merchantLevelId },
    );
    // Only the location every store is made with.
    const { defaultLocationId } = await server.db.prisma.store.findUniqueOrThrow({ where: { id: unlinked.storeId } });
    expect(data).toEqual({ locations: { nodes: [{ id: defaultLocationId }] }, location: null, inventoryLevels: { nodes: [] }, node: null });
    const adjust = await query<{ inventoryAdjust: { userErrors: { code: string }[] } }>(
      server,
      unlinked.secret,
      `mutation($id: ID!) { inventoryAdjust(input: { inventoryLevelId: $id, quantityDelta: 1, reason: "x" }) { userErrors { code } } }`,
      { id: merchantLevelId },
    );
    expect(adjust.inventoryAdjust.userErrors).toEqual([{ code: 'NOT_FOUND' }]);
  });
});
