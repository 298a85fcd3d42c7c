// The REST return and order objects (decisions.md "Returns"): the original returns
// platform's shapes, which strict legacy clients parse, with their JSON Schemas for
// the OpenAPI document and the GraphQL selections they are read from.
import type { JsonSchema } from '../routeTable.ts';

export const REST_RETURN_FRAGMENT = `
  fragment RestReturn on Return {
    id status type currency createdAt updatedAt carrier trackingNumber trackingUrl labelStatus labelUrl tags
    originAddress { line1 line2 city state postalCode country }
    order {
      id name externalId
      submittedCustomer { email phoneNumber firstName lastName }
      shippingAddress { address1 address2 city province country postalCode }
    }
    items { id quantity reason outcome unitPrice { amount currency } orderLineItem { id externalId title sku externalProductId } }
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
  };
  items: {
    id: string;
    quantity: number;
    reason: string | null;
    outcome: string;
    unitPrice: MoneyNode;
    orderLineItem: { id: string; externalId: string; title: string; sku: string | null; externalProductId: string };
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
  const customer = node.order.submittedCustomer;
  const address = node.originAddress ?? node.order.shippingAddress;
  const shipment = present({ carrier: node.carrier, tracker: node.trackingNumber, trackingUrl: node.trackingUrl, postageLabel: node.labelUrl });
  const outcomes = new Set(node.items.map((item) => item.outcome));
  return {
    id: node.id,
    status: node.status.toLowerCase(),
    type: node.type.toLowerCase(),
    createdAt: node.createdAt,
    updatedAt: node.updatedAt,
    order: { id: node.order.id, name: node.order.name },
    items: node.items.map((item) => ({
      id: item.id,
      orderItem: { id: item.orderLineItem.id, line_item_id: item.orderLineItem.externalId },
      productId: item.orderLineItem.externalProductId,
      ...present({ sku: item.orderLineItem.sku }),
      quantity: item.quantity,
      reason: item.reason ?? '',
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
    externalOrderIds: [node.order.externalId],
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

// ---------------------------------------------------------------- JSON Schemas

const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const nullableString: JsonSchema = { type: ['string', 'null'] };

function object(properties: Record<string, JsonSchema>, description?: string): JsonSchema {
  return { type: 'object', ...(description ? { description } : {}), additionalProperties: false, required: Object.keys(properties), properties };
}

export const MONEY_SCHEMA: JsonSchema = object(
  {
    amount: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$', description: 'Decimal amount in the currency, e.g. "12.50"' },
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' },
  },
  'Money: an exact decimal string and its currency',
);

const ADDRESS_SCHEMA = object({
  line1: nullableString,
  line2: nullableString,
  city: nullableString,
  state: nullableString,
  postalCode: nullableString,
  country: nullableString,
});

const PERSON_NAME_SCHEMA = object({ given: nullableString, surname: nullableString });

const COVERAGE_PROPERTIES = {
  covered: { type: 'boolean', const: false },
  returnsCoverage: { type: 'boolean', const: false },
  packageProtection: { type: 'boolean', const: false },
  finalSaleCoverage: { type: 'boolean', const: false },
};

export const RETURN_SCHEMA: JsonSchema = object(
  {
    id: { type: 'string', pattern: '^[0-9a-f]{24}$', description: 'svc_id of the return' },
    status: {
      type: 'string',
      enum: ['open', 'in_transit', 'delivered', 'needs_review', 'in_review', 'flagged', 'complete', 'rejected', 'deleted'],
    },
    type: { type: 'string', enum: ['return', 'claim', 'warranty'] },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    order: object({ id: { type: 'string', pattern: '^ord_' }, name: { type: 'string' } }),
    items: {
      type: 'array',
      description: 'The items on the return (removed items are not listed)',
      items: object({
        id: { type: 'string', pattern: '^rli_' },
        orderItem: object({ id: { type: 'string', pattern: '^oli_' } }),
        quantity: { type: 'integer', minimum: 1 },
        reason: nullableString,
        product: object({ id: { type: 'string', description: "The order line's productId" }, title: { type: 'string' }, sku: nullableString }),
        price: { ...MONEY_SCHEMA, description: 'Price of one unit as ordered' },
        outcome: { type: 'string', enum: ['refund', 'credit', 'exchange', 'keep'] },
      }),
    },
    source: object(
      { name: PERSON_NAME_SCHEMA, emailAddress: nullableString, phoneNumber: nullableString, mailingAddress: nullable(ADDRESS_SCHEMA) },
      "The customer, from the order; the mailing address is the order's shipping address",
    ),
    destination: { ...nullable(ADDRESS_SCHEMA), description: 'Address of the location receiving the return' },
    giftCards: { type: 'array', maxItems: 0 },
    protection: object(
      { ...COVERAGE_PROPERTIES, labelPayer: { type: 'null' }, labelPayerReason: { type: 'null' } },
      'No coverage is sold here: all false',
    ),
    totals: object({ refund: MONEY_SCHEMA, storeCredit: MONEY_SCHEMA }, 'Recorded when the return is processed'),
    notes: {
      type: 'array',
      items: object({ id: { type: 'string', pattern: '^rnt_' }, content: { type: 'string' }, createdAt: { type: 'string', format: 'date-time' } }),
    },
    tags: { type: 'array', items: { type: 'string' } },
    shipment: {
      ...nullable(object({ carrier: nullableString, trackingNumber: nullableString, labelStatus: nullableString, labelUrl: nullableString })),
      description: 'Null until a label exists',
    },
  },
  'A return',
);

export const ORDER_SCHEMA: JsonSchema = object(
  {
    id: { type: 'string', pattern: '^ord_' },
    name: { type: 'string' },
    externalId: { type: 'string', description: "The merchant's orderId" },
    customer: object({ name: PERSON_NAME_SCHEMA, emailAddress: nullableString }),
    items: {
      type: 'array',
      items: object({
        id: { type: 'string', pattern: '^oli_' },
        product: object({ name: { type: 'string' } }),
        variant: object({ name: { type: 'string' } }),
        quantity: { type: 'integer' },
        price: nullable(MONEY_SCHEMA),
        fulfillmentLocationId: { type: ['string', 'null'], description: "Location fulfilling the line (the order's locationId, else the store's default location); null for older orders" },
      }),
    },
    discounts: nullable(MONEY_SCHEMA),
    lineItemsTotal: nullable(MONEY_SCHEMA),
    shippingCost: nullable(MONEY_SCHEMA),
    taxes: nullable(MONEY_SCHEMA),
    total: nullable(MONEY_SCHEMA),
    protection: object(COVERAGE_PROPERTIES),
  },
  'An order a listed return belongs to; amounts the order did not state are null',
);
