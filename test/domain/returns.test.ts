// The returns domain on a real database: the status machine, the money of a returned
// line, creation with claimed quantities and idempotency keys (also under
// concurrency), each operation's writes, history and events, the four ways of naming
// a return, and advance-shipping-notice rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { Conflict, Invalid, NotFound, UnprocessableState } from '../../src/domain/errors.ts';
import { itemRefund, returnItemAmounts } from '../../src/domain/returns/amounts.ts';
import { listAsnRows } from '../../src/domain/returns/asn.ts';
import { createReturn } from '../../src/domain/returns/creation.ts';
import { findReturnId } from '../../src/domain/returns/locking.ts';
import { addReturnNote, flagReturn, processReturn, rejectReturn, removeReturnItems, resetReturn } from '../../src/domain/returns/operations.ts';
import { ALLOWED_FROM, canApply, type ReturnOperation } from '../../src/domain/returns/status.ts';
import { Decimal } from '../../src/domain/money.ts';
import { createStore } from '../../src/domain/stores.ts';
import type { ReturnStatus } from '../../src/generated/prisma/client.ts';
import { createTestDatabase } from '../support/db.ts';
import { createTestOrder, insertTestReturn, setReturnTimes } from '../support/returnFixtures.ts';
import { rowCounts } from '../support/counts.ts';

let db: Database;
let storeId: string;
let otherStoreId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  storeId = (await createStore(db.prisma, { name: 'Returns domain' })).id;
  otherStoreId = (await createStore(db.prisma, { name: 'Another store' })).id;
});
afterAll(async () => db?.close());

const ALL_STATUSES: ReturnStatus[] = ['open', 'in_transit', 'delivered', 'needs_review', 'in_review', 'flagged', 'complete', 'rejected', 'deleted'];

async function events(subjectId: string) {
  return db.prisma.event.findMany({ where: { subjectId }, orderBy: { createdAt: 'asc' } });
}

describe('the status machine', () => {
  // Written out rather than derived, so a change to the machine has to change this table too.
  const expected: Record<ReturnOperation, ReturnStatus[]> = {
    process: ['open', 'in_transit', 'delivered', 'needs_review', 'in_review', 'flagged'],
    flag: ['open', 'in_transit', 'delivered', 'needs_review', 'in_review'],
    reject: ['open', 'in_transit', 'delivered', 'needs_review', 'in_review', 'flagged'],
    reset: ['open', 'in_transit', 'delivered', 'needs_review', 'in_review', 'flagged', 'complete', 'rejected'],
    delete: ['open', 'in_transit', 'delivered', 'needs_review', 'in_review', 'flagged', 'complete', 'rejected'],
    remove: ['open', 'in_transit', 'delivered', 'needs_review', 'in_review', 'flagged'],
    note: ['open', 'in_transit', 'delivered', 'needs_review', 'in_review', 'flagged', 'complete', 'rejected'],
  };
  for (const operation of Object.keys(expected) as ReturnOperation[]) {
    it(`${operation} starts only from ${expected[operation].join(', ')}`, () => {
      for (const status of ALL_STATUSES) expect(canApply(operation, status), `${operation} from ${status}`).toBe(expected[operation].includes(status));
      expect([...ALLOWED_FROM[operation]].sort()).toEqual([...expected[operation]].sort());
    });
  }
  // The reference's PUT /returns/{id}/status sets `deleted` from any status, completed ones included.
  it('complete and rejected are left only by reset or delete; deleted by nothing', () => {
    const leaving = (status: ReturnStatus) => (Object.keys(ALLOWED_FROM) as ReturnOperation[]).filter((op) => op !== 'note' && canApply(op, status));
    expect(leaving('complete')).toEqual(['reset', 'delete']);
    expect(leaving('rejected')).toEqual(['reset', 'delete']);
    expect(leaving('deleted')).toEqual([]);
  });
});

describe('money of a returned line', () => {
  const line = (price: string | null, discount: string | null, quantity: number, order: { currency?: string; totalTax?: string | null; subtotalPrice?: string | null } = {}) => ({
    price: price === null ? null : new Decimal(price),
    discount: discount === null ? null : new Decimal(discount),
    quantity,
    order: {
      currency: order.currency ?? 'USD',
      totalTax: order.totalTax ? new Decimal(order.totalTax) : null,
      subtotalPrice: order.subtotalPrice ? new Decimal(order.subtotalPrice) : null,
    },
  });

  it('pro-rates the line discount and the order tax to the returned units', () => {
    const amounts = returnItemAmounts({ quantity: 2, orderLineItem: line('10.00', '3.00', 3, { totalTax: '1.60', subtotalPrice: '16.00' }) });
    expect(amounts.unitPrice.toFixed(2)).toBe('10.00');
    expect(amounts.discount.toFixed(2)).toBe('2.00');
    // net 18.00 of a 16.00 subtotal carrying 1.60 tax
    expect(amounts.tax.toFixed(2)).toBe('1.80');
    expect(amounts.amount.toFixed(2)).toBe('19.80');
  });

  it("rounds half up to the currency's digits and never through floats", () => {
    const yen = returnItemAmounts({ quantity: 1, orderLineItem: line('1000', '100', 3, { currency: 'JPY' }) });
    expect(yen.discount.toFixed()).toBe('33');
    expect(yen.amount.toFixed()).toBe('967');
    const cents = returnItemAmounts({ quantity: 1, orderLineItem: line('0.10', null, 1, { totalTax: '0.05', subtotalPrice: '0.20' }) });
    expect(cents.tax.toFixed()).toBe('0.03');
    expect(cents.amount.toFixed()).toBe('0.13');
  });

  it('treats a missing price, discount or tax as zero', () => {
    const amounts = returnItemAmounts({ quantity: 1, orderLineItem: line(null, null, 1, { totalTax: '2.00' }) });
    expect(amounts.amount.toFixed()).toBe('0');
  });

  it('refunds nothing for exchange and keep, and the recorded amount once processed', () => {
    const source = { quantity: 1, orderLineItem: line('20.00', null, 1) };
    expect(itemRefund({ ...source, outcome: 'refund', refundAmount: null }).toFixed(2)).toBe('20.00');
    expect(itemRefund({ ...source, outcome: 'credit', refundAmount: new Decimal('18.00') }).toFixed(2)).toBe('18.00');
    expect(itemRefund({ ...source, outcome: 'exchange', refundAmount: null }).toFixed()).toBe('0');
    expect(itemRefund({ ...source, outcome: 'keep', refundAmount: null }).toFixed()).toBe('0');
  });
});

describe('createReturn', () => {
  it('creates an open return with its items, history and a return.created event', async () => {
    const order = await createTestOrder(db, storeId, { lines: [{ quantity: 2 }, { quantity: 1 }] });
    const { id, replayed } = await createReturn(db.prisma, storeId, {
      orderId: order.id,
      items: [
        { lineItemId: 'line-1', quantity: 2, reason: 'too small' },
        { lineItemId: order.lineItems[1].id, quantity: 1, outcome: 'credit' },
      ],
      type: 'claim',
    });
    expect(replayed).toBe(false);
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    const stored = await db.prisma.return.findUniqueOrThrow({ where: { id }, include: { items: true, statusChanges: true } });
    expect(stored).toMatchObject({ storeId, orderId: order.id, status: 'open', type: 'claim', currency: 'USD' });
    expect(stored.number).toBeGreaterThan(0);
    expect(stored.items.map((i) => [i.orderLineItemId, i.quantity, i.outcome, i.reason]).sort()).toEqual(
      [
        [order.lineItems[0].id, 2, 'refund', 'too small'],
        [order.lineItems[1].id, 1, 'credit', null],
      ].sort(),
    );
    expect(stored.statusChanges).toMatchObject([{ operation: 'create', fromStatus: null, toStatus: 'open' }]);
    expect((await events(id)).map((e) => e.topic)).toEqual(['return.created']);
  });

  it('gives every return a new, larger compatibility number', async () => {
    const order = await createTestOrder(db, storeId, { lines: [{ quantity: 5 }] });
    const first = await createReturn(db.prisma, storeId, { orderId: order.id, items: [{ lineItemId: 'line-1', quantity: 1 }] });
    const second = await createReturn(db.prisma, storeId, { orderId: order.id, items: [{ lineItemId: 'line-1', quantity: 1 }] });
    const [a, b] = await Promise.all([first, second].map((r) => db.prisma.return.findUniqueOrThrow({ where: { id: r.id } })));
    expect(b.number).toBeGreaterThan(a.number);
  });

  it('reports every invalid field at once and writes nothing', async () => {
    const before = await rowCounts(db);
    const error = await createReturn(db.prisma, storeId, {
      orderId: '',
      items: [
        { lineItemId: '', quantity: 0 },
        { lineItemId: 'a', quantity: 1.5, reason: 'x'.repeat(256) },
        { lineItemId: 'a', quantity: 1 },
      ],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Invalid);
    expect((error as Invalid).issues.map((i) => i.path)).toEqual([
      'orderId',
      'items.0.lineItemId',
      'items.0.quantity',
      'items.1.quantity',
      'items.1.reason',
      'items.2.lineItemId',
    ]);
    expect(await rowCounts(db)).toEqual(before);
  });

  it('refuses an empty item list and a bad idempotency key', async () => {
    await expect(createReturn(db.prisma, storeId, { orderId: 'ord_x', items: [] })).rejects.toMatchObject({ issues: [{ path: 'items' }] });
    const order = await createTestOrder(db, storeId);
    await expect(
      createReturn(db.prisma, storeId, { orderId: order.id, items: [{ lineItemId: 'line-1', quantity: 1 }] }, 'k'.repeat(256)),
    ).rejects.toMatchObject({ issues: [{ path: 'idempotencyKey' }] });
  });

  it("is NotFound for an unknown order and for another store's order", async () => {
    await expect(createReturn(db.prisma, storeId, { orderId: 'ord_missing', items: [{ lineItemId: 'x', quantity: 1 }] })).rejects.toBeInstanceOf(NotFound);
    const foreign = await createTestOrder(db, otherStoreId);
    await expect(createReturn(db.prisma, storeId, { orderId: foreign.id, items: [{ lineItemId: 'line-1', quantity: 1 }] })).rejects.toBeInstanceOf(
      NotFound,
    );
  });

  it('refuses a line item the order does not have, and the same line named twice by both its ids', async () => {
    const order = await createTestOrder(db, storeId);
    await expect(createReturn(db.prisma, storeId, { orderId: order.id, items: [{ lineItemId: 'nope', quantity: 1 }] })).rejects.toMatchObject({
      code: 'INVALID',
      issues: [{ path: 'items.0.lineItemId' }],
    });
    await expect(
      createReturn(db.prisma, storeId, {
        orderId: order.id,
        items: [
          { lineItemId: 'line-1', quantity: 1 },
          { lineItemId: order.lineItems[0].id, quantity: 1 },
        ],
      }),
    ).rejects.toBeInstanceOf(Invalid);
  });

  it('is a Conflict when the quantity exceeds what was ordered minus what live returns claim', async () => {
    const order = await createTestOrder(db, storeId, { lines: [{ quantity: 3 }, { quantity: 1 }] });
    await createReturn(db.prisma, storeId, { orderId: order.id, items: [{ lineItemId: 'line-1', quantity: 2 }] });
    const error = await createReturn(db.prisma, storeId, {
      orderId: order.id,
      items: [
        { lineItemId: 'line-2', quantity: 1 },
        { lineItemId: 'line-1', quantity: 2 },
      ],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Conflict);
    expect((error as Conflict).issues).toEqual([{ path: 'items.1.quantity', message: expect.stringContaining('only 1') }]);
    // exactly what is left is fine
    await createReturn(db.prisma, storeId, { orderId: order.id, items: [{ lineItemId: 'line-1', quantity: 1 }] });
  });

  it('does not count rejected returns or removed items as claimed', async () => {
    const order = await createTestOrder(db, storeId, { lines: [{ quantity: 1 }, { quantity: 1 }] });
    await insertTestReturn(db, storeId, order, { status: 'rejected', items: [{ lineIndex: 0 }] });
    const partly = await insertTestReturn(db, storeId, order, { items: [{ lineIndex: 0 }, { lineIndex: 1 }] });
    await expect(createReturn(db.prisma, storeId, { orderId: order.id, items: [{ lineItemId: 'line-2', quantity: 1 }] })).rejects.toBeInstanceOf(Conflict);
    await removeReturnItems(db.prisma, storeId, { id: partly.id }, [partly.itemIds[1]]);
    await createReturn(db.prisma, storeId, { orderId: order.id, items: [{ lineItemId: 'line-2', quantity: 1 }] });
  });
});

describe('createReturn with an idempotency key', () => {
  it('replays the same request and refuses another request with the key', async () => {
    const order = await createTestOrder(db, storeId, { lines: [{ quantity: 4 }] });
    const input = { orderId: order.id, items: [{ lineItemId: 'line-1', quantity: 1, reason: 'damaged' }] };
    const first = await createReturn(db.prisma, storeId, input, 'key-replay');
    const again = await createReturn(db.prisma, storeId, { ...input, type: 'return', items: [{ ...input.items[0], outcome: 'refund' }] }, 'key-replay');
    expect(again).toEqual({ id: first.id, replayed: true });
    const before = await rowCounts(db);
    await expect(
      createReturn(db.prisma, storeId, { ...input, items: [{ lineItemId: 'line-1', quantity: 2 }] }, 'key-replay'),
    ).rejects.toMatchObject({ code: 'CONFLICT', issues: [{ path: 'idempotencyKey' }] });
    expect(await rowCounts(db)).toEqual(before);
    expect(await db.prisma.return.count({ where: { orderId: order.id } })).toBe(1);
  });

  it('keeps keys per store', async () => {
    const mine = await createTestOrder(db, storeId);
    const theirs = await createTestOrder(db, otherStoreId);
    const a = await createReturn(db.prisma, storeId, { orderId: mine.id, items: [{ lineItemId: 'line-1', quantity: 1 }] }, 'shared-key');
    const b = await createReturn(db.prisma, otherStoreId, { orderId: theirs.id, items: [{ lineItemId: 'line-1', quantity: 1 }] }, 'shared-key');
    expect(b.replayed).toBe(false);
    expect(b.id).not.toBe(a.id);
  });

  it('makes one return of concurrent duplicates', async () => {
    const order = await createTestOrder(db, storeId, { lines: [{ quantity: 10 }] });
    const input = { orderId: order.id, items: [{ lineItemId: 'line-1', quantity: 1 }] };
    const results = await Promise.all(Array.from({ length: 6 }, () => createReturn(db.prisma, storeId, input, 'key-race')));
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    expect(await db.prisma.return.count({ where: { orderId: order.id } })).toBe(1);
    expect(await db.prisma.event.count({ where: { subjectId: results[0].id } })).toBe(1);
  });

  it('never over-claims an order line under concurrent creation', async () => {
    const order = await createTestOrder(db, storeId, { lines: [{ quantity: 2 }] });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, () => createReturn(db.prisma, storeId, { orderId: order.id, items: [{ lineItemId: 'line-1', quantity: 1 }] })),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(2);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(Conflict);
  });
});

describe('operations', () => {
  it('names the return in refusals by its number, or by its order when the caller named it so; never by its svc_id', async () => {
    const order = await createTestOrder(db, storeId);
    const ret = await insertTestReturn(db, storeId, order, { status: 'complete' });
    await expect(processReturn(db.prisma, storeId, { id: ret.id })).rejects.toThrow(`return #${ret.number} is complete`);
    await expect(processReturn(db.prisma, storeId, { number: ret.number })).rejects.toThrow(`return #${ret.number} is complete`);
    await expect(processReturn(db.prisma, storeId, { orderName: order.name })).rejects.toThrow(`the return of order ${order.name} is complete`);
    await expect(processReturn(db.prisma, storeId, { id: ret.id })).rejects.not.toThrow(ret.id);
  });

  it('process completes the return and records refunds and credits', async () => {
    const order = await createTestOrder(db, storeId, {
      lines: [{ price: '30.00' }, { price: '20.00' }, { price: '10.00' }],
      totalTax: '6.00',
      subtotalPrice: '60.00',
    });
    const ret = await insertTestReturn(db, storeId, order, {
      items: [
        { lineIndex: 0, outcome: 'refund' },
        { lineIndex: 1, outcome: 'credit' },
        { lineIndex: 2, outcome: 'exchange' },
      ],
    });
    await processReturn(db.prisma, storeId, { number: ret.number });
    const stored = await db.prisma.return.findUniqueOrThrow({ where: { id: ret.id }, include: { items: true, statusChanges: true } });
    expect(stored.status).toBe('complete');
    expect(stored.totalRefund.toFixed(2)).toBe('33.00');
    expect(stored.totalStoreCredit.toFixed(2)).toBe('22.00');
    expect(Object.fromEntries(stored.items.map((i) => [i.outcome, i.refundAmount?.toFixed(2) ?? null]))).toEqual({
      refund: '33.00',
      credit: '22.00',
      exchange: null,
    });
    expect(stored.statusChanges).toMatchObject([{ operation: 'process', fromStatus: 'open', toStatus: 'complete' }]);
    const [event] = await events(ret.id);
    expect(event).toMatchObject({ topic: 'return.updated', data: { id: ret.id, number: ret.number, status: 'complete', previousStatus: 'open', operation: 'process' } });
  });

  it('flag and reject move to flagged and rejected, each with history and an event', async () => {
    const order = await createTestOrder(db, storeId);
    const ret = await insertTestReturn(db, storeId, order);
    await flagReturn(db.prisma, storeId, { id: ret.id });
    await rejectReturn(db.prisma, storeId, { id: ret.id });
    const stored = await db.prisma.return.findUniqueOrThrow({ where: { id: ret.id }, include: { statusChanges: { orderBy: { createdAt: 'asc' } } } });
    expect(stored.status).toBe('rejected');
    expect(stored.statusChanges.map((c) => [c.operation, c.fromStatus, c.toStatus])).toEqual([
      ['flag', 'open', 'flagged'],
      ['reject', 'flagged', 'rejected'],
    ]);
    expect((await events(ret.id)).map((e) => (e.data as { operation: string }).operation)).toEqual(['flag', 'reject']);
  });

  it('reset restores the items the return was created with and clears what was refunded', async () => {
    const order = await createTestOrder(db, storeId, { lines: [{}, {}, {}] });
    const ret = await insertTestReturn(db, storeId, order);
    await removeReturnItems(db.prisma, storeId, { id: ret.id }, [ret.itemIds[0], ret.itemIds[2]]);
    await processReturn(db.prisma, storeId, { id: ret.id });
    await resetReturn(db.prisma, storeId, { id: ret.id });
    const stored = await db.prisma.return.findUniqueOrThrow({ where: { id: ret.id }, include: { items: true } });
    expect(stored.status).toBe('open');
    expect(stored.totalRefund.toFixed()).toBe('0');
    expect(stored.items.map((i) => [i.removedAt, i.refundAmount])).toEqual([
      [null, null],
      [null, null],
      [null, null],
    ]);
  });

  it('reset is refused while another return claims the units again, and changes nothing', async () => {
    const order = await createTestOrder(db, storeId, { lines: [{ quantity: 1 }] });
    const rejected = await insertTestReturn(db, storeId, order, { status: 'rejected' });
    await createReturn(db.prisma, storeId, { orderId: order.id, items: [{ lineItemId: 'line-1', quantity: 1 }] });
    const before = await rowCounts(db);
    await expect(resetReturn(db.prisma, storeId, { id: rejected.id })).rejects.toBeInstanceOf(UnprocessableState);
    expect(await rowCounts(db)).toEqual(before);
    expect((await db.prisma.return.findUniqueOrThrow({ where: { id: rejected.id } })).status).toBe('rejected');
  });

  it('remove drops refund and credit items, keeps the last one, and refuses the rest without writing', async () => {
    const order = await createTestOrder(db, storeId, { lines: [{}, {}, {}] });
    const ret = await insertTestReturn(db, storeId, order, {
      items: [
        { lineIndex: 0, outcome: 'refund' },
        { lineIndex: 1, outcome: 'credit' },
        { lineIndex: 2, outcome: 'exchange' },
      ],
    });
    const before = await rowCounts(db);
    await expect(removeReturnItems(db.prisma, storeId, { id: ret.id }, [ret.itemIds[2]])).rejects.toBeInstanceOf(UnprocessableState);
    await expect(removeReturnItems(db.prisma, storeId, { id: ret.id }, ['rli_unknown'])).rejects.toMatchObject({ code: 'INVALID', issues: [{ path: 'lineItemIds' }] });
    await expect(removeReturnItems(db.prisma, storeId, { id: ret.id }, [])).rejects.toBeInstanceOf(Invalid);
    expect(await rowCounts(db)).toEqual(before);

    await removeReturnItems(db.prisma, storeId, { id: ret.id }, [ret.itemIds[0]]);
    await expect(removeReturnItems(db.prisma, storeId, { id: ret.id }, [ret.itemIds[0]])).rejects.toThrow(/already removed/);

    const order2 = await createTestOrder(db, storeId, { lines: [{}, {}] });
    const two = await insertTestReturn(db, storeId, order2);
    await expect(removeReturnItems(db.prisma, storeId, { id: two.id }, two.itemIds)).rejects.toThrow(/last remaining/);
    await removeReturnItems(db.prisma, storeId, { id: two.id }, [two.itemIds[0]]);
    await expect(removeReturnItems(db.prisma, storeId, { id: two.id }, [two.itemIds[1]])).rejects.toThrow(/last remaining/);
    const items = await db.prisma.returnItem.findMany({ where: { returnId: two.id }, orderBy: { id: 'asc' } });
    expect(items.filter((i) => i.removedAt === null).map((i) => i.id)).toEqual([two.itemIds[1]]);
    expect((await events(two.id)).map((e) => (e.data as { operation: string }).operation)).toEqual(['remove']);
  });

  it('notes take 1 to 255 characters and touch the return', async () => {
    const order = await createTestOrder(db, storeId);
    const ret = await insertTestReturn(db, storeId, order, { updatedAt: new Date('2026-01-01T00:00:00Z') });
    for (const content of ['', '   ', 'x'.repeat(256)]) {
      await expect(addReturnNote(db.prisma, storeId, { id: ret.id }, content)).rejects.toMatchObject({ code: 'INVALID', issues: [{ path: 'content' }] });
    }
    const { noteId } = await addReturnNote(db.prisma, storeId, { id: ret.id }, 'x'.repeat(255));
    expect(noteId).toMatch(/^rnt_/);
    const stored = await db.prisma.return.findUniqueOrThrow({ where: { id: ret.id } });
    expect(stored.updatedAt.getTime()).toBeGreaterThan(new Date('2026-01-01T00:00:00Z').getTime());
    expect((await events(ret.id)).map((e) => e.data)).toEqual([{ id: ret.id, number: ret.number, status: 'open', operation: 'note', noteId }]);
  });

  it('a refused operation writes nothing, not even an event', async () => {
    const order = await createTestOrder(db, storeId);
    const ret = await insertTestReturn(db, storeId, order, { status: 'complete' });
    const before = await rowCounts(db);
    await expect(processReturn(db.prisma, storeId, { id: ret.id })).rejects.toBeInstanceOf(UnprocessableState);
    await expect(flagReturn(db.prisma, storeId, { id: ret.id })).rejects.toBeInstanceOf(UnprocessableState);
    await expect(rejectReturn(db.prisma, storeId, { id: ret.id })).rejects.toBeInstanceOf(UnprocessableState);
    expect(await rowCounts(db)).toEqual(before);
  });

  it('serialises concurrent operations on one return: exactly one of two process calls wins', async () => {
    const order = await createTestOrder(db, storeId);
    const ret = await insertTestReturn(db, storeId, order);
    const outcomes = await Promise.allSettled([processReturn(db.prisma, storeId, { id: ret.id }), processReturn(db.prisma, storeId, { id: ret.id })]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(await db.prisma.returnStatusChange.count({ where: { returnId: ret.id } })).toBe(1);
  });
});

describe('findReturnId', () => {
  it('finds one return by number, svc_id, order name and order id', async () => {
    const order = await createTestOrder(db, storeId);
    const ret = await insertTestReturn(db, storeId, order);
    for (const ref of [{ number: ret.number }, { id: ret.id }, { orderName: order.name }, { orderId: order.id }]) {
      expect(await findReturnId(db.prisma, storeId, ref)).toBe(ret.id);
    }
    expect(await findReturnId(db.prisma, storeId, { number: ret.number, id: ret.id, orderName: order.name, orderId: order.id })).toBe(ret.id);
  });

  it("takes an order's newest return", async () => {
    const order = await createTestOrder(db, storeId, { lines: [{}, {}] });
    await insertTestReturn(db, storeId, order, { items: [{ lineIndex: 0 }], createdAt: new Date('2026-01-01T00:00:00Z') });
    const newest = await insertTestReturn(db, storeId, order, { items: [{ lineIndex: 1 }], createdAt: new Date('2026-01-02T00:00:00Z') });
    expect(await findReturnId(db.prisma, storeId, { orderId: order.id })).toBe(newest.id);
    expect(await findReturnId(db.prisma, storeId, { orderName: order.name })).toBe(newest.id);
  });

  it("is NotFound for unknown references and another store's return", async () => {
    const foreignOrder = await createTestOrder(db, otherStoreId);
    const foreign = await insertTestReturn(db, otherStoreId, foreignOrder);
    for (const ref of [{ number: 999_999 }, { id: 'ffffffffffffffffffffffff' }, { orderName: '#nope' }, { orderId: 'ord_nope' }, { id: foreign.id }, { number: foreign.number }, { orderId: foreignOrder.id }]) {
      await expect(findReturnId(db.prisma, storeId, ref), JSON.stringify(ref)).rejects.toBeInstanceOf(NotFound);
    }
  });

  it('is Invalid when given nothing, a bad number, or criteria naming different returns', async () => {
    const a = await insertTestReturn(db, storeId, await createTestOrder(db, storeId));
    const otherOrder = await createTestOrder(db, storeId);
    const b = await insertTestReturn(db, storeId, otherOrder);
    await expect(findReturnId(db.prisma, storeId, {})).rejects.toBeInstanceOf(Invalid);
    await expect(findReturnId(db.prisma, storeId, { number: -3 })).rejects.toMatchObject({ issues: [{ path: 'number' }] });
    await expect(findReturnId(db.prisma, storeId, { number: a.number, id: b.id })).rejects.toMatchObject({ code: 'INVALID', issues: [{ path: 'id' }] });
    await expect(findReturnId(db.prisma, storeId, { number: a.number, orderId: otherOrder.id, orderName: otherOrder.name })).rejects.toMatchObject({
      issues: [{ path: 'orderName' }, { path: 'orderId' }],
    });
    await expect(findReturnId(db.prisma, storeId, { id: a.id, orderId: 'ord_unknown' })).rejects.toBeInstanceOf(Invalid);
  });
});

describe('advance shipping notice rows', () => {
  it('lists each remaining item of the returns created in [from, to), oldest return first', async () => {
    const asnStore = (await createStore(db.prisma, { name: 'ASN store' })).id;
    const order = await createTestOrder(db, asnStore, { lines: [{ title: 'Shirt', sku: 'SH-1' }, { title: 'Hat', sku: 'HT-1' }, { title: 'Sock', sku: null }] });
    const from = new Date('2026-03-01T00:00:00Z');
    const to = new Date('2026-03-02T00:00:00Z');
    const atFrom = await insertTestReturn(db, asnStore, order, { items: [{ lineIndex: 0 }, { lineIndex: 1 }, { lineIndex: 2 }], createdAt: from });
    await removeReturnItems(db.prisma, asnStore, { id: atFrom.id }, [atFrom.itemIds[1]]);
    const order2 = await createTestOrder(db, asnStore);
    const justBefore = await insertTestReturn(db, asnStore, order2, { items: [{ lineIndex: 0 }], createdAt: new Date(from.getTime() - 1) });
    const atTo = await insertTestReturn(db, asnStore, order2, { items: [{ lineIndex: 1 }], createdAt: to });
    const deleted = await insertTestReturn(db, asnStore, await createTestOrder(db, asnStore), { status: 'deleted', createdAt: new Date('2026-03-01T12:00:00Z') });
    const lastMs = await insertTestReturn(db, asnStore, await createTestOrder(db, asnStore), { items: [{ lineIndex: 0 }], createdAt: new Date(to.getTime() - 1), status: 'rejected' });

    const rows = await listAsnRows(db.reads, asnStore, { from, to });
    expect(rows.map((r) => [r.returnId, r.title])).toEqual([
      [atFrom.id, 'Shirt'],
      [atFrom.id, 'Sock'],
      [lastMs.id, 'Item 1'],
    ]);
    expect(rows[0]).toMatchObject({ returnNumber: atFrom.number, returnItemId: atFrom.itemIds[0], orderId: order.id, orderName: order.name, sku: 'SH-1', status: 'open' });
    expect(rows[2].status).toBe('rejected');
    expect(rows.some((r) => [justBefore.id, atTo.id, deleted.id].includes(r.returnId))).toBe(false);
    await setReturnTimes(db, justBefore.id, { createdAt: from });
    expect((await listAsnRows(db.reads, asnStore, { from, to })).filter((r) => r.returnId === justBefore.id)).toHaveLength(1);
    await expect(listAsnRows(db.reads, asnStore, { from: to, to: from })).rejects.toBeInstanceOf(Invalid);
  });
});
