// Purchase orders: what a merchant ordered from a vendor, line by line. Inbound
// shipments carry the goods; receiving them moves the items' received and
// damaged counts and with them the order's status.
import type { PurchaseOrder, PurchaseOrderStatus } from '../generated/prisma/client.ts';
import { amount, count, currencyCode, InputIssues, optionalText, requiredText } from './inputChecks.ts';
import { Conflict, isUniqueViolation } from './errors.ts';
import { newId } from './ids.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';

export interface PurchaseOrderItemInput {
  productId: string;
  quantity: number;
  unitCost?: string | null;
  totalTax?: string | null;
}

export interface PurchaseOrderInput {
  name?: string | null;
  vendor?: string | null;
  /** DRAFT (default) or ORDERED; later statuses follow from receiving. */
  status?: PurchaseOrderStatus | null;
  expectedAt?: Date | null;
  currency?: string | null;
  items?: PurchaseOrderItemInput[] | null;
}

const MAX_ITEMS = 500;

export async function createPurchaseOrder(db: Db | Tx, storeId: string, input: PurchaseOrderInput): Promise<PurchaseOrder> {
  return inTransaction(db, async (tx) => {
    const issues = new InputIssues();
    const name = requiredText(issues, 'name', input.name, 100);
    const vendor = optionalText(issues, 'vendor', input.vendor);
    const currency = currencyCode(issues, 'currency', input.currency);
    const status = input.status ?? 'DRAFT';
    if (status !== 'DRAFT' && status !== 'ORDERED') issues.add('status', 'a new purchase order is DRAFT or ORDERED');
    const items = input.items ?? [];
    if (items.length === 0) issues.add('items', 'must have at least one item');
    if (items.length > MAX_ITEMS) issues.add('items', `must have at most ${MAX_ITEMS} items`);
    const productIds = [...new Set(items.map((i) => i.productId))];
    const products = await tx.product.findMany({ where: { id: { in: productIds }, storeId }, select: { id: true } });
    const lines = items.map((item, index) => {
      if (!products.some((p) => p.id === item.productId)) issues.add(`items.${index}.productId`, `product ${item.productId} not found`);
      return {
        id: newId('purchaseOrderItem'),
        productId: item.productId,
        quantity: count(issues, `items.${index}.quantity`, item.quantity, 1),
        unitCost: amount(issues, `items.${index}.unitCost`, item.unitCost) ?? null,
        totalTax: amount(issues, `items.${index}.totalTax`, item.totalTax) ?? null,
      };
    });
    issues.throwIfAny();
    const taken = await tx.purchaseOrder.findUnique({ where: { storeId_name: { storeId, name } }, select: { id: true } });
    if (taken) throw new Conflict(`purchase order ${name} already exists (${taken.id})`, { path: 'name' });
    const store = await tx.store.findUniqueOrThrow({ where: { id: storeId }, select: { currency: true } });
    try {
      return await tx.purchaseOrder.create({
        data: {
          id: newId('purchaseOrder'),
          storeId,
          name,
          vendor: vendor ?? null,
          status,
          expectedAt: input.expectedAt ?? null,
          currency: currency ?? store.currency,
          items: { create: lines },
        },
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new Conflict(`purchase order ${name} already exists`, { path: 'name' });
      throw error;
    }
  });
}

/** Purchase orders whose items can still be shipped and received. */
export const RECEIVABLE_PURCHASE_ORDER: readonly PurchaseOrderStatus[] = ['DRAFT', 'ORDERED', 'PARTIALLY_RECEIVED'];

/**
 * Adds received and damaged units to purchase order items, then moves each touched
 * order to RECEIVED when every item is fully accounted for, else to PARTIALLY_RECEIVED.
 */
export async function recordPurchaseOrderReceipts(
  tx: Tx,
  receipts: readonly { purchaseOrderItemId: string; received: number; damaged: number }[],
): Promise<void> {
  const purchaseOrderIds = new Set<string>();
  for (const receipt of receipts) {
    const item = await tx.purchaseOrderItem.update({
      where: { id: receipt.purchaseOrderItemId },
      data: { receivedQuantity: { increment: receipt.received }, damagedQuantity: { increment: receipt.damaged } },
      select: { purchaseOrderId: true },
    });
    purchaseOrderIds.add(item.purchaseOrderId);
  }
  for (const id of purchaseOrderIds) {
    const order = await tx.purchaseOrder.findUniqueOrThrow({
      where: { id },
      select: { status: true, items: { select: { quantity: true, receivedQuantity: true, damagedQuantity: true } } },
    });
    if (order.status === 'CANCELLED') continue;
    const complete = order.items.every((i) => i.receivedQuantity + i.damagedQuantity >= i.quantity);
    const status: PurchaseOrderStatus = complete ? 'RECEIVED' : 'PARTIALLY_RECEIVED';
    if (status !== order.status) await tx.purchaseOrder.update({ where: { id }, data: { status } });
  }
}
