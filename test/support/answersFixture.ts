// A fixed data set for comparing the doors' answers byte for byte (test/http/doorAnswers.test.ts):
// every id, number and timestamp is given, so the same answers come from every database it is
// written to. One store, two locations, three orders in two currencies (one exponent 0), five
// returns in several statuses, with tags, notes, a destination location, a removed item, amounts
// with every decimal place the formats round.
import type { Database } from '../../src/db/database.ts';
import { createApiClient } from '../../src/domain/stores.ts';
import { SCOPES } from '../../src/auth/scopes.ts';

export const FIXTURE_STORE_ID = 'str_fixture0000000000001';

const at = (day: number, hour = 10) => new Date(Date.UTC(2026, 0, day, hour, 0, 0, 123));
const id = (prefix: string, n: number) => `${prefix}_fixture${String(n).padStart(13, '0')}`;
/** 24 hex digits, as a return's id. */
const returnId = (n: number) => `6950f8c0${String(n).padStart(16, '0')}`;

export interface AnswersFixture {
  storeId: string;
  secret: string;
  orderIds: string[];
  returnIds: string[];
  returnNumbers: number[];
}

export async function seedAnswersFixture(db: Database): Promise<AnswersFixture> {
  const { prisma } = db;
  const storeId = FIXTURE_STORE_ID;
  const [home, dock] = [id('loc', 1), id('loc', 2)];
  await prisma.store.create({ data: { id: storeId, name: 'Fixture store', currency: 'USD', createdAt: at(1), updatedAt: at(1) } });
  await prisma.location.createMany({
    data: [
      { id: home, storeId, name: 'Home', createdAt: at(1), updatedAt: at(1) },
      { id: dock, storeId, name: 'Returns dock', street1: '9 Dock Rd', city: 'Reno', stateCode: 'NV', postalCode: '89501', countryCode: 'US', createdAt: at(1), updatedAt: at(1) },
    ],
  });
  await prisma.store.update({ where: { id: storeId }, data: { defaultLocationId: home, nextOrderNumber: 1004, updatedAt: at(1) } });
  const { secret } = await createApiClient(prisma, { storeId, name: 'fixture client', scopes: SCOPES });

  const orders = [
    { currency: 'USD', prices: ['25.00', '3.3333', '0.5'], totals: ['28.83', '1.25', '30.08'] },
    { currency: 'JPY', prices: ['1200', '350'], totals: ['1550', '124', '1674'] },
    { currency: 'USD', prices: ['99.99', '12.345'], totals: ['112.34', '0', '112.34'] },
  ];
  const orderIds: string[] = [];
  const lineIds: string[][] = [];
  for (const [o, order] of orders.entries()) {
    const orderId = id('ord', o + 1);
    orderIds.push(orderId);
    const groupId = o === 0 ? id('ful', 1) : null;
    await prisma.order.create({
      data: {
        id: orderId,
        storeId,
        externalId: `ext-${o + 1}`,
        name: `#${1001 + o}`,
        placedAt: at(2 + o, 9),
        currency: order.currency,
        subtotalPrice: order.totals[0],
        totalTax: order.totals[1],
        totalPrice: order.totals[2],
        totalDiscount: o === 2 ? '5.5' : null,
        shippingCost: o === 0 ? '4.99' : null,
        customerEmail: `shopper${o + 1}@example.com`,
        customerFirstName: 'Sam',
        customerLastName: `Shopper ${o + 1}`,
        customerName: `Sam Shopper ${o + 1}`,
        customerPhone: o === 1 ? null : '+15550100',
        customerExternalId: o === 2 ? 'cust-3' : null,
        shippingAddress: { address1: `${o + 1} Main St`, address2: null, city: 'Springfield', province: 'IL', country: 'US', postalCode: '62701' },
        createdAt: at(2 + o, 9),
        updatedAt: at(2 + o, 9),
      },
    });
    if (groupId) await prisma.fulfillmentGroup.create({ data: { id: groupId, orderId, locationId: home } });
    const lines = order.prices.map((price, index) => ({
      id: id('oli', (o + 1) * 10 + index),
      orderId,
      position: index,
      externalId: `line-${o + 1}-${index + 1}`,
      externalProductId: `product-${index + 1}`,
      externalVariantId: index === 1 ? null : `variant-${index + 1}`,
      title: `Item ${o + 1}.${index + 1}`,
      quantity: index + 2,
      sku: index === 2 ? null : `SKU-${o + 1}-${index + 1}`,
      price,
      fulfillmentGroupId: groupId,
    }));
    await prisma.orderLineItem.createMany({ data: lines });
    lineIds.push(lines.map((line) => line.id));
  }

  const returns = [
    { order: 0, status: 'open', items: [0, 1], tags: ['gift'], destination: dock, notes: ['Box is dented'] },
    { order: 0, status: 'flagged', items: [2], tags: [], destination: null, notes: [] },
    { order: 1, status: 'complete', items: [0, 1], tags: ['vip', 'damaged'], destination: dock, notes: ['Refunded', 'Shopper called'], refund: '1200', credit: '350' },
    { order: 2, status: 'rejected', items: [0], tags: [], destination: null, notes: [] },
    { order: 2, status: 'open', items: [0, 1], tags: ['exchange'], destination: null, notes: ['Wants blue'], removed: 1 },
  ] as const;
  const returnIds: string[] = [];
  const returnNumbers: number[] = [];
  for (const [r, ret] of returns.entries()) {
    const rid = returnId(r + 1);
    returnIds.push(rid);
    returnNumbers.push(900_001 + r);
    const currency = orders[ret.order].currency;
    await prisma.return.create({
      data: {
        id: rid,
        number: 900_001 + r,
        storeId,
        orderId: orderIds[ret.order],
        status: ret.status,
        currency,
        tags: [...ret.tags],
        destinationLocationId: ret.destination,
        customerEmail: r === 3 ? 'other@example.com' : null,
        carrier: r === 2 ? 'UPS' : null,
        trackingNumber: r === 2 ? '1Z999' : null,
        totalRefund: 'refund' in ret ? ret.refund : '0',
        totalStoreCredit: 'credit' in ret ? ret.credit : '0',
        createdAt: at(10 + r),
        updatedAt: at(12 + r, 10 + r),
        items: {
          create: ret.items.map((line, position) => ({
            id: id('rli', (r + 1) * 10 + position),
            orderLineItemId: lineIds[ret.order][line],
            position,
            quantity: 1 + position,
            reason: position === 0 ? 'Too small' : null,
            reasonCode: position === 0 ? 'size' : null,
            customerComment: r === 0 && position === 0 ? 'Runs "small" — order up' : null,
            outcome: r === 2 && position === 1 ? 'credit' : 'refund',
            removedAt: 'removed' in ret && ret.removed === position ? at(13 + r) : null,
            createdAt: at(10 + r),
          })),
        },
      },
    });
    await prisma.returnNote.createMany({
      data: ret.notes.map((content, n) => ({ id: id('rnt', (r + 1) * 10 + n), returnId: rid, content, createdAt: at(11 + r, 8 + n) })),
    });
  }
  // Prisma stamps @updatedAt on writes; the fixture's instants are put back.
  for (const [r, rid] of returnIds.entries()) await db.sql.query(`UPDATE "Return" SET "updatedAt" = $2 WHERE id = $1`, [rid, at(12 + r, 10 + r)]);
  return { storeId, secret, orderIds, returnIds, returnNumbers };
}
