// Purchase orders and the inbound shipments carrying them: one shipment at sea with two
// purchase orders on board (it brings the oversold shoe back), one received in full, one
// partly received with damaged units, one still pending at the fulfillment service's
// location, and a purchase order still in draft.
import { createInboundShipment, markInboundShipmentInTransit, receiveInboundShipment } from '../inbound.ts';
import { createPurchaseOrder } from '../purchasing.ts';
import { OVERSOLD_SKU, type DemoProduct } from './catalog.ts';
import { dayFromNow, type DemoContext } from './context.ts';

export async function seedSupply(context: DemoContext, products: DemoProduct[]): Promise<void> {
  const { tx, storeId } = context;
  const bySku = (sku: string) => {
    const product = products.find((p) => p.sku === sku);
    if (!product) throw new Error(`the demo catalogue has no ${sku}`);
    return product.id;
  };
  const itemsOf = async (purchaseOrderId: string) =>
    tx.purchaseOrderItem.findMany({ where: { purchaseOrderId }, orderBy: { product: { sku: 'asc' } }, select: { id: true, quantity: true } });

  // At sea: tees and the oversold shoe, on two purchase orders.
  const tees = await createPurchaseOrder(tx, storeId, {
    name: 'PO-1001',
    vendor: 'Portugal Knitwear',
    status: 'ORDERED',
    expectedAt: dayFromNow(context, 5),
    items: ['TEE-RED-M', 'TEE-BLUE-M', 'TEE-GREEN-L'].map((sku) => ({ productId: bySku(sku), quantity: 60, unitCost: '9.50', totalTax: '57.00' })),
  });
  const shoes = await createPurchaseOrder(tx, storeId, {
    name: 'PO-1004',
    vendor: 'Ridge Footwear Co.',
    status: 'ORDERED',
    expectedAt: dayFromNow(context, 5),
    items: [
      { productId: bySku(OVERSOLD_SKU), quantity: 24, unitCost: '48.00', totalTax: '115.20' },
      { productId: bySku('RUN-10-WIDE'), quantity: 12, unitCost: '48.00', totalTax: '57.60' },
    ],
  });
  const atSea = await createInboundShipment(tx, storeId, {
    locationId: context.warehouseId,
    carrier: 'Maersk',
    shipmentId: 'MSK-778812',
    trackingNumber: 'MAEU778812004',
    trackingUrl: 'https://tracking.example.com/maersk/MAEU778812004',
    freightType: 'OCEAN',
    paymentTerms: 'NET30',
    freightCost: '350.00',
    dutyCost: '120.40',
    estimatedArrivalDate: dayFromNow(context, 5),
    items: [...(await itemsOf(tees.id)), ...(await itemsOf(shoes.id))].map((item) => ({ purchaseOrderItemId: item.id, quantity: item.quantity })),
  });
  await markInboundShipmentInTransit(tx, storeId, atSea.id);

  // Received in full three weeks ago.
  const hoodies = await createPurchaseOrder(tx, storeId, {
    name: 'PO-1002',
    vendor: 'Summit Textiles',
    status: 'ORDERED',
    expectedAt: dayFromNow(context, -21),
    items: ['HOOD-CHARCOAL-M', 'HOOD-CHARCOAL-L', 'HOOD-FOREST-M', 'HOOD-FOREST-L'].map((sku) => ({ productId: bySku(sku), quantity: 20, unitCost: '24.00', totalTax: '48.00' })),
  });
  const received = await createInboundShipment(tx, storeId, {
    locationId: context.warehouseId,
    carrier: 'DHL Freight',
    shipmentId: 'DHL-55120',
    trackingNumber: 'JD014600006281230011',
    freightType: 'TRUCK',
    paymentTerms: 'NET30',
    freightCost: '180.00',
    dutyCost: '64.00',
    estimatedArrivalDate: dayFromNow(context, -22),
    items: (await itemsOf(hoodies.id)).map((item) => ({ purchaseOrderItemId: item.id, quantity: item.quantity })),
  });
  await markInboundShipmentInTransit(tx, storeId, received.id);
  const receivedItems = await tx.inboundShipmentItem.findMany({ where: { shipmentId: received.id }, select: { id: true, quantity: true } });
  await receiveInboundShipment(tx, storeId, received.id, {
    items: receivedItems.map((item) => ({ itemId: item.id, receivedQuantity: item.quantity })),
    actualArrivalDate: dayFromNow(context, -21),
  });

  // Partly received, two caps damaged in transit; the rest of the navy ones still to come.
  const caps = await createPurchaseOrder(tx, storeId, {
    name: 'PO-1003',
    vendor: 'Canvas & Co',
    status: 'ORDERED',
    expectedAt: dayFromNow(context, -3),
    items: ['CAP-KHAKI', 'CAP-NAVY'].map((sku) => ({ productId: bySku(sku), quantity: 40, unitCost: '6.00', totalTax: '12.00' })),
  });
  const partial = await createInboundShipment(tx, storeId, {
    locationId: context.warehouseId,
    carrier: 'UPS Freight',
    shipmentId: 'UPSF-90311',
    trackingNumber: '1Z999AA10123456784',
    trackingUrl: 'https://tracking.example.com/ups/1Z999AA10123456784',
    freightType: 'LTL',
    paymentTerms: 'PREPAID',
    freightCost: '95.00',
    estimatedArrivalDate: dayFromNow(context, -3),
    items: (await itemsOf(caps.id)).map((item) => ({ purchaseOrderItemId: item.id, quantity: item.quantity })),
  });
  await markInboundShipmentInTransit(tx, storeId, partial.id);
  const [khaki, navy] = await tx.inboundShipmentItem.findMany({
    where: { shipmentId: partial.id },
    orderBy: { product: { sku: 'asc' } },
    select: { id: true },
  });
  await receiveInboundShipment(tx, storeId, partial.id, {
    items: [
      { itemId: khaki.id, receivedQuantity: 38, damagedQuantity: 2 },
      { itemId: navy.id, receivedQuantity: 25 },
    ],
    actualArrivalDate: dayFromNow(context, -2),
  });

  // Booked with the fulfillment service, not yet picked up; no purchase order behind it.
  await createInboundShipment(tx, storeId, {
    locationId: context.serviceLocationId,
    carrier: 'FedEx Freight',
    freightType: 'LTL',
    estimatedArrivalDate: dayFromNow(context, 12),
    items: [
      { productId: bySku('SOCK-MERINO'), quantity: 120 },
      { productId: bySku('TEE-BLUE-L'), quantity: 40 },
    ],
  });

  await createPurchaseOrder(tx, storeId, {
    name: 'PO-1005',
    vendor: 'Alpine Bottles',
    expectedAt: dayFromNow(context, 30),
    items: [{ productId: bySku('BOTTLE-750'), quantity: 50, unitCost: '11.00' }],
  });
}
