// The other returns platform's return shapes (docs/interface-rules.md, "Compat door"):
// snake_case objects, money as decimal strings, the platform's own `state` derived
// from our native status, and the GraphQL selections these are read from. Names
// that exist only on this interface (state, close, cancel ...) live here and nowhere else.
// A format, not a door: the compat door answers these shapes and the `loop` webhook kind
// sends them, so they live below both.

/** Native statuses (GraphQL enum names) by the platform's state. */
export const STATUSES_BY_STATE = {
  open: ['OPEN', 'IN_TRANSIT', 'DELIVERED'],
  review: ['NEEDS_REVIEW', 'IN_REVIEW', 'FLAGGED'],
  closed: ['COMPLETE'],
  cancelled: ['REJECTED'],
} as const;

export type CompatState = keyof typeof STATUSES_BY_STATE | 'deleted';

export const COMPAT_STATES = Object.keys(STATUSES_BY_STATE) as (keyof typeof STATUSES_BY_STATE)[];

/** States a list shows when the client names none. */
export const DEFAULT_LIST_STATES: readonly (keyof typeof STATUSES_BY_STATE)[] = ['open', 'closed', 'cancelled'];

export function stateOf(status: string): CompatState {
  for (const state of COMPAT_STATES) {
    if ((STATUSES_BY_STATE[state] as readonly string[]).includes(status)) return state;
  }
  return 'deleted';
}

export const COMPAT_RETURN_FRAGMENT = `
  fragment CompatReturn on Return {
    id number status createdAt updatedAt editedAt currency multiCurrency carrier trackingNumber labelStatus labelUrl
    total { amount } productTotal { amount } discountTotal { amount } taxTotal { amount }
    totalRefund { amount } totalStoreCredit { amount }
    customerEmail orderNumber originCountry originCountryCode receivingLocationId
    order { id name externalId submittedCustomer { email } }
    items {
      id reason customerComment outcome barcode title variantTitle imageUrl sku createdAt
      unitPrice { amount } discount { amount } tax { amount } refund { amount } refundItem { amount } refundTax { amount }
      orderLineItem { externalId externalProductId externalVariantId }
      product { id }
    }
  }`;

interface Amount {
  amount: string;
}

export interface CompatReturnNode {
  id: string;
  number: number;
  status: string;
  createdAt: string;
  updatedAt: string;
  editedAt: string | null;
  currency: string;
  multiCurrency: boolean;
  carrier: string | null;
  trackingNumber: string | null;
  labelStatus: string | null;
  labelUrl: string | null;
  total: Amount;
  productTotal: Amount;
  discountTotal: Amount;
  taxTotal: Amount;
  totalRefund: Amount;
  totalStoreCredit: Amount;
  customerEmail: string | null;
  orderNumber: string | null;
  originCountry: string | null;
  originCountryCode: string | null;
  receivingLocationId: string | null;
  /** Null for a return imported from another system. */
  order: { id: string; name: string; externalId: string; submittedCustomer: { email: string | null } | null } | null;
  items: {
    id: string;
    reason: string | null;
    customerComment: string | null;
    outcome: string;
    barcode: string | null;
    title: string;
    variantTitle: string | null;
    imageUrl: string | null;
    sku: string | null;
    createdAt: string;
    unitPrice: Amount;
    discount: Amount;
    tax: Amount;
    refund: Amount;
    refundItem: Amount;
    refundTax: Amount;
    /** Null on an imported return, whose items name our product instead. */
    orderLineItem: { externalId: string; externalProductId: string; externalVariantId: string | null } | null;
    product: { id: string } | null;
  }[];
}

/** The return's outcome as the platform reports it: the items' common outcome, else "mixed". */
function outcomeOf(items: CompatReturnNode['items']): string | null {
  const outcomes = [...new Set(items.map((item) => item.outcome.toLowerCase()))];
  if (outcomes.length === 0) return null;
  return outcomes.length === 1 ? outcomes[0] : 'mixed';
}

/**
 * How an endpoint writes what the platform's examples write differently: Get Return Details
 * (and the return webhook, which sends the same body) gives times as "2023-08-22 14:08:31"
 * (UTC) and the merchant's ids as JSON integers; the Detailed Returns List gives ISO 8601
 * times and every id as a string.
 */
export type CompatStyle = 'details' | 'list';

/** A time of ours (ISO 8601, UTC) as the style writes it. */
function timeIn(style: CompatStyle, iso: string): string;
function timeIn(style: CompatStyle, iso: string | null): string | null;
function timeIn(style: CompatStyle, iso: string | null): string | null {
  if (iso === null || style === 'list') return iso;
  return iso.slice(0, 19).replace('T', ' ');
}

/**
 * A merchant's id (the platform's provider ids) as the style writes it: details writes a
 * number where the id is one (a Shopify id is); an id that is not a number stays a string.
 */
function providerId(style: CompatStyle, id: string | null): string | number | null {
  if (id === null || style === 'list' || !/^\d+$/.test(id)) return id;
  const value = Number(id);
  return Number.isSafeInteger(value) ? value : id;
}

/**
 * What the platform reports for its concepts this service has no counterpart of: exchanges
 * (a line's EXCHANGE outcome records no replacement order or variant), upsell and handling
 * fees; its example values for "none".
 */
const NO_EXCHANGE = {
  exchange: null,
  exchange_order_name: null,
  exchange_order_id: null,
  exchange_product_total: '0.00',
  exchange_discount_total: '0.00',
  exchange_tax_total: '0.00',
  exchange_total: '0.00',
  exchange_credit_total: '0.00',
  handling_fee: '0.00',
  upsell: '0.00',
} as const;

/**
 * The platform's return (Get Return Details, the Detailed Returns List and the return webhook):
 * every field its reference documents, from our return read through COMPAT_RETURN_FRAGMENT,
 * in `style`. The amounts are the schema's; this only renames and formats.
 */
export function compatReturn(node: CompatReturnNode, style: CompatStyle) {
  const refunded = node.totalRefund.amount;
  return {
    id: node.number,
    svc_id: node.id,
    state: stateOf(node.status),
    created_at: timeIn(style, node.createdAt),
    updated_at: timeIn(style, node.updatedAt),
    edited_at: timeIn(style, node.editedAt),
    order_id: node.order?.id ?? null,
    order_name: node.order?.name ?? null,
    order_number: node.orderNumber,
    provider_order_id: providerId(style, node.order?.externalId ?? null),
    provider_order_number: providerId(style, node.orderNumber),
    customer: node.order ? (node.order.submittedCustomer?.email ?? null) : node.customerEmail,
    origin_country: node.originCountry,
    origin_country_code: node.originCountryCode,
    multi_currency: node.multiCurrency,
    currency: node.currency,
    total: node.total.amount,
    outcome: outcomeOf(node.items),
    return_product_total: node.productTotal.amount,
    return_discount_total: node.discountTotal.amount,
    return_tax_total: node.taxTotal.amount,
    return_total: node.total.amount,
    // The credit the return is worth: its total, every discount here being honoured.
    return_credit_total: node.total.amount,
    ...NO_EXCHANGE,
    // Store credit is what the platform issues as a gift card; there is no gift card order.
    gift_card: node.totalStoreCredit.amount,
    gift_card_order_name: null,
    gift_card_order_id: null,
    refund: refunded,
    // The refund processing recorded, in one piece: no payment gateway or refund id is kept here.
    refunds: Number(refunded) > 0 ? [{ gateway: null, amount: refunded, currency: node.currency, provider_refund_id: null }] : [],
    carrier: node.carrier,
    tracking_number: node.trackingNumber,
    label_status: node.labelStatus,
    label_url: node.labelUrl,
    destination_id: node.receivingLocationId,
    line_items: node.items.map((item) => ({
      line_item_id: item.id,
      provider_line_item_id: providerId(style, item.orderLineItem?.externalId ?? null),
      product_id: providerId(style, item.orderLineItem?.externalProductId ?? item.product?.id ?? null),
      variant_id: providerId(style, item.orderLineItem?.externalVariantId ?? null),
      sku: item.sku,
      line_item_title: item.title,
      variant_title: item.variantTitle,
      title: item.title,
      image: item.imageUrl,
      price: item.unitPrice.amount,
      discount: item.discount.amount,
      tax: item.tax.amount,
      refund: item.refund.amount,
      refund_item: item.refundItem.amount,
      refund_tax: item.refundTax.amount,
      // Both references write this one in ISO 8601.
      returned_at: item.createdAt,
      exchange_variant: '',
      return_reason: item.reason,
      parent_return_reason: null,
      return_comment: item.customerComment,
      barcode: item.barcode,
      outcome: item.outcome.toLowerCase(),
      provider_restock_location_id: node.receivingLocationId,
      consolidation_tracking: null,
    })),
  };
}

export type LoopTrigger = 'return.created' | 'return.updated' | 'return.closed';

/**
 * The platform's return webhook (topic `return`): the Get Return Details body, with the
 * trigger, the shop, the id as the webhook's example writes it (a string) and the label.
 * The platform has no deleted state; a deleted return is announced as cancelled.
 */
export function loopReturnWebhook(node: CompatReturnNode, event: { trigger: LoopTrigger; shopId: string }) {
  const body = compatReturn(node, 'details');
  return {
    topic: 'return',
    trigger: event.trigger,
    shop_id: event.shopId,
    ...body,
    id: String(body.id),
    state: body.state === 'deleted' ? 'cancelled' : body.state,
    labels:
      body.label_url || body.tracking_number
        ? [{ status: body.label_status, url: body.label_url, carrier: body.carrier, tracking_number: body.tracking_number }]
        : [],
  };
}

export type LoopLabelTrigger = 'label.created' | 'label.updated';

/** The label as an event recorded it (return_label.created / .updated). */
export interface LabelEventData {
  carrier: string | null;
  trackingNumber: string | null;
  labelStatus: string | null;
}

/**
 * The platform's label webhook (topic `label`): the label the event recorded, on the return
 * read when it is delivered. `at` is when the event was recorded: the label's last change.
 * A label without a shipment status reports the platform's "N/A"; there is no shipment id here.
 */
export function loopLabelWebhook(node: CompatReturnNode, label: LabelEventData, event: { trigger: LoopLabelTrigger; shopId: string; at: string }) {
  return {
    topic: 'label',
    trigger: event.trigger,
    shop_id: event.shopId,
    id: node.number,
    order_id: node.order?.id ?? null,
    provider_order_id: providerId('details', node.order?.externalId ?? null),
    carrier: label.carrier,
    tracking_number: label.trackingNumber,
    label_status: label.labelStatus ?? 'N/A',
    label_updated_at: event.at,
    shipment_id: null,
  };
}

export interface CompatNoteNode {
  id: string;
  content: string;
  createdAt: string;
}

export function compatNote(note: CompatNoteNode) {
  return { id: note.id, content: note.content, created_at: note.createdAt };
}

export const ASN_ROW_FIELDS = `
  returnId returnNumber returnItemId orderId orderName orderNumber status customerEmail title sku barcode
  unitPrice { amount } currency carrier trackingNumber trackingUrl labelStatus labelUrl restockStatus
  receivingLocationId receivingLocationName externalReferenceId reason outcome createdAt updatedAt closedAt deliveredAt labelUpdatedAt`;

export interface AsnRowNode {
  returnId: string;
  returnNumber: number;
  returnItemId: string;
  orderId: string | null;
  orderName: string | null;
  orderNumber: string | null;
  status: string;
  customerEmail: string | null;
  title: string;
  sku: string | null;
  barcode: string | null;
  unitPrice: Amount | null;
  currency: string;
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  labelStatus: string | null;
  labelUrl: string | null;
  restockStatus: string | null;
  receivingLocationId: string | null;
  receivingLocationName: string | null;
  externalReferenceId: string | null;
  reason: string | null;
  outcome: string;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  deliveredAt: string | null;
  labelUpdatedAt: string | null;
}

/**
 * What the platform's notice reports of its concepts this service has no counterpart of: a
 * shipping service or rate, how and by
 * which return method (drop-off, box) a return travels, and the provider's own return.
 */
const NO_RETURN_METHOD = {
  service: null,
  label_rate: null,
  actioned_by: null,
  return_method: null,
  return_method_state: null,
  package_reference: null,
  shipping_box_barcode: null,
  provider_created_at: null,
} as const;

/**
 * An advance shipping notice row: every field the platform's reference documents for it, in
 * its order, from our row read through ASN_ROW_FIELDS. `id` is the return's numeric id, as the
 * platform's own rows carry it (tools act on `/return/{id}/...` with it); `return_id` is the svc_id.
 */
export function compatAsnRow(row: AsnRowNode) {
  return {
    id: row.returnNumber,
    return_id: row.returnId,
    return_line_item_id: row.returnItemId,
    order_id: row.orderId,
    order_name: row.orderName,
    order_number: row.orderNumber,
    // One number names an order here: ours and the merchant's platform's are the same.
    provider_order_number: row.orderNumber,
    state: stateOf(row.status),
    customer_email: row.customerEmail,
    title: row.title,
    sku: row.sku,
    barcode: row.barcode,
    purchase_price: row.unitPrice?.amount ?? null,
    carrier: row.carrier,
    label_status: row.labelStatus,
    tracking_number: row.trackingNumber,
    integration_tracking_url: row.trackingUrl,
    restock_status: row.restockStatus,
    currency: row.currency,
    label_url: row.labelUrl,
    label_updated_at: row.labelUpdatedAt,
    closed_at: row.closedAt,
    updated_at: row.updatedAt,
    created_at: row.createdAt,
    return_reason: row.reason,
    // An imported return's RMA id is both its authorization code and what is scanned at intake.
    return_method_rma_code: row.externalReferenceId,
    date_delivered: row.deliveredAt,
    outcome: row.outcome.toLowerCase(),
    scannable_id: row.externalReferenceId,
    destination_id: row.receivingLocationId,
    destination_name: row.receivingLocationName,
    ...NO_RETURN_METHOD,
  };
}
