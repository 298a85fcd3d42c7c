// Connection rules (docs/interface-rules.md, "Lists and pages") on every paginated field of the
// inventory graph, root and nested: default 25, max 100, first/after vs last/before,
// BAD_USER_INPUT otherwise; the sort keys of inboundShipments (newest first, reverse,
// nulls last, ties by id); pages walked forwards and backwards giving the same set in
// reverse; cursors that are opaque, stable under inserts and refused when altered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { errorCodes, query } from './fixtures.ts';

let server: TestServer;
let store: TestStore;
const ids: Record<string, string> = {};
const SHIPMENTS = 30;
const BASE = Date.parse('2026-06-01T00:00:00.000Z');

interface ShipmentRow {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  estimatedArrivalDate: Date | null;
}
const shipments: ShipmentRow[] = [];

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  const { prisma } = server.db;
  const storeId = store.storeId;
  const locationId = newId('location');
  await prisma.location.create({ data: { id: locationId, storeId, name: 'Warehouse' } });
  const products = Array.from({ length: SHIPMENTS }, (_, i) => ({ id: newId('product'), storeId, title: `P${i}`, familyId: null as string | null }));
  const familyId = newId('productFamily');
  await prisma.productFamily.create({ data: { id: familyId, storeId, title: 'Family' } });
  products.forEach((p) => (p.familyId = familyId));
  await prisma.product.createMany({ data: products });
  await prisma.productImage.createMany({ data: products.slice(0, 3).map((p, i) => ({ id: newId('productImage'), productId: products[0].id, url: `https://img.example.com/${i}.jpg`, position: i })) });
  await prisma.productFamilyImage.create({ data: { id: newId('productImage'), familyId, url: 'https://img.example.com/f.jpg', position: 0 } });
  await prisma.inventoryLevel.createMany({ data: products.map((p) => ({ id: newId('inventoryLevel'), storeId, productId: p.id, locationId, quantity: 1 })) });
  await prisma.attribute.create({ data: { id: newId('attribute'), storeId, name: 'care', displayName: 'Care', type: 'SHORT_TEXT' } });
  const purchaseOrderId = newId('purchaseOrder');
  await prisma.purchaseOrder.create({
    data: { id: purchaseOrderId, storeId, name: 'PO-1', items: { create: products.map((p) => ({ id: newId('purchaseOrderItem'), productId: p.id, quantity: 2 })) } },
  });
  for (let i = 0; i < SHIPMENTS; i++) {
    // Pairs share a createdAt (ties go by id); every fourth has no arrival date; dates repeat.
    const createdAt = new Date(BASE + Math.floor(i / 2) * 60_000);
    const row: ShipmentRow = {
      id: newId('inboundShipment'),
      createdAt,
      updatedAt: new Date(BASE + ((i * 7) % SHIPMENTS) * 1000),
      estimatedArrivalDate: i % 4 === 0 ? null : new Date(BASE + (i % 5) * 86_400_000),
    };
    shipments.push(row);
    await prisma.inboundShipment.create({
      data: {
        ...row,
        storeId,
        locationId,
        items: i === 0 ? { create: products.map((p) => ({ id: newId('inboundShipmentItem'), productId: p.id, quantity: 1 })) } : undefined,
        purchaseOrders: i === 0 ? { create: [{ purchaseOrderId }] } : undefined,
      },
    });
  }
  Object.assign(ids, { locationId, familyId, purchaseOrderId, productId: products[0].id, shipmentId: shipments[0].id });
});
afterAll(async () => server?.close());

const RULES: [string, string][] = [
  ['first over 100', 'first: 101'],
  ['last over 100', 'last: 101'],
  ['negative first', 'first: -1'],
  ['negative last', 'last: -1'],
  ['first with last', 'first: 1, last: 1'],
  ['first with before', 'first: 1, before: "x"'],
  ['last with after', 'last: 1, after: "x"'],
];

/** Every paginated field, as a document with ARGS where its connection arguments go. */
const FIELDS: [string, string][] = [
  ['inboundShipments', '{ inboundShipments(ARGS) { nodes { id } } }'],
  ['purchaseOrders', '{ purchaseOrders(ARGS) { nodes { id } } }'],
  ['products', '{ products(ARGS) { nodes { id } } }'],
  ['productFamilies', '{ productFamilies(ARGS) { nodes { id } } }'],
  ['attributes', '{ attributes(ARGS) { nodes { id } } }'],
  ['locations', '{ locations(ARGS) { nodes { id } } }'],
  ['inventoryLevels', '{ inventoryLevels(ARGS) { nodes { id } } }'],
  ['InboundShipment.items', 'query($shipmentId: ID!) { inboundShipment(id: $shipmentId) { items(ARGS) { nodes { id } } } }'],
  ['InboundShipment.purchaseOrders', 'query($shipmentId: ID!) { inboundShipment(id: $shipmentId) { purchaseOrders(ARGS) { nodes { id } } } }'],
  ['PurchaseOrder.items', 'query($purchaseOrderId: ID!) { purchaseOrder(id: $purchaseOrderId) { items(ARGS) { nodes { id } } } }'],
  ['Product.images', 'query($productId: ID!) { product(id: $productId) { images(ARGS) { nodes { id } } } }'],
  ['Product.inventoryLevels', 'query($productId: ID!) { product(id: $productId) { inventoryLevels(ARGS) { nodes { id } } } }'],
  ['ProductFamily.images', 'query($familyId: ID!) { productFamily(id: $familyId) { images(ARGS) { nodes { id } } } }'],
  ['ProductFamily.products', 'query($familyId: ID!) { productFamily(id: $familyId) { products(ARGS) { nodes { id } } } }'],
  ['Location.inventoryLevels', 'query($locationId: ID!) { location(id: $locationId) { inventoryLevels(ARGS) { nodes { id } } } }'],
  ['a connection below node(id:)', 'query($shipmentId: ID!) { node(id: $shipmentId) { ... on InboundShipment { items(ARGS) { nodes { id } } } } }'],
  ['a connection below a list', '{ inboundShipments(first: 2) { nodes { items(ARGS) { nodes { id } } } } }'],
];

function variablesFor(document: string): Record<string, string> {
  return Object.fromEntries(Object.entries(ids).filter(([name]) => document.includes(`$${name}`)));
}

describe.each(FIELDS)('%s', (_field, template) => {
  it.each(RULES)('refuses %s with BAD_USER_INPUT', async (_rule, args) => {
    const document = template.replace('ARGS', args);
    const result = await graphql(server, store.secret, document, variablesFor(document));
    expect(result.status).toBe(200);
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
  });

  it('accepts first: 100 and last: 100', async () => {
    for (const args of ['first: 100', 'last: 100']) {
      const document = template.replace('ARGS', args);
      await query(server, store.secret, document, variablesFor(document));
    }
  });
});

describe('page sizes', () => {
  it('defaults to 25 on a root and on a nested connection', async () => {
    const data = await query<{ inboundShipments: { nodes: unknown[]; pageInfo: { hasNextPage: boolean } }; inboundShipment: { items: { nodes: unknown[]; pageInfo: { hasNextPage: boolean } } } }>(
      server,
      store.secret,
      `query($id: ID!) { inboundShipments { nodes { id } pageInfo { hasNextPage } } inboundShipment(id: $id) { items { nodes { id } pageInfo { hasNextPage } } } }`,
      { id: ids.shipmentId },
    );
    expect(data.inboundShipments.nodes).toHaveLength(25);
    expect(data.inboundShipments.pageInfo.hasNextPage).toBe(true);
    expect(data.inboundShipment.items.nodes).toHaveLength(25);
    expect(data.inboundShipment.items.pageInfo.hasNextPage).toBe(true);
  });

  it('refuses a bad nested argument in a mutation payload before writing anything', async () => {
    const result = await graphql(server, store.secret, `mutation($id: ID!) { inboundShipmentCancel(id: $id) { inboundShipment { items(first: -1) { nodes { id } } } userErrors { code } } }`, {
      id: ids.shipmentId,
    });
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
    const shipment = await server.db.prisma.inboundShipment.findUniqueOrThrow({ where: { id: ids.shipmentId } });
    expect(shipment.status).toBe('PENDING');
  });

  it('refuses a malformed cursor of a shipment\'s purchase orders (built with the connection helpers) in a mutation payload before writing', async () => {
    const result = await graphql(
      server,
      store.secret,
      `mutation($id: ID!) { inboundShipmentCancel(id: $id) { inboundShipment { purchaseOrders(after: "null") { nodes { id } } } userErrors { code } } }`,
      { id: ids.shipmentId },
    );
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
    const shipment = await server.db.prisma.inboundShipment.findUniqueOrThrow({ where: { id: ids.shipmentId } });
    expect(shipment.status).toBe('PENDING');
  });
});

interface Page {
  edges: { cursor: string; node: { id: string } }[];
  nodes: { id: string }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

const PAGE = 'edges { cursor node { id } } nodes { id } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

async function walk(fetchPage: (args: Record<string, unknown>) => Promise<Page>, direction: 'forward' | 'backward', size: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 50; guard++) {
    const page: Page = await fetchPage(direction === 'forward' ? { first: size, after: cursor } : { last: size, before: cursor });
    expect(page.nodes.map((n) => n.id)).toEqual(page.edges.map((e) => e.node.id));
    expect(page.pageInfo.startCursor).toBe(page.edges[0]?.cursor ?? null);
    expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor ?? null);
    if (direction === 'forward') {
      seen.push(...page.nodes.map((n) => n.id));
      expect(page.pageInfo.hasPreviousPage).toBe(cursor !== null);
      if (!page.pageInfo.hasNextPage) return seen;
      cursor = page.pageInfo.endCursor;
    } else {
      seen.unshift(...page.nodes.map((n) => n.id));
      expect(page.pageInfo.hasNextPage).toBe(cursor !== null);
      if (!page.pageInfo.hasPreviousPage) return seen;
      cursor = page.pageInfo.startCursor;
    }
  }
  throw new Error('pagination did not end');
}

const SORTS: [string, (s: ShipmentRow) => number | null][] = [
  ['CREATED_AT', (s) => s.createdAt.getTime()],
  ['UPDATED_AT', (s) => s.updatedAt.getTime()],
  ['ESTIMATED_ARRIVAL_DATE', (s) => s.estimatedArrivalDate?.getTime() ?? null],
];

/** Largest first, `reverse` flips, nulls last either way, ties by id in the same direction. */
function expectedOrder(key: (s: ShipmentRow) => number | null, reverse: boolean): string[] {
  const sign = reverse ? 1 : -1;
  return [...shipments]
    .sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      if (x === null || y === null) return x === y ? sign * a.id.localeCompare(b.id) : x === null ? 1 : -1;
      return x !== y ? sign * (x - y) : sign * a.id.localeCompare(b.id);
    })
    .map((s) => s.id);
}

describe('inboundShipments sort keys and pagination', () => {
  describe.each(SORTS)('orderBy %s', (orderBy, key) => {
    it.each([false, true])('reverse: %s walks forwards and backwards over the same set in reverse', async (reverse) => {
      const fetchPage = (args: Record<string, unknown>) =>
        query<{ inboundShipments: Page }>(
          server,
          store.secret,
          `query($first: Int, $after: String, $last: Int, $before: String, $orderBy: InboundShipmentSortKey, $reverse: Boolean) {
            inboundShipments(first: $first, after: $after, last: $last, before: $before, orderBy: $orderBy, reverse: $reverse) { ${PAGE} } }`,
          { ...args, orderBy, reverse },
        ).then((d) => d.inboundShipments);
      const forward = await walk(fetchPage, 'forward', 7);
      const backward = await walk(fetchPage, 'backward', 7);
      expect(forward).toEqual(expectedOrder(key, reverse));
      expect(backward).toEqual(forward);
      expect(new Set(forward).size).toBe(SHIPMENTS);
    });
  });

  it('keeps a page boundary where it was when shipments are added', async () => {
    const fetchPage = (after: string | null) =>
      query<{ inboundShipments: Page }>(server, store.secret, `query($after: String) { inboundShipments(first: 5, after: $after) { ${PAGE} } }`, { after }).then(
        (d) => d.inboundShipments,
      );
    const first = await fetchPage(null);
    const second = await fetchPage(first.pageInfo.endCursor);
    await server.db.prisma.inboundShipment.create({ data: { id: newId('inboundShipment'), storeId: store.storeId, locationId: ids.locationId, createdAt: new Date(BASE + 3_600_000) } });
    const again = await fetchPage(first.pageInfo.endCursor);
    expect(again.nodes).toEqual(second.nodes);
    expect(first.edges[0].cursor).not.toContain(first.edges[0].node.id);
  });

  it('refuses an altered cursor and a cursor of another list', async () => {
    const page = await query<{ inboundShipments: Page; products: Page }>(server, store.secret, `{ inboundShipments(first: 1) { ${PAGE} } products(first: 1) { ${PAGE} } }`);
    const cursor = page.inboundShipments.pageInfo.endCursor!;
    const altered = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
    for (const after of [altered, page.products.pageInfo.endCursor]) {
      const result = await graphql(server, store.secret, `query($after: String) { inboundShipments(after: $after) { nodes { id } } }`, { after });
      expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
    }
    const byCreation = await graphql(server, store.secret, `query($after: String) { inboundShipments(after: $after, orderBy: UPDATED_AT) { nodes { id } } }`, { after: cursor });
    expect(errorCodes(byCreation)).toEqual(['BAD_USER_INPUT']);
  });
});

describe('nested pagination', () => {
  it('walks the items of a shipment forwards and backwards over the same set in reverse', async () => {
    const fetchPage = (args: Record<string, unknown>) =>
      query<{ inboundShipment: { items: Page } }>(
        server,
        store.secret,
        `query($id: ID!, $first: Int, $after: String, $last: Int, $before: String) {
          inboundShipment(id: $id) { items(first: $first, after: $after, last: $last, before: $before) { ${PAGE} } } }`,
        { id: ids.shipmentId, ...args },
      ).then((d) => d.inboundShipment.items);
    const forward = await walk(fetchPage, 'forward', 7);
    const backward = await walk(fetchPage, 'backward', 7);
    expect(forward).toHaveLength(SHIPMENTS);
    expect(new Set(forward).size).toBe(SHIPMENTS);
    expect(backward).toEqual(forward);
  });

  it('walks a purchase order’s items and a location’s levels the same way', async () => {
    const purchaseOrderItems = (args: Record<string, unknown>) =>
      query<{ purchaseOrder: { items: Page } }>(
        server,
        store.secret,
        `query($id: ID!, $first: Int, $after: String, $last: Int, $before: String) { purchaseOrder(id: $id) { items(first: $first, after: $after, last: $last, before: $before) { ${PAGE} } } }`,
        { id: ids.purchaseOrderId, ...args },
      ).then((d) => d.purchaseOrder.items);
    const levels = (args: Record<string, unknown>) =>
      query<{ location: { inventoryLevels: Page } }>(
        server,
        store.secret,
        `query($id: ID!, $first: Int, $after: String, $last: Int, $before: String) { location(id: $id) { inventoryLevels(first: $first, after: $after, last: $last, before: $before) { ${PAGE} } } }`,
        { id: ids.locationId, ...args },
      ).then((d) => d.location.inventoryLevels);
    for (const fetchPage of [purchaseOrderItems, levels]) {
      const forward = await walk(fetchPage, 'forward', 9);
      expect(forward).toHaveLength(SHIPMENTS);
      expect(await walk(fetchPage, 'backward', 9)).toEqual(forward);
    }
  });

  it('refuses a malformed nested cursor', async () => {
    for (const after of ['not a cursor', 'R1BDOlM6bm9wZQ']) {
      const result = await graphql(server, store.secret, `query($id: ID!, $after: String) { inboundShipment(id: $id) { items(after: $after) { nodes { id } } } }`, {
        id: ids.shipmentId,
        after,
      });
      expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
    }
  });
});
