// The order domain on its own: every issue of an invalid order reported at once, the
// duplicate orderId conflict, fulfillment locations (own, linked, refused), product
// matching, stock committed once per level, exact amounts, order numbers, the event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { Conflict, Invalid } from '../../src/domain/errors.ts';
import { newId } from '../../src/domain/ids.ts';
import { createOrder, type OrderInput } from '../../src/domain/orders.ts';
import { createStore, linkFulfillmentService } from '../../src/domain/stores.ts';
import { createTestDatabase } from '../support/db.ts';
import { rowCounts } from '../support/counts.ts';

let db: Database;
let storeId: string;
let warehouse: string;
let serviceLocation: string;
let productId: string;

async function location(owner: string, name: string) {
  const id = newId('location');
  await db.prisma.location.create({ data: { id, storeId: owner, name, city: name } });
  return id;
}

beforeAll(async () => {
  db = await createTestDatabase();
  storeId = (await createStore(db.prisma, { name: 'Orders', currency: 'GBP' })).id;
  const service = (await createStore(db.prisma, { name: '3PL', kind: 'FULFILLMENT_SERVICE' })).id;
  await linkFulfillmentService(db.prisma, storeId, service);
  warehouse = await location(storeId, 'Leeds');
  serviceLocation = await location(service, 'Hull');
  productId = newId('product');
  await db.prisma.product.create({ data: { id: productId, storeId, title: 'Kettle', sku: 'KET-1' } });
  for (const at of [warehouse, serviceLocation]) {
    await db.prisma.inventoryLevel.create({ data: { id: newId('inventoryLevel'), storeId, productId, locationId: at, quantity: 20 } });
  }
});
afterAll(async () => db?.close());

let n = 0;
function input(overrides: Partial<OrderInput> = {}): OrderInput {
  n += 1;
  return { orderId: `D-${n}`, createdAt: '2026-02-02T12:00:00Z', lineItems: [{ id: '1', productId: 'p', title: 'Thing', quantity: 1 }], ...overrides };
}

async function refusal<T extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => T): Promise<T> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}

const levelAt = (locationId: string) => db.prisma.inventoryLevel.findUniqueOrThrow({ where: { productId_locationId: { productId, locationId } } });

describe('createOrder', () => {
  it('reports every invalid input at once', async () => {
    const error = await refusal(
      createOrder(db.prisma, storeId, {
        orderId: '',
        createdAt: 'not a date',
        lineItems: [
          { id: 'a', productId: '', title: 'x', quantity: 0, price: -1 },
          { id: 'a', productId: 'p', title: '', quantity: 2.5, discount: '1.00001' },
        ],
        totalTax: '-0.01',
        currency: 'pounds',
        shipping: { cost: 'abc' },
        customer: { email: 'nope' },
      }),
      Invalid,
    );
    expect(error.issues.map((i) => i.path).sort()).toEqual(
      [
        'orderId',
        'createdAt',
        'lineItems.0.productId',
        'lineItems.0.quantity',
        'lineItems.0.price',
        'lineItems.1.id',
        'lineItems.1.title',
        'lineItems.1.quantity',
        'lineItems.1.discount',
        'totalTax',
        'currency',
        'shipping.cost',
        'customer.email',
      ].sort(),
    );
  });

  it('needs at least one line item', async () => {
    const error = await refusal(createOrder(db.prisma, storeId, input({ lineItems: [] })), Invalid);
    expect(error.issues).toEqual([{ path: 'lineItems', message: expect.any(String) }]);
  });

  it('stores amounts exactly, from JSON numbers or decimal strings, in the store currency by default', async () => {
    const order = await createOrder(db.prisma, storeId, input({ totalPrice: 0.3, subtotalPrice: '1234.5678', totalDiscount: 0 }));
    expect(order.currency).toBe('GBP');
    expect([order.totalPrice!.toFixed(), order.subtotalPrice!.toFixed(), order.totalDiscount!.toFixed()]).toEqual(['0.3', '1234.5678', '0']);
    expect(order.totalTax).toBeNull();
  });

  it('is a Conflict for an orderId the store already has, leaving the first order and the counter as they were', async () => {
    await createOrder(db.prisma, storeId, input({ orderId: 'DUP' }));
    const before = await rowCounts(db);
    const error = await refusal(createOrder(db.prisma, storeId, input({ orderId: 'DUP' })), Conflict);
    expect(error.path).toBe('orderId');
    expect(await rowCounts(db)).toEqual(before);
    const next = await createOrder(db.prisma, storeId, input());
    const previous = await db.prisma.order.findFirstOrThrow({ where: { storeId, externalId: 'DUP' } });
    expect(Number(next.name.slice(1))).toBe(Number(previous.name.slice(1)) + 1);
  });

  it('links the order to the customer with its e-mail, when there is one', async () => {
    const customerId = newId('customer');
    await db.prisma.customer.create({ data: { id: customerId, storeId, email: 'known@example.com' } });
    const linked = await createOrder(db.prisma, storeId, input({ customer: { email: 'Known@Example.com', name: 'K' } }));
    const unlinked = await createOrder(db.prisma, storeId, input({ customer: { email: 'stranger@example.com' } }));
    expect(linked.customerId).toBe(customerId);
    expect(unlinked.customerId).toBeNull();
  });

  it('matches lines to our products and commits once per level, in one adjustment each', async () => {
    const before = await levelAt(warehouse);
    const order = await createOrder(
      db.prisma,
      storeId,
      input({
        locationId: warehouse,
        lineItems: [
          { id: '1', productId, title: 'Kettle', quantity: 2 },
          { id: '2', productId: 'their-id', sku: 'KET-1', title: 'Kettle', quantity: 3 },
        ],
      }),
    );
    expect((await levelAt(warehouse)).committed).toBe(before.committed + 5);
    const adjustments = await db.prisma.inventoryAdjustment.findMany({ where: { referenceId: order.id } });
    expect(adjustments).toHaveLength(1);
    expect(adjustments[0]).toMatchObject({ committedDelta: 5, reason: 'order' });
    const lines = await db.prisma.orderLineItem.findMany({ where: { orderId: order.id }, orderBy: { position: 'asc' } });
    expect(lines.map((l) => [l.productId, l.committedLevelId])).toEqual([
      [productId, before.id],
      [productId, before.id],
    ]);
    const topics = await db.prisma.event.findMany({ where: { OR: [{ subjectId: order.id }, { subjectId: before.id }] }, select: { topic: true } });
    expect(topics.map((t) => t.topic).sort()).toEqual(['inventory_level.updated', 'order.created']);
  });

  it("commits at a linked fulfillment service's location", async () => {
    const before = await levelAt(serviceLocation);
    await createOrder(db.prisma, storeId, input({ locationId: serviceLocation, lineItems: [{ id: '1', productId, title: 'Kettle', quantity: 4 }] }));
    expect((await levelAt(serviceLocation)).committed).toBe(before.committed + 4);
  });

  it('refuses a location the store may not use', async () => {
    const stranger = (await createStore(db.prisma, { name: 'Stranger' })).id;
    const theirs = await location(stranger, 'Theirs');
    const error = await refusal(createOrder(db.prisma, storeId, input({ locationId: theirs })), Invalid);
    expect(error.path).toBe('locationId');
  });

  it('accepts an order whose lines exceed the stock: the shortfall is oversold on the last lines, available goes negative', async () => {
    const before = await levelAt(warehouse);
    const available = before.quantity - before.committed - before.reserved;
    const order = await createOrder(
      db.prisma,
      storeId,
      input({
        orderId: 'OVERSOLD-1',
        locationId: warehouse,
        lineItems: [
          { id: '1', productId, title: 'Kettle', quantity: available - 1 },
          { id: '2', productId: 'p', title: 'Unknown thing', quantity: 1 },
          { id: '3', productId, title: 'Kettle again', quantity: 4 },
        ],
      }),
    );
    const after = await levelAt(warehouse);
    expect(after.committed).toBe(before.committed + available + 3);
    expect(after.quantity - after.committed - after.reserved).toBe(-3);
    const lines = await db.prisma.orderLineItem.findMany({ where: { orderId: order.id }, orderBy: { position: 'asc' } });
    expect(lines.map((l) => l.oversoldQuantity)).toEqual([0, 0, 3]);
    const events = await db.prisma.event.findMany({ where: { OR: [{ subjectId: order.id }, { subjectId: after.id }] }, orderBy: { createdAt: 'asc' } });
    const created = events.find((e) => e.topic === 'order.created')!;
    expect((created.data as { lineItems: { oversoldQuantity: number }[] }).lineItems.map((l) => l.oversoldQuantity)).toEqual([0, 0, 3]);
    expect(events.find((e) => e.topic === 'inventory_level.updated' && e.subjectId === after.id && (e.data as { available: number }).available === -3)).toBeDefined();
  });

  it("commits at the store's default location when the order names none, making the level it lacks", async () => {
    const store = await db.prisma.store.findUniqueOrThrow({ where: { id: storeId } });
    const order = await createOrder(db.prisma, storeId, input({ orderId: 'DEFAULT-LOC', lineItems: [{ id: '1', productId, title: 'Kettle', quantity: 2 }] }));
    const group = await db.prisma.fulfillmentGroup.findFirstOrThrow({ where: { orderId: order.id } });
    expect(group.locationId).toBe(store.defaultLocationId);
    const level = await levelAt(store.defaultLocationId!);
    expect(level).toMatchObject({ quantity: 0, committed: 2 });
    const line = await db.prisma.orderLineItem.findFirstOrThrow({ where: { orderId: order.id } });
    expect(line).toMatchObject({ committedLevelId: level.id, oversoldQuantity: 2 });
  });

  it('records order.created with the order and its lines', async () => {
    const order = await createOrder(db.prisma, storeId, input({ orderId: 'EV-1', totalPrice: 12.5, lineItems: [{ id: 'x', productId, title: 'Kettle', quantity: 1, price: 12.5 }] }));
    const event = await db.prisma.event.findFirstOrThrow({ where: { subjectId: order.id } });
    expect(event).toMatchObject({ topic: 'order.created', storeId });
    expect(event.data).toMatchObject({
      id: order.id,
      name: order.name,
      externalId: 'EV-1',
      currency: 'GBP',
      totalPrice: '12.50',
      lineItems: [{ externalId: 'x', productId, quantity: 1, price: '12.50' }],
    });
  });
});
