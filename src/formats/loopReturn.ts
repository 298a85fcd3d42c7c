// The warehouse platform's return shapes (decisions.md "Compatibility interface"):
// snake_case objects, money as decimal strings, the platform's own `state` derived
// from our native status, and the GraphQL selections these are read from. Names
// that exist only on this interface (state, close, cancel ...) live here and nowhere else.
// A format, not a door: the warehouse door answers these shapes and the `loop` webhook kind
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
    id number status createdAt updatedAt currency carrier trackingNumber labelStatus labelUrl
    total { amount }
    customerEmail
    order { id name submittedCustomer { email } }
    items {
      id reason outcome barcode title sku
      unitPrice { amount } discount { amount } tax { amount } refund { amount }
      orderLineItem { externalProductId externalVariantId }
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
  currency: string;
  carrier: string | null;
  trackingNumber: string | null;
  labelStatus: string | null;
  labelUrl: string | null;
  total: Amount;
  customerEmail: string | null;
  /** Null for a return imported from another system. */
  order: { id: string; name: string; submittedCustomer: { email: string | null } | null } | null;
  items: {
    id: string;
    reason: string | null;
    outcome: string;
    barcode: string | null;
    title: string;
    sku: string | null;
    unitPrice: Amount;
    discount: Amount;
    tax: Amount;
    refund: Amount;
    /** Null on an imported return, whose items name our product instead. */
    orderLineItem: { externalProductId: string; externalVariantId: string | null } | null;
    product: { id: string } | null;
  }[];
}

/** The return's outcome as the platform reports it: the items' common outcome, else "mixed". */
function outcomeOf(items: CompatReturnNode['items']): string | null {
  const outcomes = [...new Set(items.map((item) => item.outcome.toLowerCase()))];
  if (outcomes.length === 0) return null;
  return outcomes.length === 1 ? outcomes[0] : 'mixed';
}

export function compatReturn(node: CompatReturnNode) {
  return {
    id: node.number,
    svc_id: node.id,
    state: stateOf(node.status),
    created_at: node.createdAt,
    updated_at: node.updatedAt,
    order_id: node.order?.id ?? null,
    order_name: node.order?.name ?? null,
    customer: node.order ? (node.order.submittedCustomer?.email ?? null) : node.customerEmail,
    currency: node.currency,
    total: node.total.amount,
    outcome: outcomeOf(node.items),
    carrier: node.carrier,
    tracking_number: node.trackingNumber,
    label_status: node.labelStatus,
    label_url: node.labelUrl,
    line_items: node.items.map((item) => ({
      line_item_id: item.id,
      product_id: item.orderLineItem?.externalProductId ?? item.product?.id ?? null,
      variant_id: item.orderLineItem?.externalVariantId ?? null,
      sku: item.sku,
      title: item.title,
      price: item.unitPrice.amount,
      discount: item.discount.amount,
      tax: item.tax.amount,
      refund: item.refund.amount,
      return_reason: item.reason,
      barcode: item.barcode,
      outcome: item.outcome.toLowerCase(),
    })),
  };
}

export type LoopTrigger = 'return.created' | 'return.updated' | 'return.closed';

/**
 * The platform's return webhook (topic `return`): the same return as its API answers, with
 * the trigger, the shop, and the webhook's own names (`edited_at`, `return_total`, `labels`).
 * The platform has no deleted state; a deleted return is announced as cancelled.
 */
export function loopReturnWebhook(node: CompatReturnNode, event: { trigger: LoopTrigger; shopId: string }) {
  const { id, state, updated_at: updatedAt, carrier, tracking_number: trackingNumber, label_status: labelStatus, label_url: labelUrl, ...rest } = compatReturn(node);
  return {
    topic: 'return',
    trigger: event.trigger,
    shop_id: event.shopId,
    ...rest,
    id: String(id),
    state: state === 'deleted' ? 'cancelled' : state,
    edited_at: updatedAt === rest.created_at ? null : updatedAt,
    return_total: rest.total,
    labels: labelUrl || trackingNumber ? [{ status: labelStatus, url: labelUrl, carrier, tracking_number: trackingNumber }] : [],
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
  returnId returnNumber returnItemId orderId orderName status customerEmail title sku barcode
  unitPrice { amount } currency carrier trackingNumber labelStatus createdAt updatedAt`;

export interface AsnRowNode {
  returnId: string;
  returnNumber: number;
  returnItemId: string;
  orderId: string | null;
  orderName: string | null;
  status: string;
  customerEmail: string | null;
  title: string;
  sku: string | null;
  barcode: string | null;
  unitPrice: Amount | null;
  currency: string;
  carrier: string | null;
  trackingNumber: string | null;
  labelStatus: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * An advance shipping notice row. `id` is the return's numeric id, as the platform's
 * own rows carry it (tools act on `/return/{id}/...` with it); `return_id` is the svc_id.
 */
export function compatAsnRow(row: AsnRowNode) {
  return {
    id: row.returnNumber,
    return_id: row.returnId,
    return_line_item_id: row.returnItemId,
    order_id: row.orderId,
    order_name: row.orderName,
    state: stateOf(row.status),
    customer_email: row.customerEmail,
    title: row.title,
    sku: row.sku,
    barcode: row.barcode,
    purchase_price: row.unitPrice?.amount ?? null,
    currency: row.currency,
    carrier: row.carrier,
    tracking_number: row.trackingNumber,
    label_status: row.labelStatus,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}
