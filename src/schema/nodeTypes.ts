import { ID_PREFIXES, type IdKind } from '../domain/ids.ts';

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

/** Description of the `id` of a Node type: the shape of its ids and the scope `node(id:)` needs for it. */
export function idDescriptionOf(typename: string, scope: string): string {
  const kind = (Object.keys(TYPENAMES) as (IdKind | 'return')[]).find((k) => TYPENAMES[k] === typename);
  const shape = !kind ? 'it starts with a type prefix' : kind === 'return' ? 'its 24 hex digits are the svc_id' : `it starts with \`${ID_PREFIXES[kind]}_\``;
  return `Opaque id of this ${typename}, unique across the service (${shape}); \`node(id:)\` fetches it again (needs ${scope}).`;
}
