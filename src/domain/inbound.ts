// Inbound shipments: stock on its way to one of the store's locations, optionally
// fulfilling purchase order items. States:
//   PENDING -> IN_TRANSIT -> PARTIALLY_RECEIVED -> RECEIVED, PENDING or IN_TRANSIT -> CANCELLED.
// Receiving adds good units to the destination level's quantity and damaged units
// to both its quantity and reserved, and updates the purchase order items.
import type { InboundShipment, InboundShipmentStatus } from '../generated/prisma/client.ts';
import { amount, count, currencyCode, httpUrl, InputIssues, optionalText } from './inputChecks.ts';
import { NotFound, UnprocessableState } from './errors.ts';
import { recordEvent } from './events.ts';
import { newId } from './ids.ts';
import { changeLevel, ensureLevel, visibleLocationWhere } from './inventory.ts';
import { RECEIVABLE_PURCHASE_ORDER, recordPurchaseOrderReceipts } from './purchasing.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';

export interface InboundShipmentItemInput {
  /** May be left out when `purchaseOrderItemId` is given: the item's product is then used. */
  productId?: string | null;
  quantity: number;
  purchaseOrderItemId?: string | null;
}

export interface InboundShipmentInput {
  locationId?: string | null;
  carrier?: string | null;
  /** The carrier's own shipment identifier. */
  shipmentId?: string | null;
  trackingNumber?: string | null;
  trackingUrl?: string | null;
  freightType?: string | null;
  paymentTerms?: string | null;
  currency?: string | null;
  freightCost?: string | null;
  dutyCost?: string | null;
  estimatedArrivalDate?: Date | null;
  items?: InboundShipmentItemInput[] | null;
}

export interface ReceiptInput {
  items?: { itemId: string; receivedQuantity?: number | null; damagedQuantity?: number | null }[] | null;
  /** Defaults to today (UTC) on the first receipt. */
  actualArrivalDate?: Date | null;
}

const MAX_ITEMS = 500;

async function shipmentEvent(tx: Tx, shipment: InboundShipment, previousStatus: InboundShipmentStatus | null, operation: string) {
  await recordEvent(tx, {
    storeId: shipment.storeId,
    topic: 'inbound_shipment.updated',
    subjectId: shipment.id,
    data: {
      id: shipment.id,
      operation,
      status: shipment.status,
      previousStatus,
      locationId: shipment.locationId,
      updatedAt: shipment.updatedAt,
    },
  });
}

export async function createInboundShipment(db: Db | Tx, storeId: string, input: InboundShipmentInput): Promise<InboundShipment> {
  return inTransaction(db, async (tx) => {
    const issues = new InputIssues();
    const columns = {
      carrier: optionalText(issues, 'carrier', input.carrier, 100),
      carrierShipmentId: optionalText(issues, 'shipmentId', input.shipmentId, 100),
      trackingNumber: optionalText(issues, 'trackingNumber', input.trackingNumber, 100),
      trackingUrl: httpUrl(issues, 'trackingUrl', input.trackingUrl),
      freightType: optionalText(issues, 'freightType', input.freightType, 100),
      paymentTerms: optionalText(issues, 'paymentTerms', input.paymentTerms, 100),
      freightCost: amount(issues, 'freightCost', input.freightCost),
      dutyCost: amount(issues, 'dutyCost', input.dutyCost),
      estimatedArrivalDate: input.estimatedArrivalDate ?? null,
    };
    const currency = currencyCode(issues, 'currency', input.currency);
    const location = input.locationId
      ? await tx.location.findFirst({ where: { id: input.locationId, ...visibleLocationWhere(storeId) }, select: { id: true } })
      : null;
    if (!input.locationId) issues.add('locationId', 'is required');
    else if (!location) issues.add('locationId', `location ${input.locationId} not found`);

    const items = input.items ?? [];
    if (items.length === 0) issues.add('items', 'must have at least one item');
    if (items.length > MAX_ITEMS) issues.add('items', `must have at most ${MAX_ITEMS} items`);
    const poItemIds = items.flatMap((i) => (i.purchaseOrderItemId ? [i.purchaseOrderItemId] : []));
    const poItems = await tx.purchaseOrderItem.findMany({
      where: { id: { in: poItemIds }, purchaseOrder: { storeId } },
      select: {
        id: true,
        productId: true,
        quantity: true,
        purchaseOrder: { select: { id: true, name: true, status: true } },
        inboundShipmentItems: { where: { shipment: { status: { not: 'CANCELLED' } } }, select: { quantity: true } },
      },
    });
    const productIds = items.flatMap((i) => (i.productId ? [i.productId] : []));
    const products = await tx.product.findMany({ where: { id: { in: productIds }, storeId }, select: { id: true } });
    const seen = new Set<string>();
    const lines = items.map((item, index) => {
      const path = `items.${index}`;
      const poItem = item.purchaseOrderItemId ? poItems.find((p) => p.id === item.purchaseOrderItemId) : undefined;
      if (item.purchaseOrderItemId && !poItem) {
        issues.add(`${path}.purchaseOrderItemId`, `purchase order item ${item.purchaseOrderItemId} not found`);
      } else if (poItem && !RECEIVABLE_PURCHASE_ORDER.includes(poItem.purchaseOrder.status)) {
        issues.add(`${path}.purchaseOrderItemId`, `purchase order ${poItem.purchaseOrder.name} is ${poItem.purchaseOrder.status}`);
      }
      const productId = item.productId ?? poItem?.productId;
      if (!productId && !item.purchaseOrderItemId) {
        issues.add(`${path}.productId`, 'is required without a purchaseOrderItemId');
      } else if (item.productId && !products.some((p) => p.id === item.productId)) {
        issues.add(`${path}.productId`, `product ${item.productId} not found`);
      } else if (poItem && poItem.productId !== productId) {
        issues.add(`${path}.productId`, `purchase order item ${poItem.id} is for product ${poItem.productId}`);
      }
      if (poItem) {
        const unshipped = poItem.quantity - poItem.inboundShipmentItems.reduce((sum, shipped) => sum + shipped.quantity, 0);
        if (item.quantity > unshipped) {
          issues.add(`${path}.quantity`, `purchase order item ${poItem.id} has ${unshipped} of ${poItem.quantity} units left to ship`);
        }
      }
      const key = `${productId}/${item.purchaseOrderItemId ?? ''}`;
      if (productId && seen.has(key)) issues.add(path, 'the same product (and purchase order item) is listed twice; combine the quantities');
      seen.add(key);
      return {
        id: newId('inboundShipmentItem'),
        productId: productId ?? '',
        purchaseOrderItemId: poItem?.id ?? null,
        quantity: count(issues, `${path}.quantity`, item.quantity, 1),
      };
    });
    issues.throwIfAny();

    const store = await tx.store.findUniqueOrThrow({ where: { id: storeId }, select: { currency: true } });
    const purchaseOrderIds = [...new Set(poItems.map((p) => p.purchaseOrder.id))];
    const shipment = await tx.inboundShipment.create({
      data: {
        ...columns,
        id: newId('inboundShipment'),
        storeId,
        locationId: location!.id,
        currency: currency ?? store.currency,
        items: { create: lines },
        purchaseOrders: { create: purchaseOrderIds.map((purchaseOrderId) => ({ purchaseOrderId })) },
      },
    });
    await shipmentEvent(tx, shipment, null, 'create');
    return shipment;
  });
}

/** The store's shipment, locked for the rest of the transaction so changes to it serialise. */
async function lockedShipment(tx: Tx, storeId: string, id: string): Promise<InboundShipment> {
  await tx.$queryRaw`SELECT id FROM "InboundShipment" WHERE id = ${id} AND "storeId" = ${storeId} FOR UPDATE`;
  const shipment = await tx.inboundShipment.findFirst({ where: { id, storeId } });
  if (!shipment) throw new NotFound(`inbound shipment ${id} not found`, { path: 'id' });
  return shipment;
}

async function transition(
  db: Db | Tx,
  storeId: string,
  id: string,
  operation: string,
  from: readonly InboundShipmentStatus[],
  to: InboundShipmentStatus,
): Promise<InboundShipment> {
  return inTransaction(db, async (tx) => {
    const shipment = await lockedShipment(tx, storeId, id);
    if (!from.includes(shipment.status)) {
      throw new UnprocessableState(`inbound shipment ${id} is ${shipment.status}; ${operation} needs ${from.join(' or ')}`, { path: 'id' });
    }
    const updated = await tx.inboundShipment.update({ where: { id }, data: { status: to } });
    await shipmentEvent(tx, updated, shipment.status, operation);
    return updated;
  });
}

export function markInboundShipmentInTransit(db: Db | Tx, storeId: string, id: string): Promise<InboundShipment> {
  return transition(db, storeId, id, 'mark in transit', ['PENDING'], 'IN_TRANSIT');
}

export function cancelInboundShipment(db: Db | Tx, storeId: string, id: string): Promise<InboundShipment> {
  return transition(db, storeId, id, 'cancel', ['PENDING', 'IN_TRANSIT'], 'CANCELLED');
}

const RECEIVABLE: readonly InboundShipmentStatus[] = ['IN_TRANSIT', 'PARTIALLY_RECEIVED'];

/**
 * Receives good and damaged units of some items. The shipment must be in transit or
 * partly received, and no item may receive more than was shipped. The shipment ends
 * RECEIVED when every item is fully accounted for, else PARTIALLY_RECEIVED.
 */
export async function receiveInboundShipment(db: Db | Tx, storeId: string, id: string, input: ReceiptInput): Promise<InboundShipment> {
  return inTransaction(db, async (tx) => {
    const shipment = await lockedShipment(tx, storeId, id);
    if (!RECEIVABLE.includes(shipment.status)) {
      const hint = shipment.status === 'PENDING' ? '; mark it in transit first' : '';
      throw new UnprocessableState(`inbound shipment ${id} is ${shipment.status} and cannot receive items${hint}`, { path: 'id' });
    }
    const items = await tx.inboundShipmentItem.findMany({ where: { shipmentId: id } });
    const entries = input.items ?? [];
    const unknown = entries.findIndex((entry) => !items.some((i) => i.id === entry.itemId));
    if (unknown >= 0) {
      throw new NotFound(`inbound shipment ${id} has no item ${entries[unknown].itemId}`, { path: `items.${unknown}.itemId` });
    }
    const issues = new InputIssues();
    if (entries.length === 0) issues.add('items', 'must name at least one item');
    const receipts = entries.map((entry, index) => {
      const path = `items.${index}`;
      const received = count(issues, `${path}.receivedQuantity`, entry.receivedQuantity ?? 0, 0);
      const damaged = count(issues, `${path}.damagedQuantity`, entry.damagedQuantity ?? 0, 0);
      const item = items.find((i) => i.id === entry.itemId)!;
      const open = item.quantity - item.receivedQuantity - item.damagedQuantity;
      if (entries.findIndex((e) => e.itemId === entry.itemId) !== index) {
        issues.add(`${path}.itemId`, `item ${entry.itemId} is listed twice`);
      } else if (received + damaged === 0) {
        issues.add(path, 'receive at least one good or damaged unit');
      } else if (received + damaged > open) {
        issues.add(path, `receiving ${received + damaged} units of item ${item.id}, but only ${open} of the ${item.quantity} shipped are not received yet`);
      }
      return { item, received, damaged };
    });
    issues.throwIfAny();

    const location = await tx.location.findUniqueOrThrow({ where: { id: shipment.locationId }, select: { id: true } });
    for (const { item, received, damaged } of receipts) {
      await tx.inboundShipmentItem.update({
        where: { id: item.id },
        data: { receivedQuantity: { increment: received }, damagedQuantity: { increment: damaged } },
      });
      const level = await ensureLevel(tx, { id: item.productId, storeId: shipment.storeId }, location.id);
      await changeLevel(tx, level.id, { quantity: received + damaged, reserved: damaged }, { reason: 'inbound_shipment_received', referenceId: id });
    }
    await recordPurchaseOrderReceipts(
      tx,
      receipts.flatMap(({ item, received, damaged }) =>
        item.purchaseOrderItemId ? [{ purchaseOrderItemId: item.purchaseOrderItemId, received, damaged }] : [],
      ),
    );
    const after = await tx.inboundShipmentItem.findMany({ where: { shipmentId: id }, select: { quantity: true, receivedQuantity: true, damagedQuantity: true } });
    const complete = after.every((i) => i.receivedQuantity + i.damagedQuantity >= i.quantity);
    const updated = await tx.inboundShipment.update({
      where: { id },
      data: {
        status: complete ? 'RECEIVED' : 'PARTIALLY_RECEIVED',
        actualArrivalDate: input.actualArrivalDate ?? shipment.actualArrivalDate ?? new Date(new Date().toISOString().slice(0, 10)),
      },
    });
    await shipmentEvent(tx, updated, shipment.status, 'receive');
    return updated;
  });
}
