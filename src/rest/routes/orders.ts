// POST /stores/{storeId}/orders (docs/interface-rules.md, "Orders"), a hand-written
// adapter over the v3 `orderCreate` mutation. Its failures are its integrations': 400,
// 401 and 409 are `{error}` bodies (the route's errorStyle, which the door honours
// too), anything else problem+json. The body's JSON types are checked here against
// the documented schema (properties the schema does not name are ignored, as the
// specification does not forbid them); every value rule is the domain's. The body's
// `currencyCode` is the v3 input's `currency`, and messages name it as the request does.
import type { ExecutionResult } from 'graphql';
import { json } from '../../http/door.ts';
import type { JsonSchema, Route, RouteInput } from '../../http/routeTable.ts';
import { ERROR_BODY_SCHEMA } from '../schemas.ts';
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

/** The request names the order currency `currencyCode`; the v3 input calls it `currency`. */
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

const IMPORT = defineOperation(`
  mutation RestImportOrders($orders: [OrderInput!]!, $commitStock: Boolean) {
    ordersImport(orders: $orders, commitStock: $commitStock) { index order { id name externalId } userErrors { code field message } }
  }`);

const MAX_IMPORTED_ORDERS = 1000;

const IMPORT_REQUEST: JsonSchema = {
  type: 'object',
  required: ['orders'],
  properties: {
    orders: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_IMPORTED_ORDERS,
      // Each order's own shape is checked apart, so that a bad one is refused alone.
      items: { type: 'object', description: 'An order creation request (as POST /stores/{storeId}/orders takes)' },
    },
    commitStock: { type: 'boolean', description: "Commit the lines' stock at the fulfillment location as order creation does; false by default (historical orders)" },
  },
};

const IMPORT_RESULT: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['index', 'status'],
  properties: {
    index: { type: 'integer', description: 'Position of the order in the request, from 0' },
    status: { type: 'string', enum: ['created', 'error'] },
    orderId: { type: 'string', pattern: '^ord_', description: 'Our order id (created)' },
    externalOrderId: { type: 'string', description: 'The orderId of the request (created)' },
    name: { type: 'string', description: "The order's number in the store, as #1001 (created)" },
    statusCode: { type: 'integer', enum: [400, 409], description: 'The status order creation answers this refusal with (error)' },
    error: { type: 'string', description: 'Why the order was refused, as order creation words it (error)' },
  },
};

const IMPORT_RESPONSE: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['totalCount', 'processedCount', 'errorCount', 'results'],
  properties: {
    totalCount: { type: 'integer' },
    processedCount: { type: 'integer', description: 'Orders written' },
    errorCount: { type: 'integer', description: 'Orders refused' },
    results: { type: 'array', items: IMPORT_RESULT },
  },
};

type ImportResult =
  | { index: number; status: 'created'; orderId: string; externalOrderId: string; name: string }
  | { index: number; status: 'error'; statusCode: 400 | 409; error: string };

// `Variable "$orders" got invalid value "x" at "orders[3].createdAt"; DateTime must be ...`
const ORDER_VALUE_ERROR = /^Variable "\$orders" got invalid value .*? at "orders\[(\d+)\]\.([^"]+)"; ([\s\S]*)$/;

type ImportOutcome = Awaited<ReturnType<typeof runOperation<{ ordersImport: { index: number; order: { id: string; name: string; externalId: string } | null; userErrors: { code: string; field: string[] | null; message: string }[] }[] }>>>;

/** The orders whose values did not coerce (a bad date-time or decimal), each with its message; empty when the failure is another. */
function coercionRefusals(outcome: ImportOutcome): Map<number, string> {
  const refused = new Map<number, string>();
  if (outcome.ok || 'data' in outcome.result) return refused;
  for (const error of outcome.result.errors ?? []) {
    const match = ORDER_VALUE_ERROR.exec(error.message);
    if (!match) return new Map();
    const index = Number(match[1]);
    const issue = `${restFieldNames(match[2].replace(/\[(\d+)\]/g, '.$1'))}: ${match[3]}`;
    refused.set(index, refused.has(index) ? `${refused.get(index)}; ${issue}` : issue);
  }
  return refused;
}

/**
 * Many orders in one request: each order's JSON shape and values are judged as order creation
 * judges them, a refused one is reported at its index with the status and message creation
 * would answer, and the others are written (v3 ordersImport). A body that is not a list of 1
 * to 1,000 orders is a 400 and nothing is written.
 */
async function importOrders(input: RouteInput) {
  const shape = checkShape(IMPORT_REQUEST, input.body);
  if (shape.issues.length > 0) return error(400, shape.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; '));
  const { orders, commitStock } = shape.value as { orders: unknown[]; commitStock?: boolean };
  // The shape check judges JSON types only; the list's bounds are this route's.
  if (orders.length < 1 || orders.length > MAX_IMPORTED_ORDERS) return error(400, `orders: must list 1 to ${MAX_IMPORTED_ORDERS} orders`);
  const results: ImportResult[] = new Array(orders.length);
  let pending: { index: number; variables: Record<string, unknown> }[] = [];
  orders.forEach((order, index) => {
    const checked = checkShape(ORDER_REQUEST, order);
    if (checked.issues.length > 0) {
      results[index] = { index, status: 'error', statusCode: 400, error: checked.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ') };
      return;
    }
    const { currencyCode, ...rest } = withoutNulls(checked.value) as Record<string, unknown>;
    pending.push({ index, variables: currencyCode === undefined ? rest : { ...rest, currency: currencyCode } });
  });
  while (pending.length > 0) {
    const outcome = await runOperation<{ ordersImport: { index: number; order: { id: string; name: string; externalId: string } | null; userErrors: { code: string; field: string[] | null; message: string }[] }[] }>(
      IMPORT,
      { orders: pending.map((p) => p.variables), commitStock: commitStock ?? false },
      input.ctx,
    );
    if (outcome.ok) {
      for (const result of outcome.data.ordersImport) {
        const { index } = pending[result.index];
        if (result.order) {
          results[index] = { index, status: 'created', orderId: result.order.id, externalOrderId: result.order.externalId, name: result.order.name };
        } else {
          const conflict = result.userErrors.some((e) => e.code === 'CONFLICT');
          const message = result.userErrors.map((e) => (!conflict && e.field && e.field.length > 2 ? `${restFieldNames(e.field.slice(2).join('.'))}: ${e.message}` : e.message)).join('; ');
          results[index] = { index, status: 'error', statusCode: conflict ? 409 : 400, error: message };
        }
      }
      break;
    }
    const refused = coercionRefusals(outcome);
    if (refused.size === 0) return outcome.error.code === 'BAD_USER_INPUT' ? error(400, outcome.error.message) : problemFromError(outcome.error, input.instance);
    for (const [position, message] of refused) results[pending[position].index] = { index: pending[position].index, status: 'error', statusCode: 400, error: message };
    pending = pending.filter((_p, position) => !refused.has(position));
  }
  const errors = results.filter((result) => result.status === 'error').length;
  return json(200, { totalCount: results.length, processedCount: results.length - errors, errorCount: errors, results });
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
        '400': { description: 'Invalid body; the message names the offending field', schema: ERROR_BODY_SCHEMA },
        '401': { description: 'Missing, malformed, unknown or revoked API secret', schema: ERROR_BODY_SCHEMA },
        '409': { description: 'An order with this orderId already exists in the store', schema: ERROR_BODY_SCHEMA },
      },
    },
    handle: create,
  },
  {
    method: 'POST',
    path: '/stores/{storeId}/orders/bulk',
    scopes: ['orders_write'],
    errorStyle: 'error',
    doc: {
      summary: 'Import orders',
      tag: 'Orders',
      description:
        `Creates 1 to ${MAX_IMPORTED_ORDERS} existing orders in one request (an integration's sync, a platform's history). Each order is ` +
        'the body of order creation and is judged as order creation judges it; a refused one is reported at its index with the status ' +
        'and message creation would answer (400 invalid, 409 an orderId the store has or that appears earlier in the request) while the ' +
        'others are written, in batches. Historical orders commit no stock unless `commitStock` is true. With an Idempotency-Key, a ' +
        'retried request is answered with the first answer and nothing is written again.',
      requestBody: { required: true, schema: IMPORT_REQUEST, description: 'The orders, and whether they commit stock' },
      responses: {
        '200': { description: 'Every order was judged: `results` says, by index, which were created and why the others were refused', schema: IMPORT_RESPONSE },
        '400': { description: 'The body is not a list of 1 to 1,000 orders; nothing was written', schema: ERROR_BODY_SCHEMA },
        '401': { description: 'Missing, malformed, unknown or revoked API secret', schema: ERROR_BODY_SCHEMA },
      },
    },
    handle: importOrders,
  },
];
