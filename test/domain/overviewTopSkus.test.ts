// The return rate's ten SKUs: ranked by rate, then units returned, then SKU, cut at ten, and
// each with the least title its lines ordered in the period carry (the overview sums units per
// SKU alone and looks titles up for the ten only). Every expected row below is counted from the
// list of sales, and each period is also held to the overview counted from the records
// (test/support/overviewOracle.ts): whole days around a whole month, part-days at both ends, the
// whole month alone; before and after the rollups are folded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { foldOverviewRollups, returnsOverview } from '../../src/domain/overview.ts';
import { createReturn } from '../../src/domain/returns/creation.ts';
import { createStore } from '../../src/domain/stores.ts';
import { createTestDatabase } from '../support/db.ts';
import { countedOverview } from '../support/overviewOracle.ts';
import { createTestOrder } from '../support/returnFixtures.ts';

let db: Database;
let storeId: string;
let otherStoreId: string;

const at = (text: string) => new Date(`2026-${text}:00Z`);
const NOW = at('11-20T12:00');
// Whole days: 09-20 to 09-30 and 11-01 to 11-19 from day rows, October from its month rows.
const WHOLE = { from: at('09-20T00:00'), to: at('11-20T00:00') };
const PERIODS = {
  'whole days around a whole month': WHOLE,
  'part-days at both ends': { from: at('09-20T10:00'), to: at('11-19T15:00') },
  'a whole month': { from: at('10-01T00:00'), to: at('11-01T00:00') },
};

/** One order of one line, placed at `placed`; with `returned`, a return of that many of its units opened at `returnedAt`. */
async function sold(store: string, sku: string, title: string, quantity: number, placed: string, returned = 0, returnedAt = ''): Promise<string> {
  const order = await createTestOrder(db, store, { lines: [{ sku, title, quantity }] });
  await db.sql.query(`UPDATE "Order" SET "placedAt" = $2 WHERE "id" = $1`, [order.id, at(placed)]);
  if (returned > 0) {
    const { id } = await createReturn(db.prisma, store, {
      orderId: order.id,
      items: [{ lineItemId: order.lineItems[0].id, quantity: returned, reason: 'Too small', outcome: 'refund' }],
    });
    await db.sql.query(`UPDATE "Return" SET "createdAt" = $2 WHERE "id" = $1`, [id, at(returnedAt)]);
  }
  return order.lineItems[0].id;
}

beforeAll(async () => {
  db = await createTestDatabase();
  storeId = (await createStore(db.prisma, { name: 'Top SKUs' })).id;
  otherStoreId = (await createStore(db.prisma, { name: 'Top SKUs, another store' })).id;

  // SKU-H: 2 ordered in the period ('Hat, red'), 2 returned in it (one of a line ordered before it,
  // titled 'Hat', which is the lesser title but not one of the period's).
  await sold(storeId, 'SKU-H', 'Hat', 1, '09-10T09:00', 1, '09-22T09:00');
  await sold(storeId, 'SKU-H', 'Hat, red', 2, '09-25T09:00', 1, '09-27T09:00');
  // SKU-S: 10 ordered, 9 returned; its 'Aaa sock' line is deleted below, and its title with it.
  await sold(storeId, 'SKU-S', 'Sock', 10, '10-10T09:00', 9, '10-12T09:00');
  const deletedLine = await sold(storeId, 'SKU-S', 'Aaa sock', 1, '10-11T09:00');
  // SKU-F2: 3 ordered, 2 returned; its line's title is changed below from 'Aflask' to 'Flask'.
  const renamedLine = await sold(storeId, 'SKU-F2', 'Aflask', 3, '10-20T09:00', 2, '10-21T09:00');
  // Three at 0.5: SKU-G3 (3 returned, titles 'Glove, wool' in October and 'Glove' in November), SKU-G1 (2), SKU-G2 (1).
  await sold(storeId, 'SKU-G3', 'Glove, wool', 3, '10-05T09:00', 3, '10-06T09:00');
  await sold(storeId, 'SKU-G3', 'Glove', 3, '11-03T09:00');
  await sold(storeId, 'SKU-G1', 'Gum', 4, '11-05T09:00', 2, '11-07T09:00');
  await sold(storeId, 'SKU-G2', 'Gel', 2, '09-21T09:00', 1, '09-23T09:00');
  await sold(storeId, 'SKU-F3', 'Fork', 5, '11-10T09:00', 2, '11-12T09:00');
  // Ordered and returned on the last day, within its part: in every period that holds that day.
  await sold(storeId, 'SKU-F1', 'Fan', 3, '11-19T12:00', 1, '11-19T13:00');
  await sold(storeId, 'SKU-F4', 'Fig', 7, '10-15T09:00', 2, '10-16T09:00');
  // A full tie at 0.25 with 1 returned across the cut: SKU-E1 is tenth, SKU-E2 eleventh.
  await sold(storeId, 'SKU-E1', 'Egg', 4, '10-25T09:00', 1, '10-26T09:00');
  await sold(storeId, 'SKU-E2', 'Ear', 4, '10-25T09:00', 1, '10-26T09:00');
  await sold(storeId, 'SKU-D', 'Dot', 10, '10-01T09:00', 1, '10-02T09:00');
  // Another store's SKU returned whole counts for that store alone.
  await sold(otherStoreId, 'SKU-Z', 'Zip', 1, '10-10T09:00', 1, '10-11T09:00');

  await db.sql.query(`DELETE FROM "OrderLineItem" WHERE "id" = $1`, [deletedLine]);
  await db.sql.query(`UPDATE "OrderLineItem" SET "title" = 'Flask' WHERE "id" = $1`, [renamedLine]);
});
afterAll(async () => db?.close());

const TOP_OF_WHOLE = [
  ['SKU-H', 'Hat, red', 2, 2, 1],
  ['SKU-S', 'Sock', 10, 9, 0.9],
  ['SKU-F2', 'Flask', 3, 2, 2 / 3],
  ['SKU-G3', 'Glove', 6, 3, 0.5],
  ['SKU-G1', 'Gum', 4, 2, 0.5],
  ['SKU-G2', 'Gel', 2, 1, 0.5],
  ['SKU-F3', 'Fork', 5, 2, 0.4],
  ['SKU-F1', 'Fan', 3, 1, 1 / 3],
  ['SKU-F4', 'Fig', 7, 2, 2 / 7],
  ['SKU-E1', 'Egg', 4, 1, 0.25],
];

async function expectTopAsCounted(step: string): Promise<void> {
  const overview = await returnsOverview(db.prisma, storeId, WHOLE, NOW);
  expect(
    overview.returnRate.top.map((t) => [t.sku, t.title, t.unitsOrdered, t.unitsReturned, t.rate]),
    `${step}: the ten of the whole days`,
  ).toEqual(TOP_OF_WHOLE);
  expect(overview.returnRate, step).toMatchObject({ unitsOrdered: 60, unitsReturned: 27 });
  for (const store of [storeId, otherStoreId]) {
    for (const [name, period] of Object.entries(PERIODS)) {
      const fromRollups = await returnsOverview(db.prisma, store, period, NOW);
      const fromRecords = await countedOverview(db.prisma, store, period, NOW);
      expect(fromRollups.returnRate, `${step}: ${name}, ${store === storeId ? 'the store' : 'the other store'}`).toEqual(fromRecords.returnRate);
    }
  }
}

describe("the return rate's ten SKUs", () => {
  it('rank by rate, then units returned, then SKU, and stop at ten', async () => {
    await expectTopAsCounted('as written');
  });

  it("carry the least title of the lines ordered in the period, not a deleted line's or a renamed one's old title", async () => {
    // Written by other transactions, the taken-back titles' rows are still rows of their own until folded.
    const taken = await db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS "n" FROM "ReturnsOverviewRollup" WHERE "figure" = 'ordered' AND "detail" IN ('Aaa sock', 'Aflask') AND "transactionId" <> 0`,
    );
    expect(taken[0].n).toBeGreaterThan(0);
    await foldOverviewRollups(db.prisma);
    // Folded, their rows (the day each line was written on, and the day it was placed on) are left with no lines.
    const folded = await db.sql.query<{ detail: string; rows: number; lines: string }>(
      `SELECT "detail", count(*)::int AS "rows", sum(abs("returns"))::text AS "lines" FROM "ReturnsOverviewRollup"
       WHERE "figure" = 'ordered' AND "detail" IN ('Aaa sock', 'Aflask') GROUP BY 1 ORDER BY 1`,
    );
    expect(folded.map((row) => [row.detail, row.rows > 0, row.lines])).toEqual([
      ['Aaa sock', true, '0'],
      ['Aflask', true, '0'],
    ]);
    await expectTopAsCounted('folded');
  });

  it('leave out a SKU returned in the period but no longer ordered in it', async () => {
    // SKU-H's in-period line gone: only its return of the line ordered before the period is left (1 returned, none ordered).
    await db.sql.query(`DELETE FROM "OrderLineItem" WHERE "title" = 'Hat, red'`);
    const overview = await returnsOverview(db.prisma, storeId, WHOLE, NOW);
    expect(overview.returnRate.top.map((t) => t.sku)).toEqual(['SKU-S', 'SKU-F2', 'SKU-G3', 'SKU-G1', 'SKU-G2', 'SKU-F3', 'SKU-F1', 'SKU-F4', 'SKU-E1', 'SKU-E2']);
    for (const [name, period] of Object.entries(PERIODS)) {
      expect((await returnsOverview(db.prisma, storeId, period, NOW)).returnRate, name).toEqual(
        (await countedOverview(db.prisma, storeId, period, NOW)).returnRate,
      );
    }
  });
});
