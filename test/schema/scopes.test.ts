// Every scope rule of the inventory graph:
// each root, field, node(id:) lookup and mutation is tried once with a client that
// has every scope but the one it needs (FORBIDDEN, at the field that needs it) and
// once with a client that has only what the operation needs (no error).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../src/auth/scopes.ts';
import { createInboundShipment } from '../../src/domain/inbound.ts';
import { createPurchaseOrder } from '../../src/domain/purchasing.ts';
import { addProductImage } from '../../src/domain/catalog.ts';
import { addApiClient, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { errorCodes, seedCatalog } from './fixtures.ts';

let server: TestServer;
let store: TestStore;
const ids: Record<string, string> = {};
const secrets = new Map<string, string>();

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  const catalog = await seedCatalog(server.db, store.storeId);
  const { prisma } = server.db;
  const po = await createPurchaseOrder(prisma, store.storeId, { name: 'PO-1', items: [{ productId: catalog.productIds[0], quantity: 2 }] });
  const poItem = await prisma.purchaseOrderItem.findFirstOrThrow({ where: { purchaseOrderId: po.id } });
  const shipment = await createInboundShipment(prisma, store.storeId, { locationId: catalog.warehouseId, items: [{ purchaseOrderItemId: poItem.id, quantity: 2 }] });
  const item = await prisma.inboundShipmentItem.findFirstOrThrow({ where: { shipmentId: shipment.id } });
  const level = await prisma.inventoryLevel.findFirstOrThrow({ where: { productId: catalog.productIds[0], locationId: catalog.warehouseId } });
  const image = await addProductImage(prisma, store.storeId, catalog.productIds[0], { url: 'https://img.example.com/a.jpg' });
  Object.assign(ids, {
    product: catalog.productIds[0],
    family: catalog.familyId,
    attribute: catalog.weightAttributeId,
    image: image.id,
    location: catalog.warehouseId,
    level: level.id,
    shipment: shipment.id,
    item: item.id,
    po: po.id,
    poItem: poItem.id,
  });
});
afterAll(async () => server?.close());

async function clientWith(scopes: readonly Scope[]): Promise<string> {
  const key = [...scopes].sort().join(' ');
  if (!secrets.has(key)) secrets.set(key, (await addApiClient(server.db, store.storeId, scopes)).secret);
  return secrets.get(key)!;
}

interface ScopeCase {
  name: string;
  document: string;
  /** The scope the rule is about. */
  scope: Scope;
  /** What an operation that passes needs in all. */
  needs: Scope[];
  /** Where the FORBIDDEN error appears without `scope`. */
  path: (string | number)[];
}

const CASES: ScopeCase[] = [
  // roots
  { name: 'inboundShipments', document: '{ inboundShipments { nodes { id } } }', scope: 'inventory_read', needs: ['inventory_read'], path: ['inboundShipments'] },
  { name: 'inboundShipment', document: 'query($shipment: ID!) { inboundShipment(id: $shipment) { id status } }', scope: 'inventory_read', needs: ['inventory_read'], path: ['inboundShipment'] },
  { name: 'purchaseOrders', document: '{ purchaseOrders { nodes { id } } }', scope: 'inventory_read', needs: ['inventory_read'], path: ['purchaseOrders'] },
  { name: 'purchaseOrder', document: 'query($po: ID!) { purchaseOrder(id: $po) { id } }', scope: 'inventory_read', needs: ['inventory_read'], path: ['purchaseOrder'] },
  { name: 'inventoryLevels', document: '{ inventoryLevels { nodes { id available } } }', scope: 'inventory_read', needs: ['inventory_read'], path: ['inventoryLevels'] },
  { name: 'inventoryLevel', document: 'query($level: ID!) { inventoryLevel(id: $level) { id } }', scope: 'inventory_read', needs: ['inventory_read'], path: ['inventoryLevel'] },
  { name: 'products', document: '{ products { nodes { id title } } }', scope: 'products_read', needs: ['products_read'], path: ['products'] },
  { name: 'product', document: 'query($product: ID!) { product(id: $product) { id } }', scope: 'products_read', needs: ['products_read'], path: ['product'] },
  { name: 'productFamilies', document: '{ productFamilies { nodes { id } } }', scope: 'products_read', needs: ['products_read'], path: ['productFamilies'] },
  { name: 'productFamily', document: 'query($family: ID!) { productFamily(id: $family) { id } }', scope: 'products_read', needs: ['products_read'], path: ['productFamily'] },
  { name: 'attributes', document: '{ attributes { nodes { id } } }', scope: 'products_read', needs: ['products_read'], path: ['attributes'] },
  { name: 'locations', document: '{ locations { nodes { id } } }', scope: 'locations_read', needs: ['locations_read'], path: ['locations'] },
  { name: 'location', document: 'query($location: ID!) { location(id: $location) { id } }', scope: 'locations_read', needs: ['locations_read'], path: ['location'] },
  // fields
  {
    name: 'InboundShipment.location',
    document: 'query($shipment: ID!) { inboundShipment(id: $shipment) { location { name } } }',
    scope: 'locations_read',
    needs: ['inventory_read', 'locations_read'],
    path: ['inboundShipment', 'location'],
  },
  {
    name: 'InboundShipment.items',
    document: 'query($shipment: ID!) { inboundShipment(id: $shipment) { items { nodes { id } } } }',
    scope: 'inventory_read',
    needs: ['inventory_read'],
    path: ['inboundShipment'],
  },
  {
    name: 'InboundShipment.purchaseOrders',
    document: 'query($shipment: ID!) { inboundShipment(id: $shipment) { purchaseOrders { nodes { name } } } }',
    scope: 'inventory_read',
    needs: ['inventory_read'],
    path: ['inboundShipment'],
  },
  {
    name: 'InboundShipmentItem.product',
    document: 'query($shipment: ID!) { inboundShipment(id: $shipment) { items { nodes { product { title } } } } }',
    scope: 'products_read',
    needs: ['inventory_read', 'products_read'],
    path: ['inboundShipment', 'items', 'nodes', 0, 'product'],
  },
  {
    name: 'PurchaseOrderItem.product',
    document: 'query($po: ID!) { purchaseOrder(id: $po) { items { nodes { product { title } } } } }',
    scope: 'products_read',
    needs: ['inventory_read', 'products_read'],
    path: ['purchaseOrder', 'items', 'nodes', 0, 'product'],
  },
  {
    name: 'Product.image',
    document: 'query($level: ID!) { inventoryLevel(id: $level) { product { title image { url } } } }',
    scope: 'products_read',
    needs: ['inventory_read', 'products_read'],
    path: ['inventoryLevel', 'product', 'image'],
  },
  {
    name: 'Product.images',
    document: 'query($level: ID!) { inventoryLevel(id: $level) { product { title images { nodes { url } } } } }',
    scope: 'products_read',
    needs: ['inventory_read', 'products_read'],
    path: ['inventoryLevel', 'product', 'images'],
  },
  {
    name: 'Product.productFamily',
    document: 'query($level: ID!) { inventoryLevel(id: $level) { product { title productFamily { title } } } }',
    scope: 'products_read',
    needs: ['inventory_read', 'products_read'],
    path: ['inventoryLevel', 'product', 'productFamily'],
  },
  {
    name: 'Product.inventoryLevel',
    document: 'query($product: ID!, $location: ID!) { product(id: $product) { inventoryLevel(locationId: $location) { available } } }',
    scope: 'inventory_read',
    needs: ['products_read', 'inventory_read'],
    path: ['product', 'inventoryLevel'],
  },
  {
    name: 'Product.inventoryLevels',
    document: 'query($product: ID!) { product(id: $product) { title inventoryLevels { nodes { available } } } }',
    scope: 'inventory_read',
    needs: ['products_read', 'inventory_read'],
    path: ['product', 'inventoryLevels'],
  },
  {
    name: 'LocationInventoryLevel.location',
    document: 'query($level: ID!) { inventoryLevel(id: $level) { available location { name } } }',
    scope: 'locations_read',
    needs: ['inventory_read', 'locations_read'],
    path: ['inventoryLevel', 'location'],
  },
  {
    name: 'LocationInventoryLevel.inventoryProduct',
    document: 'query($location: ID!) { location(id: $location) { inventoryLevels { nodes { inventoryProduct { sku } } } } }',
    scope: 'inventory_read',
    needs: ['locations_read', 'inventory_read'],
    path: ['location', 'inventoryLevels'],
  },
  {
    name: 'Location.inventoryLevels',
    document: 'query($location: ID!) { location(id: $location) { name inventoryLevels { nodes { available } } } }',
    scope: 'inventory_read',
    needs: ['locations_read', 'inventory_read'],
    path: ['location', 'inventoryLevels'],
  },
];

const NODES: [string, string, Scope][] = [
  ['Product', 'product', 'products_read'],
  ['ProductFamily', 'family', 'products_read'],
  ['ProductImage', 'image', 'products_read'],
  ['Attribute', 'attribute', 'products_read'],
  ['Location', 'location', 'locations_read'],
  ['LocationInventoryLevel', 'level', 'inventory_read'],
  ['InboundShipment', 'shipment', 'inventory_read'],
  ['InboundShipmentItem', 'item', 'inventory_read'],
  ['PurchaseOrder', 'po', 'inventory_read'],
  ['PurchaseOrderItem', 'poItem', 'inventory_read'],
];

for (const [type, key, scope] of NODES) {
  CASES.push({ name: `node(id:) of a ${type}`, document: `query($${key}: ID!) { node(id: $${key}) { id __typename } }`, scope, needs: [scope], path: ['node'] });
}

const MUTATIONS: [string, string, Scope][] = [
  ['productCreate', 'mutation { productCreate(input: { title: "" }) { userErrors { code } } }', 'products_write'],
  ['productUpdate', 'mutation { productUpdate(id: "prd_nope", input: {}) { userErrors { code } } }', 'products_write'],
  ['productFamilyCreate', 'mutation { productFamilyCreate(input: {}) { userErrors { code } } }', 'products_write'],
  ['productFamilyUpdate', 'mutation { productFamilyUpdate(id: "pfm_nope", input: {}) { userErrors { code } } }', 'products_write'],
  ['attributeCreate', 'mutation { attributeCreate(input: { name: "", displayName: "", type: NUMBER }) { userErrors { code } } }', 'products_write'],
  ['attributeUpdate', 'mutation { attributeUpdate(id: "atr_nope", input: {}) { userErrors { code } } }', 'products_write'],
  ['productImageCreate', 'mutation { productImageCreate(productId: "prd_nope", input: { url: "https://x.example.com/a.jpg" }) { userErrors { code } } }', 'products_write'],
  ['productImageUpdate', 'mutation { productImageUpdate(id: "img_nope", input: {}) { userErrors { code } } }', 'products_write'],
  ['productImageDelete', 'mutation { productImageDelete(id: "img_nope") { userErrors { code } } }', 'products_write'],
  ['productFamilyImageCreate', 'mutation { productFamilyImageCreate(productFamilyId: "pfm_nope", input: { url: "https://x.example.com/a.jpg" }) { userErrors { code } } }', 'products_write'],
  ['productFamilyImageUpdate', 'mutation { productFamilyImageUpdate(id: "img_nope", input: {}) { userErrors { code } } }', 'products_write'],
  ['productFamilyImageDelete', 'mutation { productFamilyImageDelete(id: "img_nope") { userErrors { code } } }', 'products_write'],
  ['locationCreate', 'mutation { locationCreate(input: {}) { userErrors { code } } }', 'locations_write'],
  ['locationUpdate', 'mutation { locationUpdate(id: "loc_nope", input: {}) { userErrors { code } } }', 'locations_write'],
  ['inventoryAdjust', 'mutation { inventoryAdjust(input: { inventoryLevelId: "li_nope", quantityDelta: 1, reason: "x" }) { userErrors { code } } }', 'inventory_write'],
  ['purchaseOrderCreate', 'mutation { purchaseOrderCreate(input: { name: "PO-X", items: [] }) { userErrors { code } } }', 'inventory_write'],
  ['inboundShipmentCreate', 'mutation { inboundShipmentCreate(input: { locationId: "loc_nope", items: [] }) { userErrors { code } } }', 'inventory_write'],
  ['inboundShipmentMarkInTransit', 'mutation { inboundShipmentMarkInTransit(id: "inb_nope") { userErrors { code } } }', 'inventory_write'],
  ['inboundShipmentReceive', 'mutation { inboundShipmentReceive(id: "inb_nope", input: { items: [] }) { userErrors { code } } }', 'inventory_write'],
  ['inboundShipmentCancel', 'mutation { inboundShipmentCancel(id: "inb_nope") { userErrors { code } } }', 'inventory_write'],
];

for (const [name, document, scope] of MUTATIONS) {
  CASES.push({ name: `mutation ${name}`, document, scope, needs: [scope], path: [name] });
}

function variablesFor(document: string): Record<string, string> {
  return Object.fromEntries(Object.entries(ids).filter(([name]) => new RegExp(`\\$${name}\\b`).test(document)));
}

describe.each(CASES)('$name', ({ document, scope, needs, path }) => {
  it(`is FORBIDDEN without ${scope}`, async () => {
    const secret = await clientWith(SCOPES.filter((s) => s !== scope));
    const result = await graphql(server, secret, document, variablesFor(document));
    expect(result.status).toBe(200);
    expect(errorCodes(result)).toContain('FORBIDDEN');
    expect(result.errors!.map((e) => (e as { path?: unknown }).path)).toContainEqual(path);
  });

  it(`is readable with only ${needs.join(' and ')}`, async () => {
    const secret = await clientWith(needs);
    const result = await graphql(server, secret, document, variablesFor(document));
    expect(result.errors).toBeUndefined();
    expect(JSON.stringify(result.data)).not.toContain(':null');
  });
});

it('answers node(id:) with a scope the caller lacks as FORBIDDEN even among readable nodes', async () => {
  const secret = await clientWith(['inventory_read']);
  const result = await graphql(server, secret, 'query($level: ID!, $product: ID!) { nodes(ids: [$level, $product]) { id } }', { level: ids.level, product: ids.product });
  expect(errorCodes(result)).toEqual(['FORBIDDEN']);
});
