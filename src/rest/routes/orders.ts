// POST /stores/{storeId}/orders (spec 4.2, decisions.md "Orders"), a hand-written
// adapter over the v3 `orderCreate` mutation. Its failures follow decisions.md: 400,
// 401 and 409 are `{error}` bodies (the route's errorStyle, which the door honours
// too), anything else problem+json. The body's JSON types are checked here against
// the documented schema (properties the schema does not name are ignored, as the
// specification does not forbid them); every value rule is the domain's. The body's
// `currencyCode` is the v3 input's `currency`, and messages name it as the request does.
import type { ExecutionResult } from 'graphql';
import { json } from '../../http/door.ts';
import type { JsonSchema, Route, RouteInput } from '../../http/routeTable.ts';
import type { ClassifiedError } from '../../schema/errors.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import { checkShape, withoutNulls } from '../bodyShape.ts';
import { inputCoercionIssues, problemFromError } from '../problem.ts';

// The reference document lets every optional field of the request be null; null means "not given".
const nullable = (schema: JsonSchema): JsonSchema => ({ ...schema, type: [schema.type as string, 'null'] });
const NULLABLE_STRING = nullable({ type: 'string' });

const AMOUNT = (description: string): JsonSchema =>
  nullable({ type: 'number', minimum: 0, description: `${description}; a decimal amount in the order currency, not minor units` });

const ADDRESS: JsonSchema = {
  type: 'object',
  properties: {
    address1: NULLABLE_STRING,
    address2: NULLABLE_STRING,
    city: NULLABLE_STRING,
    province: NULLABLE_STRING,
    country: NULLABLE_STRING,
    postalCode: NULLABLE_STRING,
  },
};

const LINE_ITEM: JsonSchema = {
  type: 'object',
  required: ['id', 'productId', 'title', 'quantity'],
  properties: {
    id: { type: 'string', minLength: 1, description: "The merchant's line item id, unique in the order" },
    productId: { type: 'string', minLength: 1, description: "The merchant's product id; our prd_ id links the line to that product" },
    title: { type: 'string', minLength: 1 },
    quantity: { type: 'integer', minimum: 1, maximum: 1000 },
    variantId: NULLABLE_STRING,
    sku: nullable({ type: 'string', description: "Links the line to the store's product with this SKU when productId does not" }),
    price: AMOUNT('Unit price'),
    imageUrl: nullable({ type: 'string', maxLength: 2048 }),
    discount: AMOUNT('Discount on the line'),
  },
};

const ORDER_REQUEST: JsonSchema = {
  type: 'object',
  required: ['orderId', 'createdAt', 'lineItems'],
  properties: {
    orderId: { type: 'string', minLength: 1, description: 'Unique identifier of the order in the store' },
    createdAt: { type: 'string', format: 'date-time', description: 'ISO 8601 date-time of order creation, with a time zone' },
    lineItems: { type: 'array', minItems: 1, items: LINE_ITEM },
    customer: {
      type: 'object',
      properties: {
        id: NULLABLE_STRING,
        email: nullable({ type: 'string', format: 'email' }),
        phoneNumber: NULLABLE_STRING,
        name: NULLABLE_STRING,
        firstName: NULLABLE_STRING,
        lastName: NULLABLE_STRING,
      },
    },
    shipping: {
      type: 'object',
      properties: { method: NULLABLE_STRING, cost: AMOUNT('Shipping cost'), address: ADDRESS },
    },
    totalPrice: AMOUNT('Total including tax and shipping'),
    subtotalPrice: AMOUNT('Excludes tax and shipping'),
    totalTax: AMOUNT('Tax'),
    totalDiscount: AMOUNT('Discounts applied (coupons, promotions)'),
    billingAddress: ADDRESS,
    tags: nullable({ type: 'array', items: { type: 'string' } }),
    currencyCode: nullable({ type: 'string', pattern: '^[A-Za-z]{3}$', description: 'ISO 4217; the store currency when omitted' }),
    locationId: nullable({
      type: 'string',
      pattern: '^loc_',
      description:
        "A location (loc_) of the store or of a linked fulfillment service, as listed by the inventory levels; the fulfillment origin. " +
        "The store's default origin address when omitted.",
    }),
  },
};

const ORDER_RESPONSE: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['orderId', 'externalOrderId'],
  properties: {
    orderId: { type: 'string', pattern: '^ord_', description: 'Our order id' },
    externalOrderId: { type: 'string', description: 'The orderId of the request' },
  },
};

const ERROR_BODY: JsonSchema = { type: 'object', additionalProperties: false, required: ['error'], properties: { error: { type: 'string' } } };

const CREATE = defineOperation(`
  mutation RestCreateOrder($input: OrderInput!) {
    orderCreate(input: $input) { id externalId }
  }`);

function error(status: number, message: string) {
  return json(status, { error: message });
}

/**
 * The message of a refused input, naming the request's own field. A result without
 * `data` failed while coercing the input (a bad date-time or decimal): each of its
 * errors names one field; otherwise the domain's message already names them.
 */
function inputMessage(outcome: { error: ClassifiedError; result: ExecutionResult }): string {
  if ('data' in outcome.result || !outcome.result.errors?.length) return restFieldNames(outcome.error.message);
  return inputCoercionIssues(outcome.result)
    .map((issue) => (issue.path ? `${restFieldNames(issue.path)}: ${issue.message}` : issue.message))
    .join('; ');
}

/** The request names the order currency `currencyCode` (spec 2.4); the v3 input calls it `currency`. */
function restFieldNames(message: string): string {
  return message.replace(/(^|; )currency(?=:)/g, '$1currencyCode');
}

async function create(input: RouteInput) {
  const shape = checkShape(ORDER_REQUEST, input.body);
  if (shape.issues.length > 0) return error(400, shape.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; '));
  const { currencyCode, ...order } = withoutNulls(shape.value) as Record<string, unknown>;
  const variables = { input: currencyCode === undefined ? order : { ...order, currency: currencyCode } };
  const outcome = await runOperation<{ orderCreate: { id: string; externalId: string } }>(CREATE, variables, input.ctx);
  if (outcome.ok) return json(200, { orderId: outcome.data.orderCreate.id, externalOrderId: outcome.data.orderCreate.externalId });
  const failure = outcome.error;
  if (failure.code === 'BAD_USER_INPUT') return error(400, inputMessage(outcome));
  if (failure.code === 'CONFLICT') return error(409, failure.message);
  return problemFromError(failure, input.instance);
}

export const orderRoutes: Route[] = [
  {
    method: 'POST',
    path: '/stores/{storeId}/orders',
    scopes: ['orders_write'],
    errorStyle: 'error',
    doc: {
      summary: 'Create order',
      tag: 'Orders',
      description:
        'Creates an order with line items, customer information and shipping details. Lines whose productId or sku ' +
        "matches one of the store's products commit their quantity at the fulfillment location (`locationId`, else the store's " +
        'default location); a valid order is never refused for stock: what exceeds the available quantity is recorded as oversold.',
      requestBody: { required: true, schema: ORDER_REQUEST, description: 'Order creation request' },
      responses: {
        '200': { description: 'The order was created', schema: ORDER_RESPONSE },
        '400': { description: 'Invalid body; the message names the offending field', schema: ERROR_BODY },
        '401': { description: 'Missing, malformed, unknown or revoked API secret', schema: ERROR_BODY },
        '409': { description: 'An order with this orderId already exists in the store', schema: ERROR_BODY },
      },
    },
    handle: create,
  },
];
