// The REST return and order objects as the reference document's return-read.schema and
// order-read.schema (the REST door's contract), and the GraphQL selections they are read
// from. The served OpenAPI document takes their JSON Schemas from the reference itself.
// A format, not a door: the REST door answers these objects and the webhook kinds that speak
// the reference (src/webhooks/payloads.ts) send them, so they live below both.

export const REST_RETURN_FRAGMENT = `
  fragment RestReturn on Return {
    id status type currency createdAt updatedAt carrier trackingNumber trackingUrl labelStatus labelUrl tags
    customerEmail customerFirstName customerLastName
    originAddress { line1 line2 city state postalCode country }
    order {
      id name externalId
      submittedCustomer { email phoneNumber firstName lastName }
      shippingAddress { address1 address2 city province country postalCode }
    }
    items { id quantity reason reasonCode customerComment outcome sku unitPrice { amount currency } orderLineItem { id externalId externalProductId } product { id } }
    destination { line1 line2 city state postalCode country }
    totalRefund { amount currency }
    totalStoreCredit { amount currency }
    notes { id content createdAt }
  }`;

export const REST_ORDER_FRAGMENT = `
  fragment RestOrder on Order {
    id name externalId currency
    submittedCustomer { email firstName lastName }
    lineItems { id externalId title quantity price { amount currency } fulfillmentLocation { id } }
    totalDiscount { amount currency }
    subtotalPrice { amount currency }
    shippingCost { amount currency }
    totalTax { amount currency }
    totalPrice { amount currency }
  }`;

interface MoneyNode {
  amount: string;
  currency: string;
}

export interface RestReturnNode {
  id: string;
  status: string;
  type: string;
  currency: string;
  createdAt: string;
  updatedAt: string;
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  originAddress: Address | null;
  labelStatus: string | null;
  labelUrl: string | null;
  tags: string[];
  customerEmail: string | null;
  customerFirstName: string | null;
  customerLastName: string | null;
  /** Null for a return imported from another system. */
  order: {
    id: string;
    name: string;
    externalId: string;
    submittedCustomer: { email: string | null; phoneNumber: string | null; firstName: string | null; lastName: string | null } | null;
    shippingAddress: {
      address1: string | null;
      address2: string | null;
      city: string | null;
      province: string | null;
      country: string | null;
      postalCode: string | null;
    } | null;
  } | null;
  items: {
    id: string;
    quantity: number;
    reason: string | null;
    reasonCode: string | null;
    customerComment: string | null;
    outcome: string;
    sku: string | null;
    unitPrice: MoneyNode;
    /** Null on an imported return, whose items name a product instead. */
    orderLineItem: { id: string; externalId: string; externalProductId: string } | null;
    product: { id: string } | null;
  }[];
  destination: { line1: string | null; line2: string | null; city: string | null; state: string | null; postalCode: string | null; country: string | null } | null;
  totalRefund: MoneyNode;
  totalStoreCredit: MoneyNode;
  notes: { id: string; content: string; createdAt: string }[];
}

export interface RestOrderNode {
  id: string;
  name: string;
  externalId: string;
  currency: string;
  submittedCustomer: { email: string | null; firstName: string | null; lastName: string | null } | null;
  lineItems: { id: string; externalId: string; title: string; quantity: number; price: MoneyNode | null; fulfillmentLocation: { id: string } | null }[];
  totalDiscount: MoneyNode | null;
  subtotalPrice: MoneyNode | null;
  shippingCost: MoneyNode | null;
  totalTax: MoneyNode | null;
  totalPrice: MoneyNode | null;
}

/** No coverage is sold by this service: every flag is false. */
const NO_COVERAGE = { covered: false, returnsCoverage: false, packageProtection: false, finalSaleCoverage: false };

type Address = { line1: string | null; line2: string | null; city: string | null; state: string | null; postalCode: string | null; country: string | null };

/**
 * The reference's address: line1, city, state, postalCode and country are required strings
 * and line2 defaults to "", so an unknown part is "" (never null).
 */
function referenceAddress(address: Address) {
  return {
    line1: address.line1 ?? '',
    line2: address.line2 ?? '',
    city: address.city ?? '',
    state: address.state ?? '',
    postalCode: address.postalCode ?? '',
    country: address.country ?? '',
  };
}

const zero = (currency: string): MoneyNode => ({ amount: '0', currency });

/** Only the members that have a value: the reference's optional strings are never null. */
function present<T extends Record<string, unknown>>(object: T): Partial<{ [K in keyof T]: NonNullable<T[K]> }> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== null && value !== undefined)) as Partial<{
    [K in keyof T]: NonNullable<T[K]>;
  }>;
}

/** A return as the reference document's `return-read.schema`. */
export function restReturn(node: RestReturnNode) {
  const customer = node.order ? node.order.submittedCustomer : { email: node.customerEmail, phoneNumber: null, firstName: node.customerFirstName, lastName: node.customerLastName };
  const address = node.originAddress ?? node.order?.shippingAddress ?? null;
  const shipment = present({ carrier: node.carrier, tracker: node.trackingNumber, trackingUrl: node.trackingUrl, postageLabel: node.labelUrl });
  const outcomes = new Set(node.items.map((item) => item.outcome));
  return {
    id: node.id,
    status: node.status.toLowerCase(),
    type: node.type.toLowerCase(),
    createdAt: node.createdAt,
    updatedAt: node.updatedAt,
    // The document requires an order; an imported return has none, so its order id is empty.
    order: node.order ? { id: node.order.id, name: node.order.name } : { id: '' },
    items: node.items.map((item) => ({
      id: item.id,
      orderItem: item.orderLineItem ? { id: item.orderLineItem.id, line_item_id: item.orderLineItem.externalId } : { id: '' },
      ...present({ productId: item.orderLineItem?.externalProductId ?? item.product?.id, sku: item.sku }),
      quantity: item.quantity,
      reason: item.reason ?? '',
      reasons: item.reason ? [item.reason] : [],
      ...present({ reasonCode: item.reasonCode, customerComment: item.customerComment }),
      reasonCodes: item.reasonCode ? [item.reasonCode] : [],
      outcome: item.outcome.toLowerCase(),
      productValueNoTaxNoAdjustment: { amount: item.unitPrice },
    })),
    compensationMethods: [
      ...(outcomes.has('REFUND') ? ['refund'] : []),
      ...(outcomes.has('CREDIT') ? ['store_credit'] : []),
      ...(outcomes.has('EXCHANGE') ? ['exchange'] : []),
    ],
    source: {
      name: { given: customer?.firstName ?? '', surname: customer?.lastName ?? '' },
      emailAddress: customer?.email ?? '',
      phoneNumber: customer?.phoneNumber ?? '',
      mailingAddress: referenceAddress(
        address
          ? 'line1' in address
            ? address
            : { line1: address.address1, line2: address.address2, city: address.city, state: address.province, postalCode: address.postalCode, country: address.country }
          : { line1: null, line2: null, city: null, state: null, postalCode: null, country: null },
      ),
    },
    destination: node.destination ? { mailingAddress: referenceAddress(node.destination) } : {},
    giftCards: [],
    protection: { ...NO_COVERAGE, labelPayer: null, labelPayerReason: null },
    totals: {
      refund: { amount: node.totalRefund },
      exchange: { amount: zero(node.currency) },
      storeCredit: { amount: node.totalStoreCredit },
      charge: { amount: zero(node.currency) },
    },
    notes: node.notes.map((note) => ({ message: note.content })),
    tags: node.tags.map((name) => ({ name, source: 'merchant' })),
    externalOrderIds: node.order ? [node.order.externalId] : [],
    ...(Object.keys(shipment).length > 0 ? { shipment, shipments: [shipment] } : { shipments: [] }),
  };
}

/** An order as the reference document's `order-read.schema`; amounts the order did not state are 0. */
export function restOrder(node: RestOrderNode) {
  const orZero = (value: MoneyNode | null) => value ?? zero(node.currency);
  return {
    id: node.id,
    name: node.name,
    externalId: node.externalId,
    customer: {
      name: { given: node.submittedCustomer?.firstName ?? '', surname: node.submittedCustomer?.lastName ?? '' },
      ...present({ emailAddress: node.submittedCustomer?.email }),
    },
    items: node.lineItems.map((line) => ({
      id: line.id,
      externalId: line.externalId,
      product: { name: line.title },
      variant: { name: line.title },
      quantity: line.quantity,
      price: orZero(line.price),
      fulfillmentLocationId: line.fulfillmentLocation?.id ?? null,
    })),
    discounts: orZero(node.totalDiscount),
    lineItemsTotal: orZero(node.subtotalPrice),
    shippingCost: orZero(node.shippingCost),
    taxes: orZero(node.totalTax),
    total: orZero(node.totalPrice),
    protection: NO_COVERAGE,
  };
}

/** A page of the returns list: each return, and each order they belong to once. */
export function restReturnList(nodes: (RestReturnNode & { order: RestOrderNode | null })[]) {
  const orders = new Map<string, RestOrderNode>();
  for (const { order } of nodes) if (order && !orders.has(order.id)) orders.set(order.id, order);
  return { returns: nodes.map(restReturn), orders: [...orders.values()].map(restOrder) };
}

/**
 * The order-read object the document requires beside an imported return, which has no
 * order: empty id and name, no items, zero amounts, the customer the import named.
 */
export function restNoOrder(node: RestReturnNode) {
  const none = zero(node.currency);
  return {
    id: '',
    name: '',
    customer: { name: { given: node.customerFirstName ?? '', surname: node.customerLastName ?? '' }, ...present({ emailAddress: node.customerEmail }) },
    items: [],
    discounts: none,
    lineItemsTotal: none,
    shippingCost: none,
    taxes: none,
    total: none,
    protection: NO_COVERAGE,
  };
}
