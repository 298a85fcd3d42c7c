// Values the read statement computes from a row's columns (src/db/reads/derived.ts): selected by
// name as a column is, equal to what the domain computes from the same row, in a page inside a
// relation as at the root; a name that is neither a column nor a derived value is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { UnsupportedRead } from '../../src/db/reads/compile.ts';
import { createProduct } from '../../src/domain/catalog.ts';
import { newId } from '../../src/domain/ids.ts';
import { availableOf, createLocation } from '../../src/domain/inventory.ts';
import { createStore } from '../../src/domain/stores.ts';
import { createTestDatabase } from '../support/db.ts';

let db: Database;
let storeId: string;
let productId: string;

/** Reads of a value Prisma's types do not list. */
type LooseReads = Record<string, { findMany(args: object): Promise<unknown[]> }>;

beforeAll(async () => {
  db = await createTestDatabase();
  storeId = (await createStore(db.prisma, { name: 'Store' })).id;
  productId = (await createProduct(db.prisma, storeId, { title: 'Tee', sku: 'TEE' })).id;
  // Stock in hand, an oversold level (committed past quantity) and an empty one.
  for (const [quantity, committed, reserved] of [[10, 3, 2], [2, 5, 0], [0, 0, 0]]) {
    const locationId = (await createLocation(db.prisma, storeId, { name: `Location ${quantity}-${committed}` })).id;
    await db.prisma.inventoryLevel.create({ data: { id: newId('inventoryLevel'), storeId, productId, locationId, quantity, committed, reserved } });
  }
});
afterAll(async () => db?.close());

describe('a derived value in a read', () => {
  it("is InventoryLevel.available as the domain computes it, at the root and in a relation's page", async () => {
    const levels = await db.prisma.inventoryLevel.findMany({ where: { storeId }, orderBy: { id: 'asc' } });
    expect(levels.map(availableOf)).toEqual(expect.arrayContaining([5, -3, 0]));
    const reads = db.reads as unknown as LooseReads;

    const root = await reads.inventoryLevel.findMany({ where: { storeId }, select: { id: true, available: true }, orderBy: { id: 'asc' } });
    expect(root).toEqual(levels.map((level) => ({ id: level.id, available: availableOf(level) })));

    // A page of a relation carries out of its subquery only the columns its rows read: here the three `available` is made of.
    const [product] = await reads.product.findMany({
      where: { id: productId },
      select: { inventoryLevels: { select: { available: true }, orderBy: { id: 'asc' }, take: 2 } },
    });
    expect(product).toEqual({ inventoryLevels: levels.slice(0, 2).map((level) => ({ available: availableOf(level) })) });
  });

  it('is refused where the model defines none, as an unknown field is', async () => {
    const reads = db.reads as unknown as LooseReads;
    await expect(reads.product.findMany({ where: { id: productId }, select: { available: true } })).rejects.toThrow(UnsupportedRead);
    await expect(reads.inventoryLevel.findMany({ where: { storeId }, select: { constructor: true } })).rejects.toThrow(UnsupportedRead);
  });
});
