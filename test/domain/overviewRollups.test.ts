// The overview's rollups (migration overview_rollups) through every kind of write that changes a
// figure: after each step, the overview read from the rollups must equal the overview counted
// from the records themselves (test/support/overviewOracle.ts), for a period of whole days, one
// that starts and ends between midnights, one shorter than a day and one of whole months; and the rollups and facts
// the triggers kept must equal what counting every row from scratch (the migration's backfill)
// gives.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { updateBillingSettings } from '../../src/domain/invoices.ts';
import { foldOverviewRollups, returnsOverview, type ReturnsOverview } from '../../src/domain/overview.ts';
import { eraseStoreCustomerData } from '../../src/domain/privacy/erasure.ts';
import { createReturn } from '../../src/domain/returns/creation.ts';
import { countReturnsByStatus } from '../../src/domain/returns/lists.ts';
import { deleteReturn, flagReturn, processReturn, rejectReturn, removeReturnItems, resetReturn } from '../../src/domain/returns/operations.ts';
import { createStore } from '../../src/domain/stores.ts';
import type { ReturnOutcome } from '../../src/generated/prisma/client.ts';
import { createTestDatabase } from '../support/db.ts';
import { countedOverview } from '../support/overviewOracle.ts';
import { createTestOrder, type TestOrder } from '../support/returnFixtures.ts';

const DAY_MS = 86_400_000;
const NOW = new Date();
const MIDNIGHT = Math.floor(NOW.getTime() / DAY_MS) * DAY_MS;
const daysAgo = (days: number, hours = 0) => new Date(NOW.getTime() - days * DAY_MS - hours * 3_600_000);
const PERIODS = {
  'whole days': { from: new Date(MIDNIGHT - 40 * DAY_MS), to: new Date(MIDNIGHT + DAY_MS) },
  'between midnights': { from: daysAgo(9, 7.2), to: new Date(NOW.getTime() + 3 * 3_600_000) },
  'under a day': { from: daysAgo(0, 2), to: new Date(NOW.getTime() + 3_600_000) },
  // Read from the month rows of the figures counted by SKU: every record of the test is in them.
  'whole months': { from: new Date(Date.UTC(NOW.getUTCFullYear(), NOW.getUTCMonth() - 2, 1)), to: new Date(Date.UTC(NOW.getUTCFullYear(), NOW.getUTCMonth() + 1, 1)) },
};

let db: Database;
let storeId: string;
let otherStoreId: string;

/** Amounts as numbers: the rollups may write 0 where the records' sums wrote 0.0000. */
function comparable(overview: ReturnsOverview) {
  return {
    ...overview,
    amounts: overview.amounts.map((a) => ({
      ...a,
      refunded: Number(a.refunded),
      storeCredit: Number(a.storeCredit),
      fees: Number(a.fees),
      days: a.days.map((d) => ({ ...d, refunded: Number(d.refunded), storeCredit: Number(d.storeCredit), fees: Number(d.fees) })),
    })),
  };
}

const ROLLUP_SUMS = `
SELECT "storeId", "figure", to_char("day", 'YYYY-MM-DD') AS "day", "key", "detail",
       sum("returns")::text AS "returns", sum("units")::text AS "units", sum("amount")::float8 AS "amount", sum("amount2")::float8 AS "amount2"
FROM "ReturnsOverviewRollup" GROUP BY 1, 2, 3, 4, 5
HAVING sum("returns") <> 0 OR sum("units") <> 0 OR sum("amount") <> 0 OR sum("amount2") <> 0
ORDER BY 1, 2, 3, 4, 5`;
const FACTS = `SELECT "returnId", "storeId", "openedAt", "status"::text, "currency", "closedAt", "openSeconds", "refunded"::float8, "storeCredit"::float8, "items"::text FROM "ReturnOverviewFact" ORDER BY 1`;

const sortByStatus = (rows: { status: unknown; count: number }[]) => [...rows].sort((a, b) => String(a.status).localeCompare(String(b.status)));

class Undo extends Error {}

/** The rollups and facts as the triggers left them, and as a count of every row from scratch gives them (in a transaction rolled back). */
async function keptAndRebuilt(): Promise<{ kept: unknown[]; rebuilt: unknown[] }> {
  let kept: unknown[] = [];
  let rebuilt: unknown[] = [];
  await db.prisma
    .$transaction(async (tx) => {
      kept = [await tx.$queryRawUnsafe(ROLLUP_SUMS), await tx.$queryRawUnsafe(FACTS)];
      await tx.$executeRawUnsafe('SELECT overview_rebuild()');
      rebuilt = [await tx.$queryRawUnsafe(ROLLUP_SUMS), await tx.$queryRawUnsafe(FACTS)];
      throw new Undo();
    })
    .catch((error: unknown) => {
      if (!(error instanceof Undo)) throw error;
    });
  return { kept, rebuilt };
}

async function expectCountedRight(step: string): Promise<void> {
  for (const store of [storeId, otherStoreId]) {
    for (const [name, period] of Object.entries(PERIODS)) {
      const fromRollups = await returnsOverview(db.prisma, store, period, NOW);
      const fromRecords = await countedOverview(db.prisma, store, period, NOW);
      expect(comparable(fromRollups), `${step}: ${name}, ${store === storeId ? 'the store' : 'the other store'}`).toEqual(comparable(fromRecords));
    }
  }
  for (const store of [storeId, otherStoreId]) {
    const records = await db.reads.return.countBy('status', { where: { storeId: store } });
    const fromRollup = (await countReturnsByStatus(db.reads, db.prisma, store, {})).filter((row) => row.count > 0);
    const counted = records.map((row) => ({ status: row.value, count: row.count }));
    expect(sortByStatus(fromRollup), `${step}: the returns queue's tabs`).toEqual(sortByStatus(counted));
  }
  const { kept, rebuilt } = await keptAndRebuilt();
  expect(kept, `${step}: the rollups the writes kept`).toEqual(rebuilt);
}

async function returnOf(store: string, order: TestOrder, lines: { line: number; quantity: number; reason: string; outcome?: ReturnOutcome }[]): Promise<string> {
  const items = lines.map(({ line, quantity, reason, outcome }) => ({ lineItemId: order.lineItems[line].id, quantity, reason, outcome: outcome ?? 'refund' }));
  return (await createReturn(db.prisma, store, { orderId: order.id, items })).id;
}

const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => db.sql.query<T>(text, params);

let o1: TestOrder;
let o2: TestOrder;
let foreign: TestOrder;
let r1: string;
let r2: string;
let r3: string;
let r4: string;

beforeAll(async () => {
  db = await createTestDatabase();
  storeId = (await createStore(db.prisma, { name: 'Rollups' })).id;
  otherStoreId = (await createStore(db.prisma, { name: 'Rollups, another store' })).id;
  await updateBillingSettings(db.prisma, storeId, { returnProcessingFee: '1.50' });
});
afterAll(async () => db?.close());

describe('the overview rollups', () => {
  it('count orders as they are created', async () => {
    o1 = await createTestOrder(db, storeId, { lines: [{ sku: 'SKU-A', quantity: 4, title: 'Alpha' }, { sku: 'SKU-B', quantity: 2 }, { sku: null, quantity: 1 }] });
    o2 = await createTestOrder(db, storeId, { lines: [{ sku: 'SKU-A', quantity: 3, title: 'Aardvark' }, { sku: 'SKU-C', quantity: 5 }] });
    foreign = await createTestOrder(db, otherStoreId, { lines: [{ sku: 'SKU-A', quantity: 3 }] });
    await sql(`UPDATE "Order" SET "placedAt" = $2 WHERE "id" = $1`, [o1.id, daysAgo(3)]);
    await sql(`UPDATE "Order" SET "placedAt" = $2 WHERE "id" = $1`, [o2.id, daysAgo(0, 1)]);
    await sql(`UPDATE "Order" SET "placedAt" = $2 WHERE "id" = $1`, [foreign.id, daysAgo(1)]);
    const overview = await returnsOverview(db.prisma, storeId, PERIODS['whole days'], NOW);
    expect(overview.returnRate.unitsOrdered).toBe(15);
    await expectCountedRight('orders created');
  });

  it('count returns as they are created, with their fees', async () => {
    r1 = await returnOf(storeId, o1, [
      { line: 0, quantity: 2, reason: 'Too small' },
      { line: 1, quantity: 1, reason: 'Too small', outcome: 'credit' },
    ]);
    r2 = await returnOf(storeId, o1, [{ line: 2, quantity: 1, reason: 'Damaged' }]);
    r3 = await returnOf(storeId, o2, [
      { line: 0, quantity: 1, reason: 'Changed my mind' },
      { line: 1, quantity: 2, reason: 'Wrong item' },
    ]);
    r4 = await returnOf(storeId, o2, [{ line: 1, quantity: 1, reason: 'Too large' }]);
    await returnOf(otherStoreId, foreign, [{ line: 0, quantity: 3, reason: 'Too small' }]);
    const overview = await returnsOverview(db.prisma, storeId, PERIODS['whole days'], NOW);
    expect(overview.needingAction.total).toBe(4);
    expect(overview.returnRate.unitsReturned).toBe(8);
    await expectCountedRight('returns created');
  });

  it('follow status changes: process, flag, reject, reset and process again, delete', async () => {
    await processReturn(db.prisma, storeId, { id: r1 });
    await expectCountedRight('processed');
    await flagReturn(db.prisma, storeId, { id: r2 });
    await rejectReturn(db.prisma, storeId, { id: r4 });
    await expectCountedRight('flagged and rejected');
    await resetReturn(db.prisma, storeId, { id: r1 });
    await expectCountedRight('reset');
    await processReturn(db.prisma, storeId, { id: r1 });
    await expectCountedRight('processed again');
    await deleteReturn(db.prisma, storeId, { id: r4 });
    const overview = await returnsOverview(db.prisma, storeId, PERIODS['whole days'], NOW);
    expect(overview.completion.completed).toBe(1);
    expect(overview.needingAction.total).toBe(2);
    await expectCountedRight('deleted');
  });

  it('follow an item removed', async () => {
    const [item] = await sql<{ id: string }>(`SELECT "id" FROM "ReturnItem" WHERE "returnId" = $1 AND "reason" = 'Wrong item'`, [r3]);
    await removeReturnItems(db.prisma, storeId, { id: r3 }, [item.id]);
    const overview = await returnsOverview(db.prisma, storeId, PERIODS['whole days'], NOW);
    expect(overview.reasons.map((r) => r.reason)).not.toContain('Wrong item');
    await expectCountedRight('item removed');
  });

  it('follow times moved: opened, completed, placed, charged on other days', async () => {
    await sql(`UPDATE "Return" SET "createdAt" = $2 WHERE "id" = $1`, [r1, daysAgo(6, 5)]);
    await sql(`UPDATE "ReturnStatusChange" SET "createdAt" = $2 WHERE "returnId" = $1 AND "toStatus" = 'complete'`, [r1, daysAgo(2, 3)]);
    await sql(`UPDATE "Return" SET "createdAt" = $2 WHERE "id" = $1`, [r2, daysAgo(9, 8)]);
    await sql(`UPDATE "Return" SET "createdAt" = $2 WHERE "id" = $1`, [r3, daysAgo(4)]);
    await sql(`UPDATE "InvoiceItem" SET "occurredAt" = $2 WHERE "subjectId" = $1`, [r3, daysAgo(4)]);
    await sql(`UPDATE "Order" SET "placedAt" = $2 WHERE "id" = $1`, [o2.id, daysAgo(12)]);
    await expectCountedRight('times moved');
  });

  it('follow order lines changed, added and deleted', async () => {
    // The SKU of a line a return names without one of its own moves that return's units.
    await sql(`UPDATE "OrderLineItem" SET "sku" = 'SKU-Z', "title" = 'Zeta', "quantity" = 7 WHERE "id" = $1`, [o1.lineItems[0].id]);
    await expectCountedRight('line changed');
    await sql(
      `INSERT INTO "OrderLineItem" ("id", "orderId", "position", "externalId", "externalProductId", "title", "quantity", "sku")
       VALUES ('oli_added', $1, 9, 'line-added', 'product-added', 'Added', 2, 'SKU-B')`,
      [o1.id],
    );
    await expectCountedRight('line added');
    // Its return items go with it (a cascade).
    await sql(`DELETE FROM "OrderLineItem" WHERE "id" = $1`, [o2.lineItems[0].id]);
    await expectCountedRight('line deleted');
  });

  it('follow a whole order deleted, with its returns', async () => {
    await sql(`DELETE FROM "Order" WHERE "id" = $1`, [o2.id]);
    await expectCountedRight('order deleted');
  });

  it("follow the store's erasure of customer data, which rewrites reasons", async () => {
    await eraseStoreCustomerData(db.prisma, storeId);
    await expectCountedRight('store erased');
  });

  it("count the SKU figures' week and month rows from the day rows as the migration overview_sku_weeks does on a database that has them", async () => {
    // Its backfill: the statements between its marker and its index, on rows not yet folded too.
    const migration = readFileSync(new URL('../../prisma/migrations/20261205000000_overview_sku_weeks/migration.sql', import.meta.url), 'utf8');
    const backfill = migration.slice(migration.indexOf("-- This migration's backfill"), migration.indexOf('CREATE INDEX'));
    expect(backfill).toContain('overview_add_sku_periods()');
    let kept: unknown[] = [];
    let backfilled: unknown[] = [];
    await db.prisma
      .$transaction(async (tx) => {
        kept = await tx.$queryRawUnsafe(ROLLUP_SUMS);
        await tx.$executeRawUnsafe(`DELETE FROM "ReturnsOverviewRollup" WHERE "figure" IN ('sku_week', 'sku_month')`);
        const statements = backfill.replace(/--.*$/gm, '').split(';').filter((text) => text.trim() !== '');
        for (const statement of statements) await tx.$executeRawUnsafe(statement);
        backfilled = await tx.$queryRawUnsafe(ROLLUP_SUMS);
        throw new Undo();
      })
      .catch((error: unknown) => {
        if (!(error instanceof Undo)) throw error;
      });
    expect(backfilled.length).toBeGreaterThan(0);
    expect(backfilled).toEqual(kept);
  });

  it('fold the rows of finished transactions into one per day and key, every sum unchanged', async () => {
    const before = await sql<{ rows: number }>(`SELECT count(*)::int AS "rows" FROM "ReturnsOverviewRollup" WHERE "transactionId" <> 0`);
    expect(before[0].rows).toBeGreaterThan(0);
    await foldOverviewRollups(db.prisma);
    const after = await sql<{ rows: number }>(`SELECT count(*)::int AS "rows" FROM "ReturnsOverviewRollup" WHERE "transactionId" <> 0`);
    expect(after[0].rows).toBe(0);
    await expectCountedRight('folded');
  });

  it('count what was written with the triggers off, once rebuilt as the migration does', async () => {
    await sql(`DELETE FROM "ReturnsOverviewRollup"`);
    await sql(`DELETE FROM "ReturnOverviewFact"`);
    await sql(`SELECT overview_rebuild()`);
    await expectCountedRight('rebuilt');
  });

  it("drop a deleted store's rows with it, the other store's kept", async () => {
    await sql(`DELETE FROM "Store" WHERE "id" = $1`, [otherStoreId]);
    const left = await sql<{ stores: string[] }>(
      `SELECT array(SELECT DISTINCT "storeId" FROM "ReturnsOverviewRollup" UNION SELECT DISTINCT "storeId" FROM "ReturnOverviewFact") AS "stores"`,
    );
    expect(left[0].stores).toEqual([storeId]);
    const overview = await returnsOverview(db.prisma, storeId, PERIODS['whole days'], NOW);
    expect(comparable(overview)).toEqual(comparable(await countedOverview(db.prisma, storeId, PERIODS['whole days'], NOW)));
  });
});
