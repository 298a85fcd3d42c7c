// The one-statement reader (src/db/reads) against Prisma itself: for every shape of read
// the schema makes (nested include and select, filters, relation filters and orders,
// cursors forward and backward, counts) it must answer exactly Prisma's rows, in Prisma's
// order, with timestamps, amounts and 64-bit integers as text (toPlain), in ONE statement.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { UnsupportedRead } from '../../src/db/reads/compile.ts';
import { toPlain } from '../../src/db/reads/plain.ts';
import { seedDemo } from '../../src/domain/demo.ts';
import { Decimal } from '../../src/domain/money.ts';
import { newId } from '../../src/domain/ids.ts';
import { CLAIMING_RETURN_ITEMS } from '../../src/domain/returns/locking.ts';
import { createTestDatabase } from '../support/db.ts';
import { statementsDuring, statementsWithParamsDuring } from '../support/counts.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';

let db: Database;
let storeId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const seeded = await seedDemo(db.prisma);
  storeId = seeded.storeId;
  // Rows the demo lacks: amounts of 19 significant digits, null and tied sort values, a date column, 64-bit integers.
  const locationId = (await db.prisma.location.findFirstOrThrow({ where: { storeId } })).id;
  const products = await db.prisma.product.findMany({ where: { storeId }, select: { id: true } });
  for (const [i, product] of products.entries()) {
    await db.prisma.product.update({
      where: { id: product.id },
      data: {
        price: i % 2 ? '123456789012345.6789' : null,
        vendor: [null, 'Tied vendor', `Vendor ${i}`][i % 3],
        barcodes: i % 2 ? ['A', `B${i}`] : [],
        sku: `SKU-${i % 4}-${i}`,
      },
    });
  }
  for (let i = 0; i < 3; i++) {
    await db.prisma.inboundShipment.create({
      data: {
        id: newId('inboundShipment'),
        storeId,
        locationId,
        currency: 'EUR',
        freightCost: '0.0001',
        estimatedArrivalDate: i === 1 ? null : new Date(Date.UTC(2026, 11, 24 + i)),
      },
    });
  }
  for (let i = 0; i < 4; i++) {
    const order = await createTestOrder(db, storeId, { lines: [{ price: '19.99' }, { price: '5.00', quantity: 3 }], customerEmail: i === 0 ? null : `buyer${i}@example.com` });
    const created = await insertTestReturn(db, storeId, order, {
      status: (['open', 'flagged', 'complete', 'rejected'] as const)[i],
      items: [{ lineIndex: 0 }, { lineIndex: 1, quantity: 2, outcome: i % 2 ? 'credit' : 'refund' }],
    });
    if (i % 2) await db.prisma.returnNote.create({ data: { id: newId('returnNote'), returnId: created.id, content: `note ${i}` } });
    if (i === 3) await db.prisma.returnItem.update({ where: { id: created.itemIds[0] }, data: { removedAt: new Date() } });
  }
  const subscription = await db.prisma.webhookSubscription.create({
    data: { id: newId('webhookSubscription'), storeId, url: 'https://example.com/hook', topics: ['return.created'] },
  });
  const event = await db.prisma.event.create({ data: { id: newId('event'), storeId, topic: 'return.created', subjectId: 'x', data: { nested: { a: [1, 2.5] } } } });
  await db.prisma.webhookDelivery.create({ data: { id: newId('webhookDelivery'), eventId: event.id, subscriptionId: subscription.id, subjectId: 'x' } });
  // It seeds the demo data first (~7,000 statements, 40 to over 100 s by the machine's load), as demo.test.ts does with 300 s.
}, 300_000);
afterAll(async () => db?.close());

type Delegates = Record<string, { findMany(args?: object): Promise<unknown>; findFirst(args?: object): Promise<unknown>; findUnique(args: object): Promise<unknown>; count(args?: object): Promise<number> }>;

/** Prisma's answer and the reader's, and the statements the reader ran. */
async function both(model: string, method: 'findMany' | 'findFirst' | 'findUnique' | 'count', args: object) {
  const prisma = (db.prisma as unknown as Delegates)[model][method](args);
  const expected = toPlain(await prisma);
  let actual: unknown;
  const statements = await statementsDuring(db, async () => {
    actual = await (db.reads as unknown as Delegates)[model][method](args);
  });
  return { expected, actual, statements };
}

async function expectSame(model: string, method: 'findMany' | 'findFirst' | 'findUnique' | 'count', args: object) {
  const { expected, actual, statements } = await both(model, method, args);
  expect(actual).toEqual(expected);
  expect(statements).toHaveLength(1);
  return actual;
}

describe('reads answer what Prisma answers, in one statement', () => {
  it('a returns page with every relation the REST door reads', async () => {
    const rows = (await expectSame('return', 'findMany', {
      where: { storeId, status: { in: ['open', 'flagged', 'complete'] } },
      orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
      take: 21,
      include: {
        order: { include: { lineItems: { orderBy: { position: 'asc' }, include: { fulfillmentGroup: { include: { location: true } } } } } },
        items: {
          where: { removedAt: null },
          orderBy: [{ orderLineItem: { position: 'asc' } }, { position: 'asc' }, { id: 'asc' }],
          include: { orderLineItem: { select: { id: true, price: true, order: { select: { currency: true, totalTax: true } } } }, product: true },
        },
        destinationLocation: true,
        notes: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
        _count: { select: { items: true, notes: { where: { content: { contains: 'a' } } } } },
      },
    })) as unknown[];
    expect(rows.length).toBeGreaterThan(0);
  });

  it('a to-one relation back to the row a list belongs to reads that row, with no join of its own', async () => {
    const args = {
      where: { storeId },
      orderBy: { id: 'asc' },
      select: {
        id: true,
        currency: true,
        // Joined rows (a page's own relation, ordered by its columns) and correlated ones (a page of a relation).
        items: { orderBy: { id: 'asc' }, select: { id: true, return: { select: { currency: true, status: true } } } },
        order: { select: { lineItems: { take: 1, orderBy: { position: 'asc' }, select: { title: true, order: { select: { id: true, currency: true } } } } } },
      },
    };
    const { expected, actual, statements } = await both('return', 'findMany', args);
    expect(actual).toEqual(expected);
    expect(statements).toHaveLength(1);
    const rows = actual as { items: unknown[] }[];
    expect(rows.some((row) => row.items.length > 0)).toBe(true);
    expect(statements[0].match(/"Return" t\d+/g)).toHaveLength(1);
    expect(statements[0].match(/"Order" t\d+/g)).toHaveLength(1);
  });

  it('two lists leading back to the same row each join what they read of it in their own statement part', async () => {
    const back = { select: { id: true, order: { select: { id: true, currency: true } } } };
    await expectSame('return', 'findMany', {
      where: { storeId },
      orderBy: { id: 'asc' },
      select: {
        id: true,
        items: { orderBy: { id: 'asc' }, select: { id: true, return: back } },
        notes: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: { id: true, return: back } },
      },
    });
  });

  it('a list sorted by a to-one relation it also selects joins that relation once', async () => {
    const { expected, actual, statements } = await both('returnItem', 'findMany', {
      where: { return: { storeId } },
      orderBy: { id: 'asc' },
      select: {
        id: true,
        return: { select: { items: { orderBy: [{ orderLineItem: { position: 'desc' } }, { id: 'asc' }], select: { id: true, orderLineItem: { select: { position: true, title: true } } } } } },
      },
    });
    expect(actual).toEqual(expected);
    expect((actual as unknown[]).length).toBeGreaterThan(0);
    expect(statements[0].match(/"OrderLineItem" t\d+/g)).toHaveLength(1);
  });

  it('select mode, scalar lists, Json and 64-bit integers', async () => {
    await expectSame('product', 'findMany', {
      where: { storeId },
      select: { id: true, title: true, barcodes: true, tags: true, price: true, options: { select: { value: true, option: { select: { name: true, position: true } } } } },
      orderBy: { id: 'asc' },
    });
    await expectSame('event', 'findMany', { where: { storeId }, include: { deliveries: true } });
    await expectSame('webhookDelivery', 'findMany', { select: { id: true, sequence: true, createdAt: true, event: { select: { data: true } } } });
  });

  it('filters: equality, lists, ranges, text, negation, null, and their combinations', async () => {
    const where = [
      { storeId, title: { contains: 'TEE', mode: 'insensitive' } },
      { storeId, sku: { startsWith: 'SKU-1' } },
      { storeId, sku: { endsWith: '2', not: null } },
      { storeId, vendor: null },
      { storeId, vendor: { not: 'Tied vendor' } },
      { storeId, price: { gte: '100', lt: '123456789012345.68' } },
      { storeId, price: '123456789012345.6789' },
      { storeId, id: { notIn: ['none'] }, OR: [{ vendor: null }, { title: { equals: 'trail tee - red / s', mode: 'insensitive' } }] },
      { storeId, NOT: [{ vendor: null }, { price: null }] },
      { storeId, AND: [{ barcodes: { has: 'A' } }, { barcodes: { hasSome: ['B1', 'B3'] } }] },
      { storeId, barcodes: { isEmpty: true } },
      { storeId, barcodes: { hasEvery: ['A'] } },
      { storeId, title: { contains: '100%_\\' } },
      { storeId, createdAt: { lte: new Date() } },
    ];
    const sizes = [];
    for (const w of where) sizes.push(((await expectSame('product', 'findMany', { where: w, orderBy: { id: 'asc' } })) as unknown[]).length);
    // Each filter keeps some rows and drops others (the text one with `%`, `_` and `\\` matches nothing, as in Prisma).
    const all = await db.prisma.product.count({ where: { storeId } });
    expect(sizes.filter((n) => n > 0 && n < all).length).toBeGreaterThanOrEqual(where.length - 3);
  });

  it('relation filters: to-one is/isNot/null, to-many some/every/none', async () => {
    const where = [
      { storeId, order: { name: { startsWith: '#' } } },
      { storeId, order: { is: { customerEmail: { contains: '@' } } } },
      { storeId, order: { isNot: null } },
      { storeId, order: null },
      { storeId, items: { some: { quantity: { gt: 1 } } } },
      { storeId, items: { every: { removedAt: null } } },
      { storeId, items: { none: { outcome: 'credit' } } },
      { storeId, notes: { some: {} } },
    ];
    const sizes = [];
    for (const w of where) sizes.push(((await expectSame('return', 'findMany', { where: w, orderBy: { number: 'asc' }, select: { id: true, number: true } })) as unknown[]).length);
    const all = await db.prisma.return.count({ where: { storeId } });
    expect(sizes.filter((n) => n > 0 && n < all).length).toBeGreaterThanOrEqual(where.length - 3);
  });

  it('orders: nulls first and last, by a related column, the date column of a date type', async () => {
    await expectSame('inboundShipment', 'findMany', { where: { storeId }, orderBy: [{ estimatedArrivalDate: { sort: 'desc', nulls: 'last' } }, { id: 'asc' }] });
    await expectSame('inboundShipment', 'findMany', { where: { storeId }, orderBy: [{ estimatedArrivalDate: { sort: 'asc', nulls: 'first' } }, { id: 'desc' }] });
    await expectSame('product', 'findMany', { where: { storeId }, orderBy: [{ vendor: 'asc' }, { id: 'asc' }] });
    await expectSame('orderLineItem', 'findMany', { where: { order: { storeId } }, orderBy: [{ order: { name: 'desc' } }, { position: 'asc' }], select: { id: true, title: true } });
  });

  it('cursors and pages, forward and backward, at the root and inside a relation', async () => {
    const all = (await db.prisma.product.findMany({ where: { storeId }, orderBy: [{ vendor: 'asc' }, { id: 'asc' }], select: { id: true } })).map((p) => p.id);
    expect(all.length).toBeGreaterThan(4);
    for (const cursor of [all[0], all[2], all.at(-1)!]) {
      for (const take of [2, -2, 10, -10]) {
        await expectSame('product', 'findMany', { where: { storeId }, orderBy: [{ vendor: 'asc' }, { id: 'asc' }], cursor: { id: cursor }, skip: 1, take, select: { id: true, vendor: true } });
        await expectSame('product', 'findMany', { where: { storeId }, orderBy: { createdAt: 'desc' }, cursor: { id: cursor }, take, select: { id: true } });
      }
    }
    await expectSame('product', 'findMany', { where: { storeId }, cursor: { id: 'prd_nothing' }, take: 3 });
    const families = await db.prisma.productFamily.findMany({ where: { storeId }, include: { products: { orderBy: { id: 'asc' }, select: { id: true } } } });
    const family = families.find((f) => f.products.length > 3)!;
    for (const take of [2, -2]) {
      await expectSame('productFamily', 'findMany', {
        where: { id: family.id },
        include: { products: { cursor: { id: family.products[2].id }, skip: 1, take, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: { id: true, price: true } } },
      });
      await expectSame('productFamily', 'findMany', { where: { id: family.id }, include: { products: { take, skip: 1, orderBy: { sku: 'asc' } } } });
    }
  });

  it('one record: findUnique by id or compound key, findFirst, count', async () => {
    const location = await db.prisma.location.findFirstOrThrow({ where: { storeId } });
    await expectSame('location', 'findUnique', { where: { id: location.id }, include: { inventoryLevels: { include: { product: true } } } });
    await expectSame('location', 'findUnique', { where: { id: 'loc_nothing' } });
    await expectSame('productFamilyOption', 'findFirst', { where: { family: { storeId } }, orderBy: { position: 'desc' } });
    const option = await db.prisma.productFamilyOption.findFirstOrThrow({ where: { family: { storeId } } });
    await expectSame('productFamilyOption', 'findUnique', { where: { familyId_name: { familyId: option.familyId, name: option.name } } });
    await expectSame('return', 'count', { where: { storeId, status: { not: 'deleted' } } });
  });
});

/** The plan PostgreSQL makes of `statement` for any parameters (the plan a prepared statement settles on), as EXPLAIN's JSON. */
async function genericPlan({ sql, params }: { sql: string; params: unknown[] }): Promise<PlanNode> {
  const literal = (value: unknown) => (typeof value === 'number' ? String(value) : `'${String(value).replace(/'/g, "''")}'`);
  return db.session(async (session) => {
    await session.exec(`SET plan_cache_mode = force_generic_plan`);
    try {
      await session.query(`PREPARE generic_read AS ${sql}`);
      const [row] = await session.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] | string }>(`EXPLAIN (FORMAT JSON) EXECUTE generic_read(${params.map(literal).join(', ')})`);
      const plan = row['QUERY PLAN'];
      return (typeof plan === 'string' ? (JSON.parse(plan) as [{ Plan: PlanNode }]) : plan)[0].Plan;
    } finally {
      await session.exec(`DEALLOCATE ALL; RESET plan_cache_mode`);
    }
  });
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Parent Relationship'?: string;
  Plans?: PlanNode[];
}

function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}

describe('the statement PostgreSQL runs', () => {
  it('carries each row as the array of its values, which the reads make the object Prisma answers', async () => {
    const args = {
      where: { storeId },
      orderBy: { id: 'asc' },
      include: {
        order: { include: { lineItems: { orderBy: { id: 'asc' } } } },
        items: { orderBy: { id: 'asc' }, include: { orderLineItem: true } },
        _count: { select: { notes: true } },
      },
    } as const;
    const [statement] = await statementsWithParamsDuring(db, () => db.reads.return.findMany(args));
    const carried = (await db.sql.query<{ j: unknown }>(statement.sql, statement.params)).map((row) => row.j);
    const answered = toPlain(await db.prisma.return.findMany(args)) as Record<string, unknown>[];
    expect(carried).toHaveLength(answered.length);
    type Answered = Record<string, unknown> & { order: Record<string, unknown> | null; items: Record<string, unknown>[] };
    for (const [i, row] of (answered as Answered[]).entries()) {
      const values = carried[i] as unknown[];
      const keys = Object.keys(row);
      expect(values).toHaveLength(keys.length);
      // Relations are arrays too, in the row's place of their key; _count stays the object Prisma answers.
      const order = values[keys.indexOf('order')] as unknown[] | null;
      expect(order === null ? null : order.length).toBe(row.order === null ? null : Object.keys(row.order).length);
      const items = values[keys.indexOf('items')] as unknown[][];
      expect(items.map((item) => item.length)).toEqual(row.items.map((item) => Object.keys(item).length));
      expect(values[keys.indexOf('_count')]).toEqual(row._count);
    }
    await expectSame('return', 'findMany', args);
  });

  it('writes timestamps as Date#toISOString does, whatever their milliseconds, and a date as its midnight', async () => {
    const returnId = (await db.prisma.return.findFirstOrThrow({ where: { storeId }, select: { id: true } })).id;
    const moments = ['2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.100Z', '2026-03-01T10:00:00.120Z', '2026-03-01T10:00:00.123Z', '2026-03-01T10:00:59.009Z'];
    const ids = [];
    for (const moment of moments) {
      const { id } = await db.prisma.returnNote.create({ data: { id: newId('returnNote'), returnId, content: moment, createdAt: new Date(moment) } });
      ids.push(id);
    }
    const notes = (await expectSame('returnNote', 'findMany', { where: { id: { in: ids } }, orderBy: { createdAt: 'asc' }, select: { createdAt: true, return: { select: { createdAt: true } } } })) as {
      createdAt: string;
    }[];
    expect(notes.map((note) => note.createdAt)).toEqual(moments);
    // A Decimal cannot key a read: made once, its rows are made key by key instead (rowShape.ts rowsOf).
    const once = (await expectSame('returnNote', 'findMany', {
      where: { id: { in: ids }, return: { total: { gte: new Decimal('0') } } },
      orderBy: { createdAt: 'asc' },
      select: { createdAt: true, return: { select: { createdAt: true } } },
    })) as { createdAt: string }[];
    expect(once.map((note) => note.createdAt)).toEqual(moments);
    await expectSame('inboundShipment', 'findMany', { where: { storeId }, orderBy: { id: 'asc' }, select: { estimatedArrivalDate: true, createdAt: true } });
  });

  it("looks a filter's to-one row up by its key inside a relation read, whatever plan PostgreSQL settles on", async () => {
    // A line's claiming items: where every return had one status, a generic plan made the EXISTS a
    // join that scanned every return, and for each every item, per line (26 ms a page against 2.5).
    const args = {
      where: { order: { storeId } },
      orderBy: { id: 'asc' },
      select: { id: true, quantity: true, returnItems: { where: CLAIMING_RETURN_ITEMS, orderBy: { id: 'asc' }, select: { quantity: true } } },
    } as const;
    const [statement] = await statementsWithParamsDuring(db, () => db.reads.orderLineItem.findMany(args));
    await expectSame('orderLineItem', 'findMany', args);
    const returnScans = planNodes(await genericPlan(statement)).filter((node) => node['Relation Name'] === 'Return');
    expect(returnScans.length).toBeGreaterThan(0);
    for (const scan of returnScans) expect(scan['Parent Relationship']).toBe('SubPlan');
  });
});

describe('reads made again', () => {
  // A read's statement is compiled once and kept (reader.ts): a read made again must still be
  // answered with its own values, whatever type carries them.
  it('answer with their own values: the same read with other ones, a Date or its text, a Decimal or its text', async () => {
    const products = await db.prisma.product.findMany({ where: { storeId }, select: { id: true }, orderBy: { id: 'asc' }, take: 3 });
    const answers = [];
    for (const round of [1, 2]) {
      for (const { id } of products) answers.push([round, await expectSame('product', 'findMany', { where: { storeId, id }, select: { id: true, title: true } })]);
    }
    expect(new Set(answers.map(([, rows]) => JSON.stringify(rows))).size).toBe(products.length);
    const since = new Date(Date.UTC(2026, 0, 1));
    for (const createdAt of [{ gte: since }, { gte: since.toISOString() }, { lt: since }, { lt: since.toISOString() }]) {
      await expectSame('return', 'count', { where: { storeId, createdAt } });
    }
    for (const price of [{ gte: new Decimal('123456789012345.6789') }, { gte: '123456789012345.6789' }, { lt: new Decimal('1e-4') }, { lt: '0.0001' }]) {
      await expectSame('product', 'findMany', { where: { storeId, price }, select: { id: true, price: true }, orderBy: { id: 'asc' } });
    }
  });
});

describe('batching and refusals', () => {
  it('findUniques of one tick that differ only in the id are one statement, and each gets its own row', async () => {
    const ids = (await db.prisma.return.findMany({ where: { storeId }, select: { id: true } })).map((r) => r.id);
    expect(ids.length).toBeGreaterThan(1);
    let found: unknown[] = [];
    const statements = await statementsDuring(db, async () => {
      found = await Promise.all([...ids, 'ffffffffffffffffffffffff'].map((id) => db.reads.return.findUnique({ where: { id, storeId }, select: { number: true } })));
    });
    expect(statements).toHaveLength(1);
    const expected = await Promise.all(ids.map((id) => db.prisma.return.findUnique({ where: { id }, select: { number: true } })));
    expect(found).toEqual([...expected, null]);
    // Another store sees none of them.
    expect(await Promise.all(ids.map((id) => db.reads.return.findUnique({ where: { id, storeId: 'str_other' } })))).toEqual(ids.map(() => null));
  });

  it('refuses what it does not compile rather than guessing', async () => {
    await expect(db.reads.product.findMany({ distinct: ['vendor'] })).rejects.toThrow(UnsupportedRead);
  });

  it('refuses a findUnique whose unique key is missing, as Prisma does, rather than answering the first row', async () => {
    // A row that did not load its id (a select-mode type's) handed to a loader would ask this.
    await expect(db.reads.location.findUnique({ where: { id: undefined as unknown as string } })).rejects.toThrow(UnsupportedRead);
    await expect(db.reads.location.findUniqueOrThrow({ where: { storeId } as never })).rejects.toThrow(UnsupportedRead);
  });
});
