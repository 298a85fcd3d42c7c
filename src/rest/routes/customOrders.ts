// POST /stores/{storeId}/custom/orders (the reference's "Sync Custom Order"), a
// hand-written adapter over the v3 `orderSync` mutation: the first sync of an order id
// creates the order, later ones update it in place. Served from the reference document,
// so the route carries no doc. Its failures follow the document: 400, 401 and 500 are
// `{error, errors?}` bodies (application/json), 403 and 404 problem+json.
//
// The request's money sets are read in the presentment currency (what the shopper paid
// and is refunded in). Recorded: the order, its customer, addresses, tags, lines (with
// their discounts and taxes), shipping lines, order discounts and fulfillments with their
// first tracking number. Accepted but not recorded (the order model has no place for
// them yet): metafields, line properties and images, transactions, refunds, the sales
// channel and cancellation.
import type { ExecutionResult } from 'graphql';
import { json, type DoorResponse } from '../../http/door.ts';
import type { Route, RouteInput } from '../../http/routeTable.ts';
import type { ClassifiedError, FieldIssue } from '../../schema/errors.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import { checkShape, withoutNulls } from '../bodyShape.ts';
import { referenceRequestSchema } from '../openapi.ts';
import { inputCoercionIssues, problemFromError } from '../problem.ts';

const PATH = '/stores/{storeId}/custom/orders';

const SYNC = defineOperation(`
  mutation RestSyncCustomOrder($input: OrderSyncInput!) {
    orderSync(input: $input) { created order { id externalId } }
  }`);

type Json = Record<string, unknown>;
type MoneySet = { presentmentMoney: { amount: string } };
type Address = { address1?: string; address2?: string; city?: string; provinceCode?: string; zip?: string; countryCode?: string };

const amountOf = (set: MoneySet) => set.presentmentMoney.amount;

function address(value: Address | undefined) {
  if (!value) return null;
  return { address1: value.address1, address2: value.address2, city: value.city, province: value.provinceCode, country: value.countryCode, postalCode: value.zip };
}

/** The document's order (nulls already dropped) as the v3 OrderSyncInput. */
function syncInput(order: Json): Json {
  const customer = order.customer as Json;
  const lines = order.lineItems as Json[];
  const fulfillments = order.fulfillments as Json[];
  return {
    orderId: order.id,
    createdAt: order.createdAt,
    currency: order.presentmentCurrency,
    customer: { id: customer.id, email: customer.email, phoneNumber: customer.phone, firstName: customer.firstName, lastName: customer.lastName },
    lineItems: lines.map((line) => ({
      id: line.id,
      productId: line.productId,
      title: line.title,
      quantity: line.quantity,
      variantId: line.variantId,
      sku: line.sku,
      price: amountOf(line.priceSet as MoneySet),
      imageUrl: line.image,
      discounts: ((line.discounts ?? []) as { amountSet: MoneySet }[]).map((d) => amountOf(d.amountSet)),
      taxes: ((line.taxLines ?? []) as { priceSet: MoneySet }[]).map((t) => amountOf(t.priceSet)),
    })),
    orderDiscounts: (order.orderDiscounts as { amountSet: MoneySet }[]).map((d) => amountOf(d.amountSet)),
    shippingLines: (order.shippingLines as Json[]).map((line) => ({
      title: line.title,
      price: amountOf(line.priceSet as MoneySet),
      discounts: ((line.discounts ?? []) as { amountSet: MoneySet }[]).map((d) => amountOf(d.amountSet)),
      taxes: ((line.taxLines ?? []) as { priceSet: MoneySet }[]).map((t) => amountOf(t.priceSet)),
    })),
    shippingAddress: address(order.shippingAddress as Address),
    billingAddress: address(order.billingAddress as Address | undefined),
    tags: order.tags ?? [],
    fulfillments: fulfillments.map((fulfillment) => {
      const [tracking] = (fulfillment.trackingNumbers ?? []) as { carrier?: string; trackingNumber: string }[];
      return {
        fulfillmentId: fulfillment.id,
        lineItems: fulfillment.lineItems,
        trackingCompany: tracking?.carrier,
        trackingNumber: tracking?.trackingNumber,
        deliveredAt: fulfillment.deliveryDate,
      };
    }),
  };
}

/** The request's own name of each field the v3 input names differently, first match wins. */
const REQUEST_NAMES: [RegExp, string][] = [
  [/^orderId$/, 'id'],
  [/^currency$/, 'presentmentCurrency'],
  [/^customer\.phoneNumber$/, 'customer.phone'],
  [/^(lineItems\.\d+)\.price$/, '$1.priceSet'],
  [/^(lineItems\.\d+)\.imageUrl$/, '$1.image'],
  [/^(lineItems\.\d+|shippingLines\.\d+)\.discounts\.(\d+)$/, '$1.discounts.$2.amountSet'],
  [/^(lineItems\.\d+|shippingLines\.\d+)\.taxes(\.\d+)?$/, '$1.taxLines$2'],
  [/^(shippingLines\.\d+)\.price$/, '$1.priceSet'],
  [/^orderDiscounts\.(\d+)$/, 'orderDiscounts.$1.amountSet'],
  [/^shipping\.address\./, 'shippingAddress.'],
  [/^shipping\.\w+$/, 'shippingLines'],
  [/^(fulfillments\.\d+)\.fulfillmentId$/, '$1.id'],
  [/^(fulfillments\.\d+)\.tracking\.code$/, '$1.trackingNumbers.0.trackingNumber'],
  [/^(fulfillments\.\d+)\.tracking\.carrier$/, '$1.trackingNumbers.0.carrier'],
  [/^(fulfillments\.\d+)\.deliveredAt$/, '$1.deliveryDate'],
];

const ADDRESS_NAMES: Record<string, string> = { province: 'provinceCode', postalCode: 'zip', country: 'countryCode' };

function requestPath(path: string): string {
  const rule = REQUEST_NAMES.find(([pattern]) => pattern.test(path));
  const renamed = rule ? path.replace(rule[0], rule[1]) : path;
  return renamed.replace(/^((?:shipping|billing)Address)\.(\w+)$/, (_m, owner: string, field: string) => `${owner}.${ADDRESS_NAMES[field] ?? field}`);
}

/** `errors` mirrors the body: `{lineItems: {"0": {quantity: ["must be ..."]}}}`. */
function nestedErrors(issues: FieldIssue[]): Json {
  const errors: Json = {};
  for (const issue of issues.filter((i) => i.path)) {
    const keys = issue.path.split('.');
    const leaf = keys.pop()!;
    let node = errors;
    for (const key of keys) node = (node[key] ??= {}) as Json;
    node[leaf] = [...((node[leaf] as string[] | undefined) ?? []), issue.message];
  }
  return errors;
}

function invalid(issues: FieldIssue[]): DoorResponse {
  const error = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  return json(400, { error, errors: nestedErrors(issues) });
}

function refusedInput(outcome: { error: ClassifiedError; result: ExecutionResult }): FieldIssue[] {
  if (!('data' in outcome.result) && outcome.result.errors?.length) return inputCoercionIssues(outcome.result);
  return outcome.error.issues.length > 0 ? outcome.error.issues : [{ path: '', message: outcome.error.message }];
}

async function sync(input: RouteInput): Promise<DoorResponse> {
  const shape = checkShape(referenceRequestSchema('POST', PATH), input.body);
  const issues = [...shape.issues];
  const body = withoutNulls(shape.value) as Json;
  if (shape.issues.length === 0 && body.type !== 'order') issues.push({ path: 'type', message: 'must be "order"' });
  if (issues.length > 0) return invalid(issues);
  const outcome = await runOperation<{ orderSync: { order: { id: string; externalId: string } } }>(SYNC, { input: syncInput(body) }, input.ctx);
  if (outcome.ok) {
    const { order } = outcome.data.orderSync;
    return json(200, { message: 'Order synced successfully', orderId: order.externalId, redoId: order.id });
  }
  if (outcome.error.code === 'BAD_USER_INPUT') return invalid(refusedInput(outcome).map((issue) => ({ ...issue, path: requestPath(issue.path) })));
  if (outcome.error.code === 'INTERNAL_SERVER_ERROR') return json(500, { error: 'Failed to process order' });
  return problemFromError(outcome.error, input.instance);
}

export const customOrderRoutes: Route[] = [{ method: 'POST', path: PATH, scopes: ['orders_write'], errorStyle: 'error', handle: sync }];
