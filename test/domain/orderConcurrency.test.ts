// Orders sent at once (issue 46), through the REST door over real HTTP: one store's numbers
// stay gapless and increasing in commit order, orders of different stores number themselves
// apart, stock sharing levels is committed exactly (oversold units recorded, never lost, never
// refused), and a refused order, even one racing its duplicate, writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { rowCounts } from '../support/counts.ts';
import { call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;

beforeAll(async () => {
  // Deliveries are counted, never sent.
  server = await startTestServer({}, { WEBHOOK_DISPATCHER: 'false' });
});
afterAll(async () => server?.close());

async function stockedProduct(store: TestStore, sku: string, quantity: number): Promise<{ productId: string; levelId: string }> {
  const { defaultLocationId } = await server.db.prisma.store.findUniqueOrThrow({ where: { id: store.storeId } });
  const productId = newId('product');
  await server.db.prisma.product.create({ data: { id: productId, storeId: store.storeId, title: sku, sku } });
  const levelId = newId('inventoryLevel');
  await server.db.prisma.inventoryLevel.create({ data: { id: levelId, storeId: store.storeId, productId, locationId: defaultLocationId!, quantity } });
  return { productId, levelId };
}

const order = (orderId: string, lines: { sku: string; quantity: number }[]) => ({
  orderId,
  createdAt: '2026-06-01T10:00:00Z',
  lineItems: lines.map((line, i) => ({ id: `l${i}`, productId: `ext-${line.sku}`, sku: line.sku, title: line.sku, quantity: line.quantity })),
});

const post = (store: TestStore, body: unknown) => call(server, 'POST', `/v2.2/stores/${store.storeId}/orders`, { secret: store.secret, body });

/** The store's order names in the order their transactions committed (the order.created events' sequence). */
async function namesInCommitOrder(storeId: string): Promise<string[]> {
  const rows = await server.db.sql.query<{ name: string }>(
    `SELECT o.name FROM "Order" o WHERE o."storeId" = $1 ORDER BY (SELECT min(d.sequence) FROM "WebhookDelivery" d WHERE d."subjectId" = o.id)`,
    [storeId],
  );
  return rows.map((row) => row.name);
}

describe('order numbers', () => {
  it('concurrent orders of one store, duplicates among them, get gapless numbers that increase in commit order', async () => {
    const store = await createTestStore(server.db, { name: 'Flash sale' });
    await server.db.prisma.webhookSubscription.create({
      data: { id: newId('webhookSubscription'), storeId: store.storeId, url: 'https://example.com/hook', topics: ['order.created'] },
    });
    await stockedProduct(store, 'TEE', 5);
    await stockedProduct(store, 'CAP', 5);
    const bodies = Array.from({ length: 30 }, (_, i) =>
      // Every fifth request repeats an orderId another request of the burst sends too.
      order(i % 5 === 4 ? `dup-${i - 1}` : `dup-${i}`, [
        { sku: i % 2 ? 'TEE' : 'CAP', quantity: 1 },
        { sku: i % 2 ? 'CAP' : 'TEE', quantity: 1 },
      ]),
    );
    const answers = await Promise.all(bodies.map((body) => post(store, body)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(24);
    expect(statuses.filter((s) => s === 409)).toHaveLength(6);

    const names = await namesInCommitOrder(store.storeId);
    expect(names).toEqual(Array.from({ length: 24 }, (_, i) => `#${1001 + i}`));
    const { nextOrderNumber } = await server.db.prisma.store.findUniqueOrThrow({ where: { id: store.storeId } });
    expect(nextOrderNumber).toBe(1025);
  });

  it('orders of different stores at once number each store from its own counter', async () => {
    const stores = await Promise.all([0, 1, 2, 3].map((i) => createTestStore(server.db, { name: `Store ${i}` })));
    for (const store of stores) await stockedProduct(store, 'MUG', 100);
    const answers = await Promise.all(stores.flatMap((store) => Array.from({ length: 6 }, (_, i) => post(store, order(`o-${i}`, [{ sku: 'MUG', quantity: 1 }])))));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    for (const store of stores) {
      const orders = await server.db.prisma.order.findMany({ where: { storeId: store.storeId }, select: { name: true } });
      expect(orders.map((o) => o.name).sort()).toEqual(['#1001', '#1002', '#1003', '#1004', '#1005', '#1006']);
    }
  });
});

describe('stock under concurrency', () => {
  it('orders sharing levels, in opposite line orders, commit every unit and record exactly the shortfall as oversold', async () => {
    const store = await createTestStore(server.db, { name: 'Shared levels' });
    const tee = await stockedProduct(store, 'TEE', 7);
    const cap = await stockedProduct(store, 'CAP', 4);
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        post(
          store,
          order(
            `s-${i}`,
            i % 2
              ? [
                  { sku: 'TEE', quantity: 1 },
                  { sku: 'CAP', quantity: 1 },
                ]
              : [
                  { sku: 'CAP', quantity: 1 },
                  { sku: 'TEE', quantity: 1 },
                ],
          ),
        ),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));

    for (const [product, onHand] of [
      [tee, 7],
      [cap, 4],
    ] as const) {
      const level = await server.db.prisma.inventoryLevel.findUniqueOrThrow({ where: { id: product.levelId } });
      expect(level).toMatchObject({ quantity: onHand, committed: 16, reserved: 0 });
      const lines = await server.db.prisma.orderLineItem.findMany({ where: { committedLevelId: product.levelId } });
      expect(lines).toHaveLength(16);
      // Exactly the units beyond what was on hand are oversold: none lost, none counted twice.
      expect(lines.reduce((sum, line) => sum + line.oversoldQuantity, 0)).toBe(16 - onHand);
      expect(lines.filter((line) => line.oversoldQuantity === 0)).toHaveLength(onHand);
      const ledger = await server.db.prisma.inventoryAdjustment.findMany({ where: { levelId: product.levelId } });
      expect(ledger.map((entry) => entry.committedDelta)).toEqual(ledger.map(() => 1));
      expect(ledger).toHaveLength(16);
      // Each level event shows the level as its own commitment left it: committed 1, 2, ... 16 once each.
      const events = await server.db.prisma.event.findMany({ where: { subjectId: product.levelId, topic: 'inventory_level.updated' } });
      expect(events.map((event) => (event.data as { committed: number }).committed).sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    }
  });
});

describe('refused orders', () => {
  it.each([
    ['invalid', (sku: string) => ({ ...order('bad-1', [{ sku, quantity: 0 }]) })],
    ['at an unknown location', (sku: string) => ({ ...order('bad-2', [{ sku, quantity: 1 }]), locationId: 'loc_unknown' })],
    ['a duplicate orderId', (sku: string) => order('taken', [{ sku, quantity: 1 }])],
  ])('an order %s writes nothing: no row, no stock, no number, no event, no audit entry', async (_name, body) => {
    const store = await createTestStore(server.db, { name: 'Refusals' });
    await stockedProduct(store, 'PEN', 3);
    expect((await post(store, order('taken', [{ sku: 'PEN', quantity: 1 }]))).status).toBe(200);
    const before = await rowCounts(server.db);
    const levelsBefore = await server.db.prisma.inventoryLevel.findMany({ where: { storeId: store.storeId } });
    const answer = await post(store, body('PEN'));
    expect([400, 409]).toContain(answer.status);
    expect(await rowCounts(server.db)).toEqual(before);
    expect(await server.db.prisma.inventoryLevel.findMany({ where: { storeId: store.storeId } })).toEqual(levelsBefore);
    expect((await server.db.prisma.store.findUniqueOrThrow({ where: { id: store.storeId } })).nextOrderNumber).toBe(1002);
  });

  it('of the same new orderId sent eight times at once, one is written and seven write nothing', async () => {
    const store = await createTestStore(server.db, { name: 'Racing duplicates' });
    const { levelId } = await stockedProduct(store, 'INK', 3);
    const before = await rowCounts(server.db);
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(store, order('same', [{ sku: 'INK', quantity: 1 }]))));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    const after = await rowCounts(server.db);
    const grown = Object.fromEntries(Object.entries(after).flatMap(([table, n]) => (n !== before[table] ? [[table, n - before[table]]] : [])));
    // One order: its row, group, line, ledger row, two events (level, order) and their audit entries.
    expect(grown).toMatchObject({ Order: 1, FulfillmentGroup: 1, OrderLineItem: 1, InventoryAdjustment: 1, Event: 2 });
    expect((await server.db.prisma.inventoryLevel.findUniqueOrThrow({ where: { id: levelId } })).committed).toBe(1);
    expect((await server.db.prisma.store.findUniqueOrThrow({ where: { id: store.storeId } })).nextOrderNumber).toBe(1002);
  });
});
