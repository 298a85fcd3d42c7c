// Advance shipping notice rows: one per returned line, for warehouse tooling.
import { Prisma, type ReturnOutcome, type ReturnStatus } from '../../generated/prisma/client.ts';
import { Invalid } from '../errors.ts';
import type { Plain } from '../../db/reads/plain.ts';
import type { Reads } from '../../db/reads/reader.ts';
import { CLOSED_AT_SELECT, closedAtOf, lastChangeTo, orderNumberOf, restockStatusOf } from './facts.ts';
import type { ReturnPage, RowQuery } from './lists.ts';

export interface AsnRow {
  returnId: string;
  returnNumber: number;
  returnItemId: string;
  /** Null for an imported return. */
  orderId: string | null;
  orderName: string | null;
  /** The number in the order's name; null for an imported return. */
  orderNumber: string | null;
  status: ReturnStatus;
  customerEmail: string | null;
  title: string;
  sku: string | null;
  barcode: string | null;
  /** Exact decimal text. */
  unitPrice: string | null;
  currency: string;
  carrier: string | null;
  trackingNumber: string | null;
  /** The carrier's tracking page; null when none was given. */
  trackingUrl: string | null;
  labelStatus: string | null;
  /** The printable postage label; null when none was given. */
  labelUrl: string | null;
  /** ISO 8601: when the label was given or last changed; null without one. */
  labelUpdatedAt: string | null;
  restockStatus: string | null;
  /** Our id (loc_) and name of the location receiving the return; null when an import named an address instead. */
  receivingLocationId: string | null;
  receivingLocationName: string | null;
  /** An imported return's own return/RMA id, scannable at intake; null otherwise. */
  externalReferenceId: string | null;
  /** The line's reason for return, as given. */
  reason: string | null;
  outcome: ReturnOutcome;
  /** ISO 8601. */
  createdAt: string;
  updatedAt: string;
  /** ISO 8601; null unless the return is complete. */
  closedAt: string | null;
  /** ISO 8601: when the return last became delivered; null if it never was. */
  deliveredAt: string | null;
}

/** A product's scannable code: its UPC, else its first barcode. */
export function barcodeOf(product: { upc: string | null; barcodes: string[] } | null): string | null {
  return product?.upc ?? product?.barcodes[0] ?? null;
}

const CODES = { select: { upc: true, barcodes: true } } as const;

/** What describing a returned item reads; usable as a Prisma `select` on ReturnItem. */
export const ITEM_DESCRIPTION_SELECT = {
  title: true,
  sku: true,
  barcode: true,
  unitPrice: true,
  product: CODES,
  orderLineItem: { select: { title: true, sku: true, price: true, product: CODES } },
} satisfies Prisma.ReturnItemSelect;

type ItemDescriptionSource = Plain<Prisma.ReturnItemGetPayload<{ select: typeof ITEM_DESCRIPTION_SELECT }>>;

/** What the SKU of a returned item reads: less than a whole description (no product codes to load). */
export const ITEM_SKU_SELECT = { sku: true, orderLineItem: { select: { sku: true } } } satisfies Prisma.ReturnItemSelect;

/** An ordered item's SKU is its order line's; an imported one's is what the import recorded. */
export function itemSku(item: { sku: string | null; orderLineItem: { sku: string | null } | null }): string | null {
  return item.orderLineItem ? item.orderLineItem.sku : item.sku;
}

/** An ordered item is described by its order line; an imported one by what the import recorded (its product's values unless overridden). */
export function describeItem(item: ItemDescriptionSource) {
  const line = item.orderLineItem;
  if (line) return { title: line.title, sku: itemSku(item), barcode: barcodeOf(line.product), unitPrice: line.price };
  return { title: item.title ?? '', sku: itemSku(item), barcode: item.barcode ?? barcodeOf(item.product), unitPrice: item.unitPrice };
}

/**
 * The items still on a return, in their order (their order line's, then their own for imported
 * ones), as Return.items lists them. Every selection of a return's items uses these same
 * arguments, so plugin-prisma loads them once with the return, never again per return.
 */
export const ITEMS_ON_RETURN = {
  where: { removedAt: null },
  orderBy: [{ orderLineItem: { position: 'asc' } }, { position: 'asc' }, { id: 'asc' }],
} satisfies Prisma.ReturnItemFindManyArgs;

/** What a return's advance-shipping-notice rows read; usable as a Prisma `select` on Return. */
export const ASN_RETURN_SELECT = {
  id: true,
  number: true,
  status: true,
  currency: true,
  carrier: true,
  trackingNumber: true,
  labelStatus: true,
  labelUpdatedAt: true,
  createdAt: true,
  updatedAt: true,
  trackingUrl: true,
  labelUrl: true,
  customerEmail: true,
  externalReferenceId: true,
  destinationLocationId: true,
  destinationLocation: { select: { name: true } },
  statusChanges: CLOSED_AT_SELECT.statusChanges,
  order: { select: { id: true, name: true, customerEmail: true } },
  items: { ...ITEMS_ON_RETURN, select: { id: true, reason: true, outcome: true, ...ITEM_DESCRIPTION_SELECT } },
} satisfies Prisma.ReturnSelect;

type AsnReturn = Plain<Prisma.ReturnGetPayload<{ select: typeof ASN_RETURN_SELECT }>>;

/** The returns an advance shipping notice lists: created in [from, to), not deleted. */
function asnReturnsWhere(storeId: string, window: { from: Date; to: Date }): Prisma.ReturnWhereInput {
  if (!(window.from < window.to)) throw new Invalid('from must be before to', { path: 'from' });
  return { storeId, status: { not: 'deleted' }, createdAt: { gte: window.from, lt: window.to } };
}

/**
 * The notice's returns, one page of a keyset walk. The walk must order them as listAsnRows does:
 * oldest first, ties by number (the order they were made in).
 */
export function listAsnReturns(reads: Reads, storeId: string, window: { from: Date; to: Date }, page: ReturnPage, query: RowQuery = {}) {
  return reads.return.findMany({ ...query, where: { AND: [asnReturnsWhere(storeId, window), page.where] }, orderBy: page.orderBy, take: page.take });
}

/** One row per line item still on the return, in the order of its items. */
export function asnRowsOf(ret: AsnReturn): AsnRow[] {
  const closedAt = closedAtOf(ret);
  const deliveredAt = lastChangeTo(ret.statusChanges, 'delivered');
  return ret.items.map((item) => ({
    returnId: ret.id,
    returnNumber: ret.number,
    returnItemId: item.id,
    orderId: ret.order?.id ?? null,
    orderName: ret.order?.name ?? null,
    orderNumber: ret.order ? orderNumberOf(ret.order.name) : null,
    status: ret.status,
    customerEmail: ret.order ? ret.order.customerEmail : ret.customerEmail,
    ...describeItem(item),
    currency: ret.currency,
    carrier: ret.carrier,
    trackingNumber: ret.trackingNumber,
    trackingUrl: ret.trackingUrl,
    labelStatus: ret.labelStatus,
    labelUrl: ret.labelUrl,
    labelUpdatedAt: ret.labelUpdatedAt,
    restockStatus: restockStatusOf(ret),
    receivingLocationId: ret.destinationLocationId,
    receivingLocationName: ret.destinationLocation?.name ?? null,
    externalReferenceId: ret.externalReferenceId,
    reason: item.reason,
    outcome: item.outcome,
    createdAt: ret.createdAt,
    updatedAt: ret.updatedAt,
    closedAt,
    deliveredAt,
  }));
}

/**
 * One row per line item still on a return created in [from, to), oldest return first (ties by
 * number); deleted returns are left out.
 */
export async function listAsnRows(reads: Reads, storeId: string, window: { from: Date; to: Date }): Promise<AsnRow[]> {
  const returns = await reads.return.findMany({
    where: asnReturnsWhere(storeId, window),
    orderBy: [{ createdAt: 'asc' }, { number: 'asc' }],
    select: ASN_RETURN_SELECT,
  });
  return returns.flatMap(asnRowsOf);
}
