// The stock rules other domain code relies on: commitStock (orders) and changeLevel
// keep the invariants, write the ledger row and the inventory_level.updated event in
// the caller's transaction (a rollback leaves nothing), and serialise concurrent
// changes of one level.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { createProduct } from '../../src/domain/catalog.ts';
import { NotFound, UnprocessableState } from '../../src/domain/errors.ts';
import { adjustInventory, availableOf, commitStock, createLocation } from '../../src/domain/inventory.ts';
import { createStore } from '../../src/domain/stores.ts';
import { createTestDatabase } from '../support/db.ts';

let db: Database;
let storeId: string;
let otherStoreId: string;
let locationId: string;
let productId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  storeId = (await createStore(db.prisma, { name: 'Store' })).id;
  otherStoreId = (await createStore(db.prisma, { name: 'Other' })).id;
  locationId = (await createLocation(db.prisma, storeId, { name: 'Warehouse' })).id;
  productId = (await createProduct(db.prisma, storeId, { title: 'Tee', sku: 'TEE' })).id;
});
afterAll(async () => db?.close());

async function freshLevel(quantity: number) {
  const product = await createProduct(db.prisma, storeId, { title: 'Item' });
  return adjustInventory(db.prisma, storeId, { productId: product.id, locationId, quantityDelta: quantity, reason: 'initial_count' });
}

describe('commitStock', () => {
  it('commits and releases stock for an order, with ledger row and event', async () => {
    const level = await freshLevel(10);
    const committed = await db.prisma.$transaction((tx) => commitStock(tx, { storeId, levelId: level.id, quantity: 4, reason: 'order', referenceId: 'ord_1' }));
    expect(committed.level).toMatchObject({ quantity: 10, committed: 4, reserved: 0 });
    expect(committed.oversold).toBe(0);
    expect(availableOf(committed.level)).toBe(6);
    const released = await db.prisma.$transaction((tx) => commitStock(tx, { storeId, levelId: level.id, quantity: -1, reason: 'order_edited', referenceId: 'ord_1' }));
    expect(released.level.committed).toBe(3);
    const ledger = await db.prisma.inventoryAdjustment.findMany({ where: { levelId: level.id, reason: { startsWith: 'order' } }, orderBy: { createdAt: 'asc' } });
    expect(ledger.map((l) => [l.committedDelta, l.referenceId])).toEqual([
      [4, 'ord_1'],
      [-1, 'ord_1'],
    ]);
    const events = await db.prisma.event.findMany({ where: { subjectId: level.id }, orderBy: { createdAt: 'asc' } });
    expect(events.at(-1)).toMatchObject({ topic: 'inventory_level.updated', storeId, data: expect.objectContaining({ committed: 3, available: 7 }) });
  });

  it('commits past the quantity on hand as oversold (negative available), and refuses to release below zero', async () => {
    const level = await freshLevel(2);
    await expect(db.prisma.$transaction((tx) => commitStock(tx, { storeId, levelId: level.id, quantity: -1, reason: 'order' }))).rejects.toBeInstanceOf(UnprocessableState);
    const first = await db.prisma.$transaction((tx) => commitStock(tx, { storeId, levelId: level.id, quantity: 3, reason: 'order' }));
    expect(first.oversold).toBe(1);
    const second = await db.prisma.$transaction((tx) => commitStock(tx, { storeId, levelId: level.id, quantity: 2, reason: 'order' }));
    expect(second.oversold).toBe(2);
    expect(second.level).toMatchObject({ committed: 5, quantity: 2 });
    expect(availableOf(second.level)).toBe(-3);
  });

  it('lets an oversold level receive stock and release commitments, but not shrink further', async () => {
    const level = await freshLevel(1);
    await db.prisma.$transaction((tx) => commitStock(tx, { storeId, levelId: level.id, quantity: 4, reason: 'order' }));
    const received = await adjustInventory(db.prisma, storeId, { inventoryLevelId: level.id, quantityDelta: 2, reason: 'received' });
    expect(received).toMatchObject({ quantity: 3, committed: 4 });
    await expect(adjustInventory(db.prisma, storeId, { inventoryLevelId: level.id, quantityDelta: -1, reason: 'shrink' })).rejects.toBeInstanceOf(UnprocessableState);
    const shipped = await adjustInventory(db.prisma, storeId, { inventoryLevelId: level.id, quantityDelta: -3, committedDelta: -3, reason: 'shipped' });
    expect(shipped).toMatchObject({ quantity: 0, committed: 1 });
    expect(availableOf(shipped)).toBe(-1);
  });

  it("refuses another store's level as NotFound", async () => {
    const level = await freshLevel(5);
    await expect(db.prisma.$transaction((tx) => commitStock(tx, { storeId: otherStoreId, levelId: level.id, quantity: 1, reason: 'order' }))).rejects.toBeInstanceOf(NotFound);
  });

  it('leaves no ledger row, event or change behind when the caller rolls back', async () => {
    const level = await freshLevel(5);
    const events = await db.prisma.event.count();
    const ledger = await db.prisma.inventoryAdjustment.count();
    await expect(
      db.prisma.$transaction(async (tx) => {
        await commitStock(tx, { storeId, levelId: level.id, quantity: 2, reason: 'order' });
        throw new Error('the order failed later');
      }),
    ).rejects.toThrow('the order failed later');
    expect(await db.prisma.event.count()).toBe(events);
    expect(await db.prisma.inventoryAdjustment.count()).toBe(ledger);
    expect((await db.prisma.inventoryLevel.findUniqueOrThrow({ where: { id: level.id } })).committed).toBe(0);
  });

  it('serialises concurrent commitments of one level: exactly the units past stock are oversold', async () => {
    const level = await freshLevel(10);
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => db.prisma.$transaction((tx) => commitStock(tx, { storeId, levelId: level.id, quantity: 1, reason: 'order', referenceId: `ord_${i}` }), { timeout: 30_000, maxWait: 30_000 })),
    );
    expect(results.filter((r) => r.oversold === 1)).toHaveLength(6);
    const final = await db.prisma.inventoryLevel.findUniqueOrThrow({ where: { id: level.id } });
    expect(final.committed).toBe(16);
    expect(await db.prisma.inventoryAdjustment.count({ where: { levelId: level.id, reason: 'order' } })).toBe(16);
  });
});

describe('adjustInventory', () => {
  it('keeps reserved and committed each within the quantity on hand', async () => {
    const level = await adjustInventory(db.prisma, storeId, { productId, locationId, quantityDelta: 5, reason: 'count' });
    await adjustInventory(db.prisma, storeId, { inventoryLevelId: level.id, committedDelta: 5, reason: 'hold' });
    await expect(adjustInventory(db.prisma, storeId, { inventoryLevelId: level.id, quantityDelta: -1, reason: 'shrink' })).rejects.toBeInstanceOf(UnprocessableState);
    const after = await adjustInventory(db.prisma, storeId, { inventoryLevelId: level.id, quantityDelta: -1, committedDelta: -1, reason: 'shipped' });
    expect(after).toMatchObject({ quantity: 4, committed: 4 });
    expect(availableOf(after)).toBe(0);
  });
});
