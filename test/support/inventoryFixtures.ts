// Locations, products, inventory levels, purchase orders and inbound shipments
// written straight into a test database, with chosen timestamps so list order is
// known in advance.
import type { Database } from '../../src/db/database.ts';
import { newId } from '../../src/domain/ids.ts';
import type { InboundShipmentStatus } from '../../src/generated/prisma/client.ts';

export async function seedLocation(db: Database, storeId: string, name: string): Promise<string> {
  const { id } = await db.prisma.location.create({ data: { id: newId('location'), storeId, name } });
  return id;
}

export async function seedProduct(db: Database, storeId: string, input: { title: string; sku?: string | null }): Promise<string> {
  const { id } = await db.prisma.product.create({ data: { id: newId('product'), storeId, title: input.title, sku: input.sku ?? null } });
  return id;
}

export interface LevelSeed {
  /** The store owning the product. */
  storeId: string;
  productId: string;
  locationId: string;
  quantity?: number;
  committed?: number;
  reserved?: number;
  buildable?: number;
  updatedAt?: Date;
}

export async function seedLevel(db: Database, seed: LevelSeed): Promise<string> {
  const { id } = await db.prisma.inventoryLevel.create({
    data: {
      id: newId('inventoryLevel'),
      storeId: seed.storeId,
      productId: seed.productId,
      locationId: seed.locationId,
      quantity: seed.quantity ?? 0,
      committed: seed.committed ?? 0,
      reserved: seed.reserved ?? 0,
      buildable: seed.buildable ?? 0,
      ...(seed.updatedAt ? { createdAt: seed.updatedAt, updatedAt: seed.updatedAt } : {}),
    },
  });
  return id;
}

export interface ShipmentSeed {
  storeId: string;
  locationId: string;
  status?: InboundShipmentStatus;
  carrier?: string;
  carrierShipmentId?: string;
  trackingNumber?: string;
  trackingUrl?: string;
  freightType?: string;
  paymentTerms?: string;
  currency?: string;
  freightCost?: string;
  dutyCost?: string;
  estimatedArrivalDate?: Date;
  actualArrivalDate?: Date;
  createdAt?: Date;
  updatedAt?: Date;
  items?: { productId: string; quantity: number; receivedQuantity?: number; damagedQuantity?: number }[];
  purchaseOrderNames?: string[];
}

export async function seedShipment(db: Database, seed: ShipmentSeed): Promise<{ id: string; itemIds: string[]; purchaseOrderIds: string[] }> {
  const id = newId('inboundShipment');
  const items = (seed.items ?? []).map((item, index) => ({
    id: newId('inboundShipmentItem'),
    productId: item.productId,
    quantity: item.quantity,
    receivedQuantity: item.receivedQuantity ?? 0,
    damagedQuantity: item.damagedQuantity ?? 0,
    // Items list oldest first; distinct instants keep that order known.
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, index)),
  }));
  const purchaseOrders = (seed.purchaseOrderNames ?? []).map((name) => ({ id: newId('purchaseOrder'), storeId: seed.storeId, name }));
  await db.prisma.$transaction(async (tx) => {
    for (const po of purchaseOrders) await tx.purchaseOrder.create({ data: po });
    await tx.inboundShipment.create({
      data: {
        id,
        storeId: seed.storeId,
        locationId: seed.locationId,
        status: seed.status ?? 'PENDING',
        carrier: seed.carrier ?? null,
        carrierShipmentId: seed.carrierShipmentId ?? null,
        trackingNumber: seed.trackingNumber ?? null,
        trackingUrl: seed.trackingUrl ?? null,
        freightType: seed.freightType ?? null,
        paymentTerms: seed.paymentTerms ?? null,
        currency: seed.currency ?? 'USD',
        freightCost: seed.freightCost ?? null,
        dutyCost: seed.dutyCost ?? null,
        estimatedArrivalDate: seed.estimatedArrivalDate ?? null,
        actualArrivalDate: seed.actualArrivalDate ?? null,
        ...(seed.createdAt ? { createdAt: seed.createdAt } : {}),
        ...(seed.updatedAt ?? seed.createdAt ? { updatedAt: seed.updatedAt ?? seed.createdAt } : {}),
        items: { create: items },
        purchaseOrders: { create: purchaseOrders.map((po) => ({ purchaseOrderId: po.id })) },
      },
    });
  });
  return { id, itemIds: items.map((i) => i.id), purchaseOrderIds: purchaseOrders.map((po) => po.id) };
}
