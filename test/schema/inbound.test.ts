// Inbound shipments and purchase orders through v3: every field, the shipment
// state machine (create, mark in transit, receive, cancel) with its effects on
// stock, purchase order items and statuses, events, and every refusal (bad ids,
// negative counts, receiving more than shipped, receiving a cancelled shipment).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowCounts } from '../support/counts.ts';
import { createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { query, seedCatalog, type Catalog } from './fixtures.ts';

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

interface UserError {
  code: string;
  field: string[] | null;
  message: string;
}

interface PurchaseOrder {
  id: string;
  name: string;
  status: string;
  items: { nodes: { id: string; quantity: number; receivedQuantity: number; damagedQuantity: number; product: { id: string } }[] };
}

interface Shipment {
  id: string;
  status: string;
  skuCount: number;
  itemCount: number;
  receivedCount: number;
  actualArrivalDate: string | null;
  items: { nodes: { id: string; quantity: number; receivedQuantity: number; damagedQuantity: number; product: { id: string }; purchaseOrderItem: { id: string } | null }[] };
  purchaseOrders: { nodes: { id: string; name: string }[] };
}

const PO_FIELDS = `id name vendor status expectedAt currency createdAt updatedAt
  items(first: 100) { nodes { id quantity receivedQuantity damagedQuantity unitCost { amount currency } totalTax { amount currency } product { id } createdAt updatedAt } }`;
const SHIPMENT_FIELDS = `id status carrier shipmentId trackingNumber trackingUrl freightType paymentTerms freightCost { amount currency } dutyCost { amount currency }
  estimatedArrivalDate actualArrivalDate location { id name } skuCount itemCount receivedCount createdAt updatedAt
  items(first: 100) { nodes { id quantity receivedQuantity damagedQuantity product { id } purchaseOrderItem { id } createdAt updatedAt } }
  purchaseOrders(first: 10) { nodes { id name } }`;

async function createPurchaseOrder(input: Record<string, unknown>, secret = store.secret) {
  const data = await query<{ purchaseOrderCreate: { purchaseOrder: PurchaseOrder | null; userErrors: UserError[] } }>(
    server,
    secret,
    `mutation($input: PurchaseOrderCreateInput!) { purchaseOrderCreate(input: $input) { purchaseOrder { ${PO_FIELDS} } userErrors { code field message } } }`,
    { input },
  );
  return data.purchaseOrderCreate;
}

async function createShipment(input: Record<string, unknown>, secret = store.secret) {
  const data = await query<{ inboundShipmentCreate: { inboundShipment: Shipment | null; userErrors: UserError[] } }>(
    server,
    secret,
    `mutation($input: InboundShipmentCreateInput!) { inboundShipmentCreate(input: $input) { inboundShipment { ${SHIPMENT_FIELDS} } userErrors { code field message } } }`,
    { input },
  );
  return data.inboundShipmentCreate;
}

async function shipmentOperation(operation: 'inboundShipmentMarkInTransit' | 'inboundShipmentCancel', id: string, secret = store.secret) {
  const data = await query<Record<string, { inboundShipment: Shipment | null; userErrors: UserError[] }>>(
    server,
    secret,
    `mutation($id: ID!) { ${operation}(id: $id) { inboundShipment { ${SHIPMENT_FIELDS} } userErrors { code field message } } }`,
    { id },
  );
  return data[operation];
}

async function receive(id: string, input: Record<string, unknown>, secret = store.secret) {
  const data = await query<{ inboundShipmentReceive: { inboundShipment: Shipment | null; userErrors: UserError[] } }>(
    server,
    secret,
    `mutation($id: ID!, $input: InboundShipmentReceiveInput!) { inboundShipmentReceive(id: $id, input: $input) { inboundShipment { ${SHIPMENT_FIELDS} } userErrors { code field message } } }`,
    { id, input },
  );
  return data.inboundShipmentReceive;
}

async function levelAt(productId: string, locationId: string) {
  return server.db.prisma.inventoryLevel.findUnique({ where: { productId_locationId: { productId, locationId } } });
}

/** An ORDERED purchase order for the first two variants and a shipment of all of it, in transit. */
async function shipmentInTransit(name: string) {
  const po = await createPurchaseOrder({
    name,
    status: 'ORDERED',
    items: [
      { productId: catalog.productIds[0], quantity: 10, unitCost: '4.5' },
      { productId: catalog.productIds[1], quantity: 5 },
    ],
  });
  const a = po.purchaseOrder!.items.nodes.find((i) => i.product.id === catalog.productIds[0])!;
  const b = po.purchaseOrder!.items.nodes.find((i) => i.product.id === catalog.productIds[1])!;
  const shipment = await createShipment({
    locationId: catalog.storeRoomId,
    items: [
      { purchaseOrderItemId: a.id, quantity: 10 },
      { purchaseOrderItemId: b.id, quantity: 5 },
    ],
  });
  const moved = await shipmentOperation('inboundShipmentMarkInTransit', shipment.inboundShipment!.id);
  return { po: po.purchaseOrder!, shipment: moved.inboundShipment! };
}

describe('purchase orders', () => {
  it('creates one with items and exposes every field', async () => {
    const created = await createPurchaseOrder({
      name: 'PO-100',
      vendor: 'Knit Co',
      expectedAt: '2026-12-01T00:00:00.000Z',
      currency: 'EUR',
      items: [{ productId: catalog.productIds[0], quantity: 3, unitCost: '2.5', totalTax: '1.5' }],
    });
    expect(created.userErrors).toEqual([]);
    expect(created.purchaseOrder).toMatchObject({
      name: 'PO-100',
      vendor: 'Knit Co',
      status: 'DRAFT',
      expectedAt: '2026-12-01T00:00:00.000Z',
      currency: 'EUR',
      items: {
        nodes: [{ quantity: 3, receivedQuantity: 0, damagedQuantity: 0, unitCost: { amount: '2.50', currency: 'EUR' }, totalTax: { amount: '1.50', currency: 'EUR' }, product: { id: catalog.productIds[0] } }],
      },
    });
    const read = await query<{ purchaseOrder: { id: string }; node: { name: string } }>(
      server,
      store.secret,
      `query($id: ID!, $item: ID!) { purchaseOrder(id: $id) { id } node(id: $item) { ... on PurchaseOrderItem { quantity purchaseOrder { name } } } }`,
      { id: created.purchaseOrder!.id, item: created.purchaseOrder!.items.nodes[0].id },
    );
    expect(read).toEqual({ purchaseOrder: { id: created.purchaseOrder!.id }, node: { quantity: 3, purchaseOrder: { name: 'PO-100' } } });
  });

  it.each([
    ['a taken name', { name: 'PO-100' }, 'CONFLICT', ['input', 'name']],
    ['no items', { items: [] }, 'INVALID', ['input', 'items']],
    ['an unknown product', { items: [{ productId: 'prd_nope', quantity: 1 }] }, 'INVALID', ['input', 'items', '0', 'productId']],
    ['a zero quantity', { items: [{ productId: 'P0', quantity: 0 }] }, 'INVALID', ['input', 'items', '0', 'quantity']],
    ['a negative cost', { items: [{ productId: 'P0', quantity: 1, unitCost: '-0.01' }] }, 'INVALID', ['input', 'items', '0', 'unitCost']],
    ['a received status', { status: 'RECEIVED' }, 'INVALID', ['input', 'status']],
  ])('refuses %s and writes nothing', async (_what, change, code, field) => {
    const input: Record<string, unknown> = { name: 'PO-NEW', items: [{ productId: catalog.productIds[0], quantity: 1 }], ...change };
    input.items = (input.items as { productId: string }[]).map((i) => ({ ...i, productId: i.productId === 'P0' ? catalog.productIds[0] : i.productId }));
    const before = await rowCounts(server.db);
    const result = await createPurchaseOrder(input);
    expect(result.purchaseOrder).toBeNull();
    expect(result.userErrors).toContainEqual(expect.objectContaining({ code, field }));
    expect(await rowCounts(server.db)).toEqual(before);
  });

  it('lists by status and is invisible to another store', async () => {
    const data = await query<{ purchaseOrders: { nodes: { name: string }[] } }>(server, store.secret, `{ purchaseOrders(status: DRAFT, first: 100) { nodes { name status } } }`);
    expect(data.purchaseOrders.nodes).toContainEqual({ name: 'PO-100', status: 'DRAFT' });
    expect(data.purchaseOrders.nodes.every((p) => (p as { status?: string }).status === 'DRAFT')).toBe(true);
    const theirs = await query<{ purchaseOrders: { nodes: unknown[] } }>(server, other.secret, `{ purchaseOrders { nodes { id } } }`);
    expect(theirs.purchaseOrders.nodes).toEqual([]);
  });
});

describe('creating an inbound shipment', () => {
  it('creates a PENDING shipment tied to purchase order items and emits inbound_shipment.updated', async () => {
    const po = await createPurchaseOrder({ name: 'PO-200', status: 'ORDERED', items: [{ productId: catalog.productIds[2], quantity: 8 }] });
    const created = await createShipment({
      locationId: catalog.warehouseId,
      carrier: 'Maersk',
      shipmentId: 'MSK-1',
      trackingNumber: '1Z999',
      trackingUrl: 'https://track.example.com/1Z999',
      freightType: 'OCEAN',
      paymentTerms: 'NET30',
      currency: 'EUR',
      freightCost: '350',
      dutyCost: 120.4,
      estimatedArrivalDate: '2026-12-24',
      items: [
        { purchaseOrderItemId: po.purchaseOrder!.items.nodes[0].id, quantity: 8 },
        { productId: catalog.productIds[3], quantity: 4 },
      ],
    });
    expect(created.userErrors).toEqual([]);
    expect(created.inboundShipment).toMatchObject({
      status: 'PENDING',
      carrier: 'Maersk',
      shipmentId: 'MSK-1',
      trackingNumber: '1Z999',
      trackingUrl: 'https://track.example.com/1Z999',
      freightType: 'OCEAN',
      paymentTerms: 'NET30',
      freightCost: { amount: '350.00', currency: 'EUR' },
      dutyCost: { amount: '120.40', currency: 'EUR' },
      estimatedArrivalDate: '2026-12-24',
      actualArrivalDate: null,
      location: { id: catalog.warehouseId, name: 'Warehouse' },
      skuCount: 2,
      itemCount: 12,
      receivedCount: 0,
      purchaseOrders: { nodes: [{ id: po.purchaseOrder!.id, name: 'PO-200' }] },
    });
    const items = created.inboundShipment!.items.nodes;
    expect(items.map((i) => [i.product.id, i.quantity, i.purchaseOrderItem?.id ?? null]).sort()).toEqual(
      [
        [catalog.productIds[2], 8, po.purchaseOrder!.items.nodes[0].id],
        [catalog.productIds[3], 4, null],
      ].sort(),
    );
    const events = await server.db.prisma.event.findMany({ where: { subjectId: created.inboundShipment!.id } });
    expect(events).toEqual([expect.objectContaining({ topic: 'inbound_shipment.updated', storeId: store.storeId, data: expect.objectContaining({ status: 'PENDING', operation: 'create' }) })]);
  });

  it.each([
    ['an unknown location', { locationId: 'loc_nope' }, ['input', 'locationId']],
    ['no items', { items: [] }, ['input', 'items']],
    ['a zero quantity', { items: [{ productId: 'P0', quantity: 0 }] }, ['input', 'items', '0', 'quantity']],
    ['a negative quantity', { items: [{ productId: 'P0', quantity: -3 }] }, ['input', 'items', '0', 'quantity']],
    ['an unknown product', { items: [{ productId: 'prd_nope', quantity: 1 }] }, ['input', 'items', '0', 'productId']],
    ['an unknown purchase order item', { items: [{ purchaseOrderItemId: 'poi_nope', quantity: 1 }] }, ['input', 'items', '0', 'purchaseOrderItemId']],
    ['an item without product', { items: [{ quantity: 1 }] }, ['input', 'items', '0', 'productId']],
    ['the same product twice', { items: [{ productId: 'P0', quantity: 1 }, { productId: 'P0', quantity: 2 }] }, ['input', 'items', '1']],
    ['a negative freight cost', { freightCost: '-5' }, ['input', 'freightCost']],
    ['a tracking URL that is not http', { trackingUrl: 'track me' }, ['input', 'trackingUrl']],
    ['more than the purchase order item has left to ship', { items: [{ purchaseOrderItemId: 'PO_ITEM', quantity: 9 }] }, ['input', 'items', '0', 'quantity']],
  ])('refuses %s and writes nothing', async (_what, change, field) => {
    const input: Record<string, unknown> = { locationId: catalog.warehouseId, items: [{ productId: catalog.productIds[0], quantity: 1 }], ...change };
    const poItem = await server.db.prisma.purchaseOrderItem.findFirstOrThrow({ where: { purchaseOrder: { name: 'PO-200' } } });
    input.items = (input.items as { productId?: string; purchaseOrderItemId?: string }[]).map((i) =>
      i.productId === 'P0' ? { ...i, productId: catalog.productIds[0] } : i.purchaseOrderItemId === 'PO_ITEM' ? { ...i, purchaseOrderItemId: poItem.id } : i,
    );
    const before = await rowCounts(server.db);
    const result = await createShipment(input);
    expect(result.inboundShipment).toBeNull();
    expect(result.userErrors).toContainEqual(expect.objectContaining({ code: 'INVALID', field }));
    expect(await rowCounts(server.db)).toEqual(before);
  });

  it('refuses a purchase order item for another product, of a cancelled order, or of another store', async () => {
    const po = await createPurchaseOrder({ name: 'PO-300', items: [{ productId: catalog.productIds[0], quantity: 1 }] });
    const itemId = po.purchaseOrder!.items.nodes[0].id;
    const mismatch = await createShipment({ locationId: catalog.warehouseId, items: [{ productId: catalog.productIds[1], purchaseOrderItemId: itemId, quantity: 1 }] });
    expect(mismatch.userErrors).toEqual([expect.objectContaining({ code: 'INVALID', field: ['input', 'items', '0', 'productId'] })]);
    await server.db.prisma.purchaseOrder.update({ where: { id: po.purchaseOrder!.id }, data: { status: 'CANCELLED' } });
    const cancelled = await createShipment({ locationId: catalog.warehouseId, items: [{ purchaseOrderItemId: itemId, quantity: 1 }] });
    expect(cancelled.userErrors).toEqual([expect.objectContaining({ code: 'INVALID', field: ['input', 'items', '0', 'purchaseOrderItemId'], message: expect.stringContaining('CANCELLED') })]);
    const otherCatalog = await seedCatalog(server.db, other.storeId);
    const foreign = await createShipment({ locationId: otherCatalog.warehouseId, items: [{ purchaseOrderItemId: itemId, quantity: 1 }] }, other.secret);
    expect(foreign.userErrors).toEqual([expect.objectContaining({ field: ['input', 'items', '0', 'purchaseOrderItemId'] })]);
  });
});

describe('the shipment state machine', () => {
  it('receives in two steps: stock, purchase order items and statuses follow, with events', async () => {
    const { po, shipment } = await shipmentInTransit('PO-400');
    expect(shipment.status).toBe('IN_TRANSIT');
    const [a, b] = shipment.items.nodes.sort((x, y) => y.quantity - x.quantity);
    const before = await levelAt(a.product.id, catalog.storeRoomId);
    expect(before).toBeNull();

    const partial = await receive(shipment.id, { items: [{ itemId: a.id, receivedQuantity: 6, damagedQuantity: 1 }], actualArrivalDate: '2026-11-20' });
    expect(partial.userErrors).toEqual([]);
    expect(partial.inboundShipment).toMatchObject({ status: 'PARTIALLY_RECEIVED', actualArrivalDate: '2026-11-20', receivedCount: 6, itemCount: 15 });
    let level = await levelAt(a.product.id, catalog.storeRoomId);
    expect(level).toMatchObject({ quantity: 7, reserved: 1, committed: 0, storeId: store.storeId });
    let order = await query<{ purchaseOrder: PurchaseOrder }>(server, store.secret, `query($id: ID!) { purchaseOrder(id: $id) { ${PO_FIELDS} } }`, { id: po.id });
    expect(order.purchaseOrder.status).toBe('PARTIALLY_RECEIVED');
    expect(order.purchaseOrder.items.nodes.find((i) => i.product.id === a.product.id)).toMatchObject({ receivedQuantity: 6, damagedQuantity: 1 });

    const rest = await receive(shipment.id, {
      items: [
        { itemId: a.id, receivedQuantity: 3 },
        { itemId: b.id, receivedQuantity: 4, damagedQuantity: 1 },
      ],
    });
    expect(rest.userErrors).toEqual([]);
    expect(rest.inboundShipment).toMatchObject({ status: 'RECEIVED', actualArrivalDate: '2026-11-20', receivedCount: 13 });
    level = await levelAt(a.product.id, catalog.storeRoomId);
    expect(level).toMatchObject({ quantity: 10, reserved: 1 });
    expect(await levelAt(b.product.id, catalog.storeRoomId)).toMatchObject({ quantity: 5, reserved: 1 });
    order = await query<{ purchaseOrder: PurchaseOrder }>(server, store.secret, `query($id: ID!) { purchaseOrder(id: $id) { ${PO_FIELDS} } }`, { id: po.id });
    expect(order.purchaseOrder.status).toBe('RECEIVED');

    const shipmentEvents = await server.db.prisma.event.findMany({ where: { subjectId: shipment.id }, orderBy: { createdAt: 'asc' } });
    expect(shipmentEvents.map((e) => (e.data as { status: string }).status)).toEqual(['PENDING', 'IN_TRANSIT', 'PARTIALLY_RECEIVED', 'RECEIVED']);
    const levelEvents = await server.db.prisma.event.findMany({ where: { subjectId: level!.id, topic: 'inventory_level.updated' } });
    expect(levelEvents).toHaveLength(2);
    const ledger = await server.db.prisma.inventoryAdjustment.findMany({ where: { levelId: level!.id }, orderBy: { createdAt: 'asc' } });
    expect(ledger.map((l) => [l.reason, l.referenceId, l.quantityDelta, l.reservedDelta])).toEqual([
      ['inbound_shipment_received', shipment.id, 7, 1],
      ['inbound_shipment_received', shipment.id, 3, 0],
    ]);

    const again = await shipmentOperation('inboundShipmentCancel', shipment.id);
    expect(again.userErrors).toEqual([expect.objectContaining({ code: 'UNPROCESSABLE', field: ['id'] })]);
  });

  it('receives everything at once straight from IN_TRANSIT to RECEIVED', async () => {
    const { shipment } = await shipmentInTransit('PO-410');
    const done = await receive(shipment.id, { items: shipment.items.nodes.map((i) => ({ itemId: i.id, receivedQuantity: i.quantity })) });
    expect(done.inboundShipment!.status).toBe('RECEIVED');
    expect(done.inboundShipment!.actualArrivalDate).toBe(new Date().toISOString().slice(0, 10));
  });

  it.each([
    ['receiving more than shipped', (items: Shipment['items']['nodes']) => [{ itemId: items[0].id, receivedQuantity: items[0].quantity, damagedQuantity: 1 }], 'INVALID', ['input', 'items', '0']],
    ['a negative good count', (items: Shipment['items']['nodes']) => [{ itemId: items[0].id, receivedQuantity: -1, damagedQuantity: 2 }], 'INVALID', ['input', 'items', '0', 'receivedQuantity']],
    ['a negative damaged count', (items: Shipment['items']['nodes']) => [{ itemId: items[0].id, damagedQuantity: -1 }], 'INVALID', ['input', 'items', '0', 'damagedQuantity']],
    ['zero units', (items: Shipment['items']['nodes']) => [{ itemId: items[0].id }], 'INVALID', ['input', 'items', '0']],
    ['the same item twice', (items: Shipment['items']['nodes']) => [{ itemId: items[0].id, receivedQuantity: 1 }, { itemId: items[0].id, receivedQuantity: 1 }], 'INVALID', ['input', 'items', '1', 'itemId']],
    ['no items', () => [], 'INVALID', ['input', 'items']],
    ['an item of another shipment', () => [{ itemId: 'isp_nope', receivedQuantity: 1 }], 'NOT_FOUND', ['input', 'items', '0', 'itemId']],
  ])('refuses %s and writes nothing', async (_what, items, code, field) => {
    const { shipment } = await shipmentInTransit(`PO-5${Math.random().toString().slice(2, 8)}`);
    const before = await rowCounts(server.db);
    const result = await receive(shipment.id, { items: items(shipment.items.nodes) });
    expect(result.inboundShipment).toBeNull();
    expect(result.userErrors).toContainEqual(expect.objectContaining({ code, field }));
    expect(await rowCounts(server.db)).toEqual(before);
    const unchanged = await server.db.prisma.inboundShipmentItem.findMany({ where: { shipmentId: shipment.id } });
    expect(unchanged.every((i) => i.receivedQuantity === 0 && i.damagedQuantity === 0)).toBe(true);
  });

  it('refuses to receive a pending or a cancelled shipment, and to cancel twice', async () => {
    const pending = await createShipment({ locationId: catalog.warehouseId, items: [{ productId: catalog.productIds[0], quantity: 2 }] });
    const id = pending.inboundShipment!.id;
    const itemId = pending.inboundShipment!.items.nodes[0].id;
    const early = await receive(id, { items: [{ itemId, receivedQuantity: 1 }] });
    expect(early.userErrors).toEqual([expect.objectContaining({ code: 'UNPROCESSABLE', field: ['id'], message: expect.stringContaining('in transit') })]);
    const cancelled = await shipmentOperation('inboundShipmentCancel', id);
    expect(cancelled).toMatchObject({ inboundShipment: { status: 'CANCELLED' }, userErrors: [] });
    const before = await rowCounts(server.db);
    const late = await receive(id, { items: [{ itemId, receivedQuantity: 1 }] });
    expect(late.userErrors).toEqual([expect.objectContaining({ code: 'UNPROCESSABLE', field: ['id'], message: expect.stringContaining('CANCELLED') })]);
    expect((await shipmentOperation('inboundShipmentCancel', id)).userErrors).toEqual([expect.objectContaining({ code: 'UNPROCESSABLE' })]);
    expect((await shipmentOperation('inboundShipmentMarkInTransit', id)).userErrors).toEqual([expect.objectContaining({ code: 'UNPROCESSABLE' })]);
    expect(await rowCounts(server.db)).toEqual(before);
  });

  it('cancels from IN_TRANSIT, and refuses another store’s or an unknown shipment as NOT_FOUND', async () => {
    const { shipment } = await shipmentInTransit('PO-600');
    expect((await shipmentOperation('inboundShipmentCancel', shipment.id, other.secret)).userErrors).toEqual([expect.objectContaining({ code: 'NOT_FOUND', field: ['id'] })]);
    expect((await receive('inb_nope', { items: [] })).userErrors).toEqual([expect.objectContaining({ code: 'NOT_FOUND', field: ['id'] })]);
    expect((await shipmentOperation('inboundShipmentMarkInTransit', 'inb_nope')).userErrors).toEqual([expect.objectContaining({ code: 'NOT_FOUND' })]);
    const cancelled = await shipmentOperation('inboundShipmentCancel', shipment.id);
    expect(cancelled.inboundShipment!.status).toBe('CANCELLED');
  });
});

describe('reading shipments', () => {
  it('is found by id and node(id:), items too, and is invisible to another store', async () => {
    const { shipment } = await shipmentInTransit('PO-700');
    const data = await query<{ inboundShipment: { id: string }; node: { id: string }; item: { quantity: number } }>(
      server,
      store.secret,
      `query($id: ID!, $item: ID!) { inboundShipment(id: $id) { id } node(id: $id) { id } item: node(id: $item) { ... on InboundShipmentItem { quantity } } }`,
      { id: shipment.id, item: shipment.items.nodes[0].id },
    );
    expect(data).toEqual({ inboundShipment: { id: shipment.id }, node: { id: shipment.id }, item: { quantity: shipment.items.nodes[0].quantity } });
    const theirs = await query<Record<string, unknown>>(
      server,
      other.secret,
      `query($id: ID!) { inboundShipment(id: $id) { id } node(id: $id) { id } nodes(ids: [$id]) { id } }`,
      { id: shipment.id },
    );
    expect(theirs).toEqual({ inboundShipment: null, node: null, nodes: [null] });
  });

  it('filters by status, location and a createdAt window (min inclusive, max exclusive)', async () => {
    const list = (variables: Record<string, unknown>) =>
      query<{ inboundShipments: { nodes: { id: string; status: string; createdAt: string; location: { id: string } }[] } }>(
        server,
        store.secret,
        `query($status: InboundShipmentStatus, $loc: ID, $min: DateTime, $max: DateTime) {
          inboundShipments(first: 100, status: $status, locationId: $loc, createdAtMin: $min, createdAtMax: $max) { nodes { id status createdAt location { id } } } }`,
        variables,
      ).then((d) => d.inboundShipments.nodes);
    const all = await list({});
    expect(all.length).toBeGreaterThan(5);
    expect((await list({ status: 'CANCELLED' })).every((s) => s.status === 'CANCELLED')).toBe(true);
    expect((await list({ status: 'IN_TRANSIT' })).map((s) => s.id)).toEqual(all.filter((s) => s.status === 'IN_TRANSIT').map((s) => s.id));
    expect((await list({ loc: catalog.warehouseId })).every((s) => s.location.id === catalog.warehouseId)).toBe(true);
    const pivot = all[Math.floor(all.length / 2)];
    const from = await list({ min: pivot.createdAt });
    const until = await list({ max: pivot.createdAt });
    expect(from.map((s) => s.id)).toContain(pivot.id);
    expect(until.map((s) => s.id)).not.toContain(pivot.id);
    expect(from.length + until.length).toBe(all.length);
  });
});
