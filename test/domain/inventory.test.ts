// The stock rules other domain code relies on: commitLevels (orders) and changeLevel
// (every other change, and an order's release) keep the invariants, write the ledger row
// and the inventory_level.updated event in the caller's transaction (a rollback leaves
// nothing, a refusal writes nothing), and serialise concurrent changes of one level.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { createProduct } from '../../src/domain/catalog.ts';
import { NotFound, UnprocessableState } from '../../src/domain/errors.ts';
import { adjustInventory, availableOf, changeLevel, commitLevels, createLocation } from '../../src/domain/inventory.ts';
import type { Tx } from '../../src/domain/tx.ts';
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

/** An order's commitment of `quantity` at one level: the level after it, and how much of it was oversold. */
async function commit(tx: Tx, levelId: string, quantity: number, referenceId: string | null = null, store = storeId) {
  const oversold = await commitLevels(tx, store, [{ levelId, quantity }], { reason: 'order', referenceId });
  return { level: await tx.inventoryLevel.findUniqueOrThrow({ where: { id: levelId } }), oversold: oversold.get(levelId)! };
}

/** An order's release of `quantity` at one level, as releaseCommitments gives it back. */
const release = (tx: Tx, levelId: string, quantity: number, reason: string, referenceId: string | null = null) =>
  changeLevel(tx, levelId, { committed: -quantity }, { reason, referenceId }, undefined, { allowOvercommit: true });

describe('commitLevels', () => {
  it('commits and releases stock for an order, with ledger row and event', async () => {
    const level = await freshLevel(10);
    const committed = await db.prisma.$transaction((tx) => commit(tx, level.id, 4, 'ord_1'));
    expect(committed.level).toMatchObject({ quantity: 10, committed: 4, reserved: 0 });
    expect(committed.oversold).toBe(0);
    expect(availableOf(committed.level)).toBe(6);
    const released = await db.prisma.$transaction((tx) => release(tx, level.id, 1, 'order_edited', 'ord_1'));
    expect(released.committed).toBe(3);
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
    await expect(db.prisma.$transaction((tx) => release(tx, level.id, 1, 'order'))).rejects.toBeInstanceOf(UnprocessableState);
    const first = await db.prisma.$transaction((tx) => commit(tx, level.id, 3));
    expect(first.oversold).toBe(1);
    const second = await db.prisma.$transaction((tx) => commit(tx, level.id, 2));
    expect(second.oversold).toBe(2);
    expect(second.level).toMatchObject({ committed: 5, quantity: 2 });
    expect(availableOf(second.level)).toBe(-3);
  });

  it('lets an oversold level receive stock and release commitments, but not shrink further', async () => {
    const level = await freshLevel(1);
    await db.prisma.$transaction((tx) => commit(tx, level.id, 4));
    const received = await adjustInventory(db.prisma, storeId, { inventoryLevelId: level.id, quantityDelta: 2, reason: 'received' });
    expect(received).toMatchObject({ quantity: 3, committed: 4 });
    await expect(adjustInventory(db.prisma, storeId, { inventoryLevelId: level.id, quantityDelta: -1, reason: 'shrink' })).rejects.toBeInstanceOf(UnprocessableState);
    const shipped = await adjustInventory(db.prisma, storeId, { inventoryLevelId: level.id, quantityDelta: -3, committedDelta: -3, reason: 'shipped' });
    expect(shipped).toMatchObject({ quantity: 0, committed: 1 });
    expect(availableOf(shipped)).toBe(-1);
  });

  it("refuses another store's level as NotFound", async () => {
    const level = await freshLevel(5);
    await expect(db.prisma.$transaction((tx) => commit(tx, level.id, 1, null, otherStoreId))).rejects.toBeInstanceOf(NotFound);
  });

  it('leaves no ledger row, event or change behind when the caller rolls back', async () => {
    const level = await freshLevel(5);
    const events = await db.prisma.event.count();
    const ledger = await db.prisma.inventoryAdjustment.count();
    await expect(
      db.prisma.$transaction(async (tx) => {
        await commit(tx, level.id, 2);
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
      Array.from({ length: 16 }, (_, i) => db.prisma.$transaction((tx) => commit(tx, level.id, 1, `ord_${i}`), { timeout: 30_000, maxWait: 30_000 })),
    );
    expect(results.filter((r) => r.oversold === 1)).toHaveLength(6);
    const final = await db.prisma.inventoryLevel.findUniqueOrThrow({ where: { id: level.id } });
    expect(final.committed).toBe(16);
    expect(await db.prisma.inventoryAdjustment.count({ where: { levelId: level.id, reason: 'order' } })).toBe(16);
  });
});

describe('changeLevel', () => {
  it('writes the level, its ledger row and its event, whose change and figures are the new ones', async () => {
    const level = await freshLevel(8);
    const changed = await db.prisma.$transaction((tx) => changeLevel(tx, level.id, { quantity: -2, reserved: 3 }, { reason: 'hold', referenceId: 'ref_1' }));
    expect(changed).toMatchObject({ id: level.id, quantity: 6, reserved: 3, committed: 0 });
    expect(changed.updatedAt).toBeInstanceOf(Date);
    const [ledger] = await db.prisma.inventoryAdjustment.findMany({ where: { levelId: level.id, reason: 'hold' } });
    expect(ledger).toMatchObject({ referenceId: 'ref_1', quantityDelta: -2, committedDelta: 0, reservedDelta: 3, buildableDelta: 0 });
    const event = (await db.prisma.event.findMany({ where: { subjectId: level.id } })).find((e) => (e.data as { change: { reason: string } }).change.reason === 'hold')!;
    expect(event).toMatchObject({ storeId, topic: 'inventory_level.updated' });
    expect(event.data).toEqual({
      id: level.id,
      productId: level.productId,
      locationId,
      quantity: 6,
      available: 3,
      committed: 0,
      reserved: 3,
      buildable: 0,
      updatedAt: changed.updatedAt.toISOString(),
      change: { reason: 'hold', referenceId: 'ref_1', quantityDelta: -2, committedDelta: 0, reservedDelta: 3, buildableDelta: 0 },
    });
  });

  it('refuses a change that breaks an invariant with every reason, and writes nothing', async () => {
    const level = await freshLevel(2);
    const counts = async () => [await db.prisma.event.count(), await db.prisma.inventoryAdjustment.count()];
    const before = await counts();
    const refusal = await db.prisma.$transaction((tx) => changeLevel(tx, level.id, { quantity: -3, reserved: 1 }, { reason: 'shrink' })).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(UnprocessableState);
    expect((refusal as UnprocessableState).message).toBe(
      `inventory level ${level.id}: quantity would become -1; it cannot go below 0 (now 2); committed would become 0, above the quantity on hand (-1); reserved would become 1, above the quantity on hand (-1)`,
    );
    expect((refusal as UnprocessableState).path).toBe('quantity');
    expect(await counts()).toEqual(before);
    expect(await db.prisma.inventoryLevel.findUniqueOrThrow({ where: { id: level.id } })).toMatchObject({ quantity: 2, reserved: 0, committed: 0 });
  });

  it("refuses another store's level as NotFound when a store is named", async () => {
    const level = await freshLevel(5);
    await expect(db.prisma.$transaction((tx) => changeLevel(tx, level.id, { quantity: 1 }, { reason: 'count' }, undefined, { storeId: otherStoreId }))).rejects.toBeInstanceOf(NotFound);
    await expect(db.prisma.$transaction((tx) => changeLevel(tx, 'lvl_missing', { quantity: 1 }, { reason: 'count' }))).rejects.toBeInstanceOf(NotFound);
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
