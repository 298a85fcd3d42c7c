// Orders and returns written straight through Prisma, for tests that need a return in
// a given state (several native statuses have no operation leading to them).
import type { Database } from '../../src/db/database.ts';
import { newId, newReturnId } from '../../src/domain/ids.ts';
import type { ReturnOutcome, ReturnStatus } from '../../src/generated/prisma/client.ts';

export interface TestLine {
  externalId?: string;
  title?: string;
  quantity?: number;
  sku?: string | null;
  price?: string | null;
  discount?: string | null;
  externalProductId?: string;
  externalVariantId?: string | null;
  productId?: string | null;
}

export interface TestOrder {
  id: string;
  name: string;
  externalId: string;
  lineItems: { id: string; externalId: string; quantity: number }[];
}

let orderSeq = 0;

/** An order of the store with its lines; the name comes from the store's counter as in real orders. */
export async function createTestOrder(
  db: Database,
  storeId: string,
  options: {
    lines?: TestLine[];
    currency?: string;
    totalTax?: string | null;
    subtotalPrice?: string | null;
    totalPrice?: string | null;
    customerEmail?: string | null;
    locationId?: string | null;
  } = {},
): Promise<TestOrder> {
  const lines = options.lines ?? [{}, {}];
  return db.prisma.$transaction(async (tx) => {
    const store = await tx.store.update({ where: { id: storeId }, data: { nextOrderNumber: { increment: 1 } } });
    const id = newId('order');
    const externalId = `ext-${++orderSeq}-${id.slice(-6)}`;
    const groupId = options.locationId ? newId('fulfillmentGroup') : null;
    await tx.order.create({
      data: {
        id,
        storeId,
        externalId,
        name: `#${store.nextOrderNumber - 1}`,
        placedAt: new Date('2026-01-05T10:00:00Z'),
        currency: options.currency ?? 'USD',
        totalTax: options.totalTax ?? null,
        subtotalPrice: options.subtotalPrice ?? null,
        totalPrice: options.totalPrice ?? null,
        customerEmail: options.customerEmail === undefined ? 'shopper@example.com' : options.customerEmail,
        customerFirstName: 'Sam',
        customerLastName: 'Shopper',
        customerName: 'Sam Shopper',
        customerPhone: '+15550100',
        shippingAddress: { address1: '1 Main St', address2: null, city: 'Springfield', province: 'IL', country: 'US', postalCode: '62701' },
      },
    });
    if (groupId) await tx.fulfillmentGroup.create({ data: { id: groupId, orderId: id, locationId: options.locationId } });
    const lineItems = lines.map((line, index) => ({
      id: newId('orderLineItem'),
      orderId: id,
      position: index,
      externalId: line.externalId ?? `line-${index + 1}`,
      externalProductId: line.externalProductId ?? `product-${index + 1}`,
      externalVariantId: line.externalVariantId === undefined ? `variant-${index + 1}` : line.externalVariantId,
      title: line.title ?? `Item ${index + 1}`,
      quantity: line.quantity ?? 1,
      sku: line.sku === undefined ? `SKU-${index + 1}` : line.sku,
      price: line.price === undefined ? '25.00' : line.price,
      discount: line.discount ?? null,
      productId: line.productId ?? null,
      fulfillmentGroupId: groupId,
    }));
    await tx.orderLineItem.createMany({ data: lineItems });
    return {
      id,
      name: `#${store.nextOrderNumber - 1}`,
      externalId,
      lineItems: lineItems.map((l) => ({ id: l.id, externalId: l.externalId, quantity: l.quantity })),
    };
  });
}

export interface TestReturn {
  id: string;
  number: number;
  itemIds: string[];
}

/** A return written directly, in any status, with one item per given line. */
export async function insertTestReturn(
  db: Database,
  storeId: string,
  order: TestOrder,
  options: {
    status?: ReturnStatus;
    items?: { lineIndex: number; quantity?: number; outcome?: ReturnOutcome }[];
    createdAt?: Date;
    updatedAt?: Date;
  } = {},
): Promise<TestReturn> {
  const id = newReturnId();
  const wanted: { lineIndex: number; quantity?: number; outcome?: ReturnOutcome }[] =
    options.items ?? order.lineItems.map((_l, lineIndex) => ({ lineIndex }));
  const items = wanted.map((item) => ({
    id: newId('returnItem'),
    orderLineItemId: order.lineItems[item.lineIndex].id,
    quantity: item.quantity ?? 1,
    outcome: item.outcome ?? 'refund',
  }));
  const created = await db.prisma.return.create({
    data: {
      id,
      storeId,
      orderId: order.id,
      status: options.status ?? 'open',
      currency: 'USD',
      ...(options.createdAt ? { createdAt: options.createdAt } : {}),
      ...(options.updatedAt ? { updatedAt: options.updatedAt } : {}),
      items: { create: items },
    },
  });
  return { id, number: created.number, itemIds: items.map((i) => i.id) };
}

/** Sets timestamps a test needs (Prisma's @updatedAt would otherwise stamp "now"). */
export async function setReturnTimes(db: Database, id: string, times: { createdAt?: Date; updatedAt?: Date }): Promise<void> {
  await db.sql.query(
    `UPDATE "Return" SET "createdAt" = COALESCE($2, "createdAt"), "updatedAt" = COALESCE($3, "updatedAt") WHERE "id" = $1`,
    [id, times.createdAt ?? null, times.updatedAt ?? null],
  );
}
