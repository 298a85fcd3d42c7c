// The total stored on a return (what the queue sorts by) is the one Return.total computes, after
// every write that changes what it is made of: creation, items removed, rejected at processing
// and given back by a reset, an imported return, and the order rewritten by a sync. Written by
// the database's triggers, so checked against the domain's own arithmetic on a real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { newId, newReturnId } from '../../src/domain/ids.ts';
import { Decimal } from '../../src/domain/money.ts';
import { createOrder, parseOrder, rewriteOrder, type OrderInput } from '../../src/domain/orders.ts';
import { ITEM_AMOUNT_SELECT, returnTotals } from '../../src/domain/returns/amounts.ts';
import { createReturn } from '../../src/domain/returns/creation.ts';
import { processReturnItems, removeReturnItems, resetReturn } from '../../src/domain/returns/operations.ts';
import { createStore } from '../../src/domain/stores.ts';
import { createTestDatabase } from '../support/db.ts';

let db: Database;
let storeId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  storeId = (await createStore(db.prisma, { name: 'Return totals' })).id;
});
afterAll(async () => db?.close());

/** The stored total beside the one the domain computes from the items still on the return. */
async function totals(returnId: string): Promise<{ stored: string; computed: string }> {
  const ret = await db.prisma.return.findUniqueOrThrow({
    where: { id: returnId },
    select: { total: true, items: { select: { removedAt: true, ...ITEM_AMOUNT_SELECT } } },
  });
  return { stored: new Decimal(ret.total).toFixed(4), computed: returnTotals(ret.items).total.toFixed(4) };
}

let orderSeq = 0;
function orderInput(overrides: Partial<OrderInput> = {}): OrderInput {
  return {
    orderId: `total-${++orderSeq}`,
    createdAt: '2026-11-01T10:00:00Z',
    // A discount that does not divide evenly by the units and a tax share that needs rounding.
    lineItems: [
      { id: 'a', productId: 'p-a', title: 'Jacket', quantity: 3, price: '33.35', discount: '10.00' },
      { id: 'b', productId: 'p-b', title: 'Scarf', quantity: 2, price: '12.99' },
    ],
    subtotalPrice: '116.03',
    totalTax: '9.87',
    ...overrides,
  };
}

describe('the stored total of a return', () => {
  it('is Return.total when created, and follows items removed, rejected at processing and given back by a reset', async () => {
    const order = await createOrder(db.prisma, storeId, orderInput());
    const { id } = await createReturn(db.prisma, storeId, {
      orderId: order.id,
      items: [
        { lineItemId: 'a', quantity: 2 },
        { lineItemId: 'b', quantity: 1, outcome: 'credit' },
      ],
    });
    const created = await totals(id);
    expect(created.stored).toBe(created.computed);
    expect(Number(created.stored)).toBeGreaterThan(0);

    const items = await db.prisma.returnItem.findMany({ where: { returnId: id }, orderBy: { quantity: 'desc' } });
    await removeReturnItems(db.prisma, storeId, { id }, [items[1].id]);
    const removed = await totals(id);
    expect(removed.stored).toBe(removed.computed);
    expect(removed.stored).not.toBe(created.stored);

    await resetReturn(db.prisma, storeId, { id });
    expect((await totals(id)).stored).toBe(created.stored);

    await processReturnItems(db.prisma, storeId, { id }, [
      { itemId: items[0].id, reject: true },
      { itemId: items[1].id, reject: false },
    ]);
    const processed = await totals(id);
    expect(processed.stored).toBe(processed.computed);
    expect(processed.stored).not.toBe(created.stored);
  });

  it("follows a sync that rewrites the order's prices, discount, tax and currency", async () => {
    const input = orderInput();
    const order = await createOrder(db.prisma, storeId, input);
    const { id } = await createReturn(db.prisma, storeId, { orderId: order.id, items: [{ lineItemId: 'a', quantity: 1 }, { lineItemId: 'b', quantity: 2 }] });
    const before = await totals(id);
    const rewrites: Partial<OrderInput>[] = [
      { lineItems: [{ ...input.lineItems[0], price: '40.00' }, input.lineItems[1]] },
      { lineItems: [{ ...input.lineItems[0], price: '40.00', discount: '7.77' }, input.lineItems[1]] },
      { lineItems: [{ ...input.lineItems[0], price: '40.00', discount: '7.77' }, input.lineItems[1]], totalTax: '3.33', subtotalPrice: '99.99' },
      // A currency without minor units: the shares are rounded to whole yen.
      { lineItems: [{ ...input.lineItems[0], price: '4001' }, { ...input.lineItems[1], price: '1299' }], totalTax: '1001', subtotalPrice: '14000', currency: 'JPY' },
      // Three digits: the shares are rounded to the thousandth.
      { lineItems: [{ ...input.lineItems[0], price: '40.001', discount: '1.001' }, input.lineItems[1]], totalTax: '2.222', subtotalPrice: '70', currency: 'KWD' },
    ];
    let previous = before.stored;
    for (const rewrite of rewrites) {
      const stored = await db.prisma.order.findUniqueOrThrow({ where: { id: order.id } });
      await db.prisma.$transaction((tx) => rewriteOrder(tx, storeId, stored, parseOrder({ ...input, ...rewrite })));
      const after = await totals(id);
      expect(after.stored, JSON.stringify(rewrite)).toBe(after.computed);
      expect(after.stored, JSON.stringify(rewrite)).not.toBe(previous);
      previous = after.stored;
    }
  });

  it("is an imported return's units at their unit price", async () => {
    const id = newReturnId();
    await db.prisma.return.create({
      data: {
        id,
        storeId,
        currency: 'EUR',
        items: {
          create: [
            { id: newId('returnItem'), quantity: 3, unitPrice: '19.99', title: 'Boot' },
            { id: newId('returnItem'), quantity: 1, unitPrice: null, title: 'Lace' },
          ],
        },
      },
    });
    expect(await totals(id)).toEqual({ stored: '59.9700', computed: '59.9700' });
  });

  it("is not the return's history: the audit trail records the return's creation, not its total's updates", async () => {
    const order = await createOrder(db.prisma, storeId, orderInput());
    const { id } = await createReturn(db.prisma, storeId, { orderId: order.id, items: [{ lineItemId: 'a', quantity: 1 }, { lineItemId: 'b', quantity: 1 }] });
    const [item] = await db.prisma.returnItem.findMany({ where: { returnId: id } });
    await removeReturnItems(db.prisma, storeId, { id }, [item.id]);
    const entries = await db.prisma.auditEntry.findMany({ where: { objectKind: 'Return', objectId: id } });
    expect(entries.map((entry) => entry.action)).toContain('INSERT');
    expect(entries.filter((entry) => entry.action === 'UPDATE' && Object.hasOwn(entry.changes as object, 'total'))).toEqual([]);
  });
});
