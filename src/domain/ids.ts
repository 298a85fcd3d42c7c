// Opaque, prefixed, service-wide unique ids (decisions.md "Identifiers").
import crypto from 'node:crypto';

export const ID_PREFIXES = {
  store: 'str',
  location: 'loc',
  product: 'prd',
  productFamily: 'pfm',
  productFamilyOption: 'pfo',
  productImage: 'img',
  attribute: 'atr',
  attributeValue: 'atv',
  inventoryLevel: 'li',
  inventoryAdjustment: 'iad',
  inboundShipment: 'inb',
  inboundShipmentItem: 'isp',
  purchaseOrder: 'po',
  purchaseOrderItem: 'poi',
  order: 'ord',
  orderLineItem: 'oli',
  fulfillmentGroup: 'ful',
  fulfillment: 'fmt',
  fulfillmentLineItem: 'fml',
  fulfillmentTrackingEvent: 'ftk',
  customer: 'cus',
  customField: 'cfd',
  returnItem: 'rli',
  returnNote: 'rnt',
  returnStatusChange: 'rsc',
  webhookSubscription: 'whk',
  webhookDelivery: 'dlv',
  deliveryAttempt: 'dat',
  event: 'evt',
  apiClient: 'apc',
  merchantUser: 'usr',
  coverageProduct: 'cvp',
  orderCoverage: 'ocv',
  storefrontEvent: 'sfe',
  customEvent: 'cev',
  invoice: 'inv',
  invoiceItem: 'ini',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** `prefix_` + 20 base-36 characters (~103 bits of randomness). */
export function newId(kind: IdKind): string {
  const bytes = crypto.randomBytes(20);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % 36];
  return `${ID_PREFIXES[kind]}_${out}`;
}

/** A return's svc_id: 24 hex digits, object-id style (4-byte seconds, 8 random bytes). */
export function newReturnId(now = Date.now()): string {
  const time = Math.floor(now / 1000).toString(16).padStart(8, '0');
  return time + crypto.randomBytes(8).toString('hex');
}

export function isReturnId(value: string): boolean {
  return /^[0-9a-f]{24}$/.test(value);
}

/** The kind an id names, from its prefix; undefined for an unknown shape. */
export function kindOfId(id: string): IdKind | 'return' | undefined {
  if (isReturnId(id)) return 'return';
  const prefix = id.slice(0, id.indexOf('_'));
  return (Object.keys(ID_PREFIXES) as IdKind[]).find((kind) => ID_PREFIXES[kind] === prefix);
}
