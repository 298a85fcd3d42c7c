// The returns overview against the records it summarises: returns made and moved through the
// domain (so their status history, refunds and processing fees are written as in production),
// then dated by hand; every expected figure below is counted from that list, not computed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { updateBillingSettings } from '../../src/domain/invoices.ts';
import { returnsOverview, type ReturnsOverview } from '../../src/domain/overview.ts';
import { createReturn } from '../../src/domain/returns/creation.ts';
import { deleteReturn, flagReturn, processReturn, rejectReturn, resetReturn } from '../../src/domain/returns/operations.ts';
import { createStore } from '../../src/domain/stores.ts';
import type { ReturnOutcome } from '../../src/generated/prisma/client.ts';
import { createTestDatabase } from '../support/db.ts';
import { createTestOrder, type TestOrder } from '../support/returnFixtures.ts';

let db: Database;
let storeId: string;
let overview: ReturnsOverview;

const NOW = new Date('2026-11-20T12:00:00Z');
const FROM = new Date('2026-11-10T00:00:00Z');
const TO = new Date('2026-11-20T00:00:00Z');
const at = (text: string) => new Date(`2026-${text}:00Z`);

async function placedAt(order: TestOrder, when: Date) {
  await db.sql.query(`UPDATE "Order" SET "placedAt" = $2 WHERE "id" = $1`, [order.id, when]);
}

/** A return of one line made through the domain, then dated: created at `times[0]`, each later status change at the next time. */
async function returnOf(
  store: string,
  order: TestOrder,
  line: number,
  quantity: number,
  reason: string,
  outcome: ReturnOutcome,
  times: Date[],
  moves: ((db: Database['prisma'], storeId: string, ref: { id: string }) => Promise<unknown>)[] = [],
): Promise<string> {
  const { id } = await createReturn(db.prisma, store, { orderId: order.id, items: [{ lineItemId: order.lineItems[line].id, quantity, reason, outcome }] });
  for (const move of moves) await move(db.prisma, store, { id });
  await db.sql.query(`UPDATE "Return" SET "createdAt" = $2 WHERE "id" = $1`, [id, times[0]]);
  await db.sql.query(`UPDATE "InvoiceItem" SET "occurredAt" = $2 WHERE "subjectId" = $1`, [id, times[0]]);
  const changes = await db.sql.query<{ id: string }>(`SELECT "id" FROM "ReturnStatusChange" WHERE "returnId" = $1 ORDER BY "createdAt", "id"`, [id]);
  expect(changes.length).toBe(times.length);
  for (const [i, change] of changes.entries()) await db.sql.query(`UPDATE "ReturnStatusChange" SET "createdAt" = $2 WHERE "id" = $1`, [change.id, times[i]]);
  return id;
}

beforeAll(async () => {
  db = await createTestDatabase();
  storeId = (await createStore(db.prisma, { name: 'Overview' })).id;
  const otherStoreId = (await createStore(db.prisma, { name: 'Another store' })).id;
  await updateBillingSettings(db.prisma, storeId, { returnProcessingFee: '1.50' });

  // Ordered in the period: A 4+1, B 2, C 5 = 12 units. O3 (A 10) was placed before it.
  const o1 = await createTestOrder(db, storeId, { lines: [{ sku: 'SKU-A', quantity: 4 }, { sku: 'SKU-B', quantity: 2 }] });
  const o2 = await createTestOrder(db, storeId, { lines: [{ sku: 'SKU-A', quantity: 1 }, { sku: 'SKU-C', quantity: 5 }] });
  const o3 = await createTestOrder(db, storeId, { lines: [{ sku: 'SKU-A', quantity: 10 }] });
  await placedAt(o1, at('11-11T09:00'));
  await placedAt(o2, at('11-12T09:00'));
  await placedAt(o3, at('10-01T09:00'));

  // R1: opened 11-12, completed 11-14 (48 h), 2 x 25.00 refunded.
  await returnOf(storeId, o1, 0, 2, 'Too small', 'refund', [at('11-12T08:00'), at('11-14T08:00')], [processReturn]);
  // R2: opened 11-13, completed 11-13 (12 h), 25.00 as store credit.
  await returnOf(storeId, o1, 1, 1, 'Damaged', 'credit', [at('11-13T10:00'), at('11-13T22:00')], [processReturn]);
  // R3: opened 11-19, open: 1 day old now.
  await returnOf(storeId, o2, 1, 1, 'Too small', 'refund', [at('11-19T09:00')]);
  // R4: opened 11-15, flagged: 5 days old.
  await returnOf(storeId, o2, 0, 1, 'Changed my mind', 'refund', [at('11-15T09:00'), at('11-15T10:00')], [flagReturn]);
  // R5: opened before the period, open: 46 days old.
  await returnOf(storeId, o3, 0, 3, 'Too small', 'refund', [at('10-05T09:00')]);
  // R6: opened 11-16, rejected: a reason, but no returned units and nothing awaiting action.
  await returnOf(storeId, o2, 1, 2, 'Wrong item', 'refund', [at('11-16T09:00'), at('11-16T10:00')], [rejectReturn]);
  // R7: opened 11-17, deleted: counted nowhere but in the fees (its fee was charged).
  await returnOf(storeId, o1, 0, 1, 'Too small', 'refund', [at('11-17T09:00'), at('11-17T10:00')], [deleteReturn]);
  // R8: opened and completed before the period.
  await returnOf(storeId, o3, 0, 2, 'Too small', 'refund', [at('11-01T09:00'), at('11-05T09:00')], [processReturn]);
  // R9: opened before the period, completed 11-11, reset, completed again 11-18 (16 days after opening): completed on 11-18.
  await returnOf(storeId, o3, 0, 1, 'Too large', 'refund', [at('11-02T10:00'), at('11-11T10:00'), at('11-12T10:00'), at('11-18T10:00')], [
    processReturn,
    resetReturn,
    processReturn,
  ]);
  // R10: opened 11-03, completed 11-12 then reset: open again, 17 days old, not completed.
  await returnOf(storeId, o3, 0, 1, 'Too large', 'refund', [at('11-03T09:00'), at('11-12T09:00'), at('11-13T09:00')], [processReturn, resetReturn]);

  // Another store's return in the period counts for it alone.
  const foreign = await createTestOrder(db, otherStoreId, { lines: [{ sku: 'SKU-A', quantity: 3 }] });
  await placedAt(foreign, at('11-12T09:00'));
  await returnOf(otherStoreId, foreign, 0, 3, 'Too small', 'refund', [at('11-12T09:00')]);

  overview = await returnsOverview(db.prisma, storeId, { from: FROM, to: TO }, NOW);
});
afterAll(async () => db?.close());

describe('the returns overview', () => {
  it('counts the returns awaiting action by status and by age', () => {
    expect(overview.needingAction.total).toBe(4); // R3, R4, R5, R10
    expect(overview.needingAction.byStatus.filter((s) => s.count > 0)).toEqual([
      { status: 'open', count: 3 },
      { status: 'flagged', count: 1 },
    ]);
    // Statuses no operation leads to are left out while no return is in them, as the queue's tabs leave them out.
    expect(overview.needingAction.byStatus.map((s) => s.status)).toEqual(['open', 'flagged']);
    expect(overview.needingAction.byAge.map((a) => [a.bucket, a.count])).toEqual([
      ['DAYS_0_2', 1],
      ['DAYS_3_7', 1],
      ['DAYS_8_PLUS', 2],
    ]);
  });

  it('counts returns opened and completed on each day of the period', () => {
    const days = Object.fromEntries(overview.days.map((d) => [d.day, [d.opened, d.completed]]));
    expect(days).toEqual({
      '2026-11-10': [0, 0],
      '2026-11-11': [0, 0],
      '2026-11-12': [1, 0],
      '2026-11-13': [1, 1],
      '2026-11-14': [0, 1],
      '2026-11-15': [1, 0],
      '2026-11-16': [1, 0],
      '2026-11-17': [0, 0],
      '2026-11-18': [0, 1],
      '2026-11-19': [1, 0],
    });
  });

  it('sums refunds and store credit on the day of completion and fees on the day charged', () => {
    expect(overview.amounts).toHaveLength(1);
    const [usd] = overview.amounts;
    expect(usd.currency).toBe('USD');
    expect([Number(usd.refunded), Number(usd.storeCredit), Number(usd.fees)]).toEqual([75, 25, 9]);
    const days = Object.fromEntries(usd.days.map((d) => [d.day, [Number(d.refunded), Number(d.storeCredit), Number(d.fees)]]));
    expect(days).toEqual({
      '2026-11-12': [0, 0, 1.5],
      '2026-11-13': [0, 25, 1.5],
      '2026-11-14': [50, 0, 0],
      '2026-11-15': [0, 0, 1.5],
      '2026-11-16': [0, 0, 1.5],
      '2026-11-17': [0, 0, 1.5],
      '2026-11-18': [25, 0, 0],
      '2026-11-19': [0, 0, 1.5],
    });
  });

  it('divides units returned by units ordered, overall and per SKU', () => {
    expect(overview.returnRate).toMatchObject({ unitsOrdered: 12, unitsReturned: 5 });
    expect(overview.returnRate.rate).toBeCloseTo(5 / 12, 10);
    expect(overview.returnRate.top.map((t) => [t.sku, t.unitsReturned, t.unitsOrdered, t.rate])).toEqual([
      ['SKU-A', 3, 5, 0.6],
      ['SKU-B', 1, 2, 0.5],
      ['SKU-C', 1, 5, 0.2],
    ]);
  });

  it('ranks the reasons by units returned', () => {
    expect(overview.reasons).toEqual([
      { reason: 'Too small', units: 3, returns: 2 },
      { reason: 'Wrong item', units: 2, returns: 1 },
      { reason: 'Changed my mind', units: 1, returns: 1 },
      { reason: 'Damaged', units: 1, returns: 1 },
    ]);
  });

  it('takes the median time from opening to the last completion', () => {
    // R2 12 h, R1 48 h, R9 16 days.
    expect(overview.completion).toEqual({ completed: 3, medianSeconds: 48 * 3600 });
  });

  it('refuses a period that ends before it starts or spans more than a year', async () => {
    await expect(returnsOverview(db.prisma, storeId, { from: TO, to: FROM })).rejects.toThrow(/after from/);
    await expect(returnsOverview(db.prisma, storeId, { from: new Date('2025-01-01T00:00:00Z'), to: TO })).rejects.toThrow(/at most/);
  });
});
