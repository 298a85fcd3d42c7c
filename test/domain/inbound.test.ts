// Receiving at the domain level: concurrent receipts of one shipment cannot receive
// more than was shipped, and a purchase order split over two shipments moves from
// ORDERED through PARTIALLY_RECEIVED to RECEIVED as each arrives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { createProduct } from '../../src/domain/catalog.ts';
import { Invalid } from '../../src/domain/errors.ts';
import { createInboundShipment, markInboundShipmentInTransit, receiveInboundShipment } from '../../src/domain/inbound.ts';
import { createLocation } from '../../src/domain/inventory.ts';
import { createPurchaseOrder } from '../../src/domain/purchasing.ts';
import { createStore } from '../../src/domain/stores.ts';
import { createTestDatabase } from '../support/db.ts';

let db: Database;
let storeId: string;
let locationId: string;
let productIds: string[];

beforeAll(async () => {
  db = await createTestDatabase();
  storeId = (await createStore(db.prisma, { name: 'Store' })).id;
  locationId = (await createLocation(db.prisma, storeId, { name: 'Dock' })).id;
  productIds = [];
  for (const sku of ['A', 'B']) productIds.push((await createProduct(db.prisma, storeId, { title: sku, sku })).id);
});
afterAll(async () => db?.close());

describe('receiving', () => {
  it('never receives more than shipped when receipts race', async () => {
    const shipment = await createInboundShipment(db.prisma, storeId, { locationId, items: [{ productId: productIds[0], quantity: 10 }] });
    await markInboundShipmentInTransit(db.prisma, storeId, shipment.id);
    const item = await db.prisma.inboundShipmentItem.findFirstOrThrow({ where: { shipmentId: shipment.id } });
    const results = await Promise.allSettled(
      Array.from({ length: 4 }, () => receiveInboundShipment(db.prisma, storeId, shipment.id, { items: [{ itemId: item.id, receivedQuantity: 3 }] })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(Invalid);
    expect(await db.prisma.inboundShipmentItem.findUniqueOrThrow({ where: { id: item.id } })).toMatchObject({ receivedQuantity: 9 });
    const level = await db.prisma.inventoryLevel.findUniqueOrThrow({ where: { productId_locationId: { productId: productIds[0], locationId } } });
    expect(level.quantity).toBe(9);
    expect((await db.prisma.inboundShipment.findUniqueOrThrow({ where: { id: shipment.id } })).status).toBe('PARTIALLY_RECEIVED');
  });

  it('moves a purchase order split over two shipments to RECEIVED only when both are in', async () => {
    const po = await createPurchaseOrder(db.prisma, storeId, {
      name: 'PO-SPLIT',
      status: 'ORDERED',
      items: [
        { productId: productIds[0], quantity: 4 },
        { productId: productIds[1], quantity: 2 },
      ],
    });
    const [a, b] = await db.prisma.purchaseOrderItem.findMany({ where: { purchaseOrderId: po.id }, orderBy: { quantity: 'desc' } });
    const first = await createInboundShipment(db.prisma, storeId, { locationId, items: [{ purchaseOrderItemId: a.id, quantity: 4 }] });
    const second = await createInboundShipment(db.prisma, storeId, { locationId, items: [{ purchaseOrderItemId: b.id, quantity: 2 }] });
    for (const shipment of [first, second]) await markInboundShipmentInTransit(db.prisma, storeId, shipment.id);
    const status = async () => (await db.prisma.purchaseOrder.findUniqueOrThrow({ where: { id: po.id } })).status;
    expect(await status()).toBe('ORDERED');

    const firstItem = await db.prisma.inboundShipmentItem.findFirstOrThrow({ where: { shipmentId: first.id } });
    await receiveInboundShipment(db.prisma, storeId, first.id, { items: [{ itemId: firstItem.id, receivedQuantity: 3, damagedQuantity: 1 }] });
    expect(await status()).toBe('PARTIALLY_RECEIVED');
    expect(await db.prisma.purchaseOrderItem.findUniqueOrThrow({ where: { id: a.id } })).toMatchObject({ receivedQuantity: 3, damagedQuantity: 1 });

    const secondItem = await db.prisma.inboundShipmentItem.findFirstOrThrow({ where: { shipmentId: second.id } });
    await receiveInboundShipment(db.prisma, storeId, second.id, { items: [{ itemId: secondItem.id, receivedQuantity: 2 }] });
    expect(await status()).toBe('RECEIVED');
    const links = await db.prisma.inboundShipmentPurchaseOrder.findMany({ where: { purchaseOrderId: po.id } });
    expect(links.map((l) => l.shipmentId).sort()).toEqual([first.id, second.id].sort());
  });
});
