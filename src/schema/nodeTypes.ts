import type { IdKind } from '../domain/ids.ts';

// GraphQL object type of each id prefix, for node(id:) and global id decoding.
const TYPENAMES: Partial<Record<IdKind | 'return', string>> = {
  location: 'Location',
  product: 'Product',
  productFamily: 'ProductFamily',
  productImage: 'ProductImage',
  attribute: 'Attribute',
  inventoryLevel: 'LocationInventoryLevel',
  inboundShipment: 'InboundShipment',
  inboundShipmentItem: 'InboundShipmentItem',
  purchaseOrder: 'PurchaseOrder',
  purchaseOrderItem: 'PurchaseOrderItem',
  order: 'Order',
  customer: 'Customer',
  webhookSubscription: 'WebhookSubscription',
  return: 'Return',
};

export function typenameForIdKind(kind: IdKind | 'return'): string | undefined {
  return TYPENAMES[kind];
}
