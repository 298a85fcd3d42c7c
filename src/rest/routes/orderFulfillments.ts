// GET and DELETE /stores/{storeId}/orders/{orderId}, POST .../fulfillments and
// POST .../fulfillments/{fulfillmentId}/shipment-status, adapters over the v3
// orderByReference query and the orderDelete, fulfillmentCreate and
// fulfillmentShipmentStatusUpdate mutations. As the reference document says for the
// Orders group, 400, 401 and 404 are `{error}` bodies; anything else problem+json.
import { json } from '../../http/door.ts';
import type { JsonSchema, Route, RouteInput } from '../../http/routeTable.ts';
import { ERROR_BODY_SCHEMA } from '../schemas.ts';
import type { ClassifiedError } from '../../schema/errors.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import { checkShape } from '../bodyShape.ts';
import { problemFromError } from '../problem.ts';

const NULLABLE_STRING: JsonSchema = { type: ['string', 'null'] };

const SHIPMENT_STATUSES = ['pre_transit', 'unknown', 'in_transit', 'out_for_delivery', 'available_for_pickup', 'delivered', 'return_to_sender', 'failure', 'cancelled', 'error'];
const STATUS_UPDATES = [...SHIPMENT_STATUSES.filter((s) => s !== 'unknown'), 'stalled_in_transit', 'delayed', 'arriving_early'];

const TRACKING_LOCATION: JsonSchema = {
  type: 'object',
  properties: { city: NULLABLE_STRING, state: NULLABLE_STRING, country: NULLABLE_STRING, postalCode: NULLABLE_STRING },
};

const STATUS_UPDATE_REQUEST: JsonSchema = {
  type: 'object',
  required: ['status'],
  properties: {
    status: { type: 'string', enum: STATUS_UPDATES, description: 'A status replaces the current one; an event (stalled_in_transit, delayed, arriving_early) only adds history' },
    estimatedDeliveryDate: { type: ['string', 'null'], format: 'date-time' },
    message: NULLABLE_STRING,
    datetime: { type: ['string', 'null'], format: 'date-time' },
    location: TRACKING_LOCATION,
  },
};

const FULFILLMENT_REQUEST: JsonSchema = {
  type: 'object',
  required: ['lineItems'],
  properties: {
    fulfillmentId: { type: 'string', description: 'Unique in the order; generated when omitted' },
    lineItems: {
      type: 'array',
      minItems: 1,
      items: { type: 'object', required: ['id', 'quantity'], properties: { id: { type: 'string' }, quantity: { type: 'integer', minimum: 1, maximum: 1000 } } },
    },
    tracking: { type: ['object', 'null'], required: ['carrier', 'code'], properties: { carrier: { type: 'string' }, code: { type: 'string' } } },
    useDummyTracking: { type: 'boolean', description: 'Tracking is always recorded as sent; no carrier is called' },
    initialTracking: { ...STATUS_UPDATE_REQUEST, properties: { ...(STATUS_UPDATE_REQUEST.properties as object), status: { type: 'string', enum: SHIPMENT_STATUSES } } },
  },
};

const FULFILLMENT: JsonSchema = {
  type: 'object',
  required: ['id', 'createdAt', 'lineItems', 'status', 'trackingHistory'],
  properties: {
    id: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    lineItems: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'quantity', 'title', 'productId'],
        properties: { id: { type: 'string' }, quantity: { type: 'integer' }, title: { type: 'string' }, productId: { type: 'string' }, variantId: NULLABLE_STRING, sku: NULLABLE_STRING },
      },
    },
    trackingCompany: NULLABLE_STRING,
    trackingNumber: NULLABLE_STRING,
    status: { type: 'string', enum: SHIPMENT_STATUSES },
    estimatedDeliveryDate: { type: ['string', 'null'], pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    deliveredAt: { type: ['string', 'null'], format: 'date-time' },
    trackingHistory: { type: 'array', items: { type: 'object' } },
  },
};

const FULFILLMENT_FIELDS = `
  fragment RestFulfillment on Fulfillment {
    fulfillmentId createdAt status trackingCompany trackingNumber estimatedDeliveryDate deliveredAt
    lineItems { quantity orderLineItem { externalId title externalProductId externalVariantId sku } }
    trackingHistory { status message datetime location { city state country postalCode } }
  }`;

const GET = defineOperation(`
  query RestOrder($reference: String!) {
    orderByReference(reference: $reference) {
      externalId placedAt currency tags
      submittedCustomer { externalId email phoneNumber name firstName lastName }
      lineItems { externalId externalProductId externalVariantId title quantity sku price { amount } discount { amount } imageUrl }
      shippingMethod shippingCost { amount }
      shippingAddress { address1 address2 city province country postalCode }
      billingAddress { address1 address2 city province country postalCode }
      totalPrice { amount } subtotalPrice { amount } totalTax { amount } totalDiscount { amount }
      fulfillmentLocation { id }
      fulfillments { ...RestFulfillment }
    }
  }
  ${FULFILLMENT_FIELDS}`);

const DELETE = defineOperation(`
  mutation RestDeleteOrder($orderId: String!) { orderDelete(orderId: $orderId) { id externalId } }`);

const CREATE_FULFILLMENT = defineOperation(`
  mutation RestCreateFulfillment($orderId: String!, $input: FulfillmentInput!) {
    fulfillmentCreate(orderId: $orderId, input: $input) { ...RestFulfillment }
  }
  ${FULFILLMENT_FIELDS}`);

const UPDATE_STATUS = defineOperation(`
  mutation RestFulfillmentStatus($orderId: String!, $fulfillmentId: String!, $input: TrackingUpdateInput!) {
    fulfillmentShipmentStatusUpdate(orderId: $orderId, fulfillmentId: $fulfillmentId, input: $input) { ...RestFulfillment }
  }
  ${FULFILLMENT_FIELDS}`);

type Amount = { amount: string } | null;
interface FulfillmentNode {
  fulfillmentId: string;
  createdAt: string;
  status: string;
  trackingCompany: string | null;
  trackingNumber: string | null;
  estimatedDeliveryDate: string | null;
  deliveredAt: string | null;
  lineItems: { quantity: number; orderLineItem: { externalId: string; title: string; externalProductId: string; externalVariantId: string | null; sku: string | null } }[];
  trackingHistory: { status: string; message: string; datetime: string; location: Record<string, string | null> | null }[];
}

const amount = (value: Amount) => (value === null ? null : Number(value.amount));

function fulfillmentJson(node: FulfillmentNode) {
  return {
    id: node.fulfillmentId,
    createdAt: node.createdAt,
    lineItems: node.lineItems.map((l) => ({
      id: l.orderLineItem.externalId,
      quantity: l.quantity,
      title: l.orderLineItem.title,
      productId: l.orderLineItem.externalProductId,
      variantId: l.orderLineItem.externalVariantId,
      sku: l.orderLineItem.sku,
    })),
    trackingCompany: node.trackingCompany,
    trackingNumber: node.trackingNumber,
    status: node.status,
    estimatedDeliveryDate: node.estimatedDeliveryDate,
    deliveredAt: node.deliveredAt,
    trackingHistory: node.trackingHistory.map((e) => ({ message: e.message, status: e.status, datetime: e.datetime, ...(e.location ? { location: e.location } : {}) })),
  };
}

interface OrderNode {
  externalId: string;
  placedAt: string;
  currency: string;
  tags: string[];
  submittedCustomer: Record<string, string | null> | null;
  lineItems: {
    externalId: string;
    externalProductId: string;
    externalVariantId: string | null;
    title: string;
    quantity: number;
    sku: string | null;
    price: Amount;
    discount: Amount;
    imageUrl: string | null;
  }[];
  shippingMethod: string | null;
  shippingCost: Amount;
  shippingAddress: Record<string, string | null> | null;
  billingAddress: Record<string, string | null> | null;
  totalPrice: Amount;
  subtotalPrice: Amount;
  totalTax: Amount;
  totalDiscount: Amount;
  fulfillmentLocation: { id: string } | null;
  fulfillments: FulfillmentNode[];
}

/** The order as its creation request sent it (null where nothing was sent), with its fulfillments. */
function orderJson(order: OrderNode) {
  const customer = order.submittedCustomer;
  const shipping = order.shippingMethod !== null || order.shippingCost !== null || order.shippingAddress !== null;
  return {
    orderId: order.externalId,
    createdAt: order.placedAt,
    lineItems: order.lineItems.map((l) => ({
      id: l.externalId,
      productId: l.externalProductId,
      variantId: l.externalVariantId,
      sku: l.sku,
      title: l.title,
      quantity: l.quantity,
      price: amount(l.price),
      imageUrl: l.imageUrl,
      discount: amount(l.discount),
    })),
    ...(customer ? { customer: { id: customer.externalId, email: customer.email, phoneNumber: customer.phoneNumber, name: customer.name, firstName: customer.firstName, lastName: customer.lastName } } : {}),
    ...(shipping ? { shipping: { method: order.shippingMethod, cost: amount(order.shippingCost), ...(order.shippingAddress ? { address: order.shippingAddress } : {}) } } : {}),
    totalPrice: amount(order.totalPrice),
    subtotalPrice: amount(order.subtotalPrice),
    totalTax: amount(order.totalTax),
    totalDiscount: amount(order.totalDiscount),
    ...(order.billingAddress ? { billingAddress: order.billingAddress } : {}),
    tags: order.tags,
    currencyCode: order.currency,
    locationId: order.fulfillmentLocation?.id ?? null,
    fulfillments: order.fulfillments.map(fulfillmentJson),
  };
}

function error(status: number, message: string) {
  return json(status, { error: message });
}

function failed(failure: ClassifiedError, instance: string) {
  if (failure.code === 'BAD_USER_INPUT') return error(400, failure.message);
  if (failure.code === 'NOT_FOUND') return error(404, failure.message);
  return problemFromError(failure, instance);
}

function shapeError(issues: { path: string; message: string }[]) {
  return error(400, issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; '));
}

async function getOrder(input: RouteInput) {
  const outcome = await runOperation<{ orderByReference: OrderNode | null }>(GET, { reference: input.params.orderId }, input.ctx);
  if (!outcome.ok) return failed(outcome.error, input.instance);
  if (!outcome.data.orderByReference) return error(404, `order ${input.params.orderId} not found`);
  return json(200, orderJson(outcome.data.orderByReference));
}

async function deleteOrder(input: RouteInput) {
  const outcome = await runOperation<{ orderDelete: { id: string; externalId: string } }>(DELETE, { orderId: input.params.orderId }, input.ctx);
  if (!outcome.ok) return failed(outcome.error, input.instance);
  return json(200, { success: true, orderId: outcome.data.orderDelete.id, externalOrderId: outcome.data.orderDelete.externalId });
}

/** A null of the request is a field not given. */
function withoutNulls<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)) as T;
}

async function createFulfillment(input: RouteInput) {
  const shape = checkShape(FULFILLMENT_REQUEST, input.body);
  if (shape.issues.length > 0) return shapeError(shape.issues);
  const { useDummyTracking: _dummy, initialTracking, ...body } = withoutNulls(shape.value as Record<string, unknown>);
  const variables = { orderId: input.params.orderId, input: { ...body, ...(initialTracking ? { initialTracking: withoutNulls(initialTracking as object) } : {}) } };
  const outcome = await runOperation<{ fulfillmentCreate: FulfillmentNode }>(CREATE_FULFILLMENT, variables, input.ctx);
  if (!outcome.ok) return failed(outcome.error, input.instance);
  return json(200, { success: true, fulfillment: fulfillmentJson(outcome.data.fulfillmentCreate) });
}

async function updateStatus(input: RouteInput) {
  const shape = checkShape(STATUS_UPDATE_REQUEST, input.body);
  if (shape.issues.length > 0) return shapeError(shape.issues);
  const variables = { orderId: input.params.orderId, fulfillmentId: input.params.fulfillmentId, input: withoutNulls(shape.value as object) };
  const outcome = await runOperation<{ fulfillmentShipmentStatusUpdate: FulfillmentNode }>(UPDATE_STATUS, variables, input.ctx);
  if (!outcome.ok) return failed(outcome.error, input.instance);
  return json(200, { success: true, fulfillment: fulfillmentJson(outcome.data.fulfillmentShipmentStatusUpdate) });
}

const FULFILLMENT_RESPONSE: JsonSchema = { type: 'object', required: ['success', 'fulfillment'], properties: { success: { const: true }, fulfillment: FULFILLMENT } };
const ERRORS = {
  '400': { description: 'Invalid body; the message names the field', schema: ERROR_BODY_SCHEMA },
  '401': { description: 'Missing, unknown or revoked API secret', schema: ERROR_BODY_SCHEMA },
  '404': { description: 'No such order (or fulfillment) in the store', schema: ERROR_BODY_SCHEMA },
};

export const orderFulfillmentRoutes: Route[] = [
  {
    method: 'GET',
    path: '/stores/{storeId}/orders/{orderId}',
    scopes: ['orders_read'],
    errorStyle: 'error',
    // The reference declares 401 and 404 of this operation as application/json; a 400 is its default, problem+json.
    errorStatuses: [401, 404],
    doc: {
      summary: 'Get Order',
      tag: 'Orders',
      description: "The order as created, with its fulfillments; orderId is our id, the merchant's orderId or the order name (#1001).",
      responses: {
        '200': {
          description: 'The order',
          schema: {
            type: 'object',
            required: ['orderId', 'createdAt', 'lineItems', 'fulfillments'],
            properties: {
              orderId: { type: 'string' },
              createdAt: { type: 'string', format: 'date-time' },
              lineItems: { type: 'array', items: { type: 'object' } },
              fulfillments: { type: 'array', items: FULFILLMENT },
            },
          },
        },
        '401': ERRORS['401'],
        '404': ERRORS['404'],
      },
    },
    handle: getOrder,
  },
  {
    method: 'DELETE',
    path: '/stores/{storeId}/orders/{orderId}',
    scopes: ['orders_write'],
    errorStyle: 'error',
    // The reference declares 401 and 404 of this operation as application/json; a 400 is its default, problem+json.
    errorStatuses: [401, 404],
    doc: {
      summary: 'Delete Order',
      tag: 'Orders',
      description: "Deletes the order and releases the stock it committed; an order with returns is kept (409 problem). orderId is our id or the merchant's orderId.",
      responses: {
        '200': {
          description: 'Deleted',
          schema: { type: 'object', required: ['success', 'orderId', 'externalOrderId'], properties: { success: { type: 'boolean' }, orderId: { type: 'string' }, externalOrderId: { type: 'string' } } },
        },
        '401': ERRORS['401'],
        '404': ERRORS['404'],
        '409': { description: 'The order has returns', problem: true },
      },
    },
    handle: deleteOrder,
  },
  {
    method: 'POST',
    path: '/stores/{storeId}/orders/{orderId}/fulfillments',
    scopes: ['orders_write'],
    errorStyle: 'error',
    doc: {
      summary: 'Create Fulfillment',
      tag: 'Orders',
      description: 'Fulfills units of the order lines with tracking; over all fulfillments a line never ships more than it ordered. A fulfillmentId the order already has is a 409 problem.',
      requestBody: { required: true, schema: FULFILLMENT_REQUEST },
      responses: { '200': { description: 'The fulfillment', schema: FULFILLMENT_RESPONSE }, ...ERRORS, '409': { description: 'Duplicate fulfillmentId', problem: true } },
    },
    handle: createFulfillment,
  },
  {
    method: 'POST',
    path: '/stores/{storeId}/orders/{orderId}/fulfillments/{fulfillmentId}/shipment-status',
    scopes: ['orders_write'],
    errorStyle: 'error',
    doc: {
      summary: 'Update Fulfillment Status',
      tag: 'Orders',
      description: 'A shipment status replaces the current status; an automation event (stalled_in_transit, delayed, arriving_early) leaves it. Both add a tracking history entry.',
      requestBody: { required: true, schema: STATUS_UPDATE_REQUEST },
      responses: { '200': { description: 'The fulfillment', schema: FULFILLMENT_RESPONSE }, ...ERRORS },
    },
    handle: updateStatus,
  },
];
