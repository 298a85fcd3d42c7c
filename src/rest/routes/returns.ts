// POST /stores/{storeId}/returns (with Idempotency-Key) and GET /stores/{storeId}/returns
// (filters and cursor pagination), decisions.md "Returns". The body's JSON types are
// checked here so every mistake comes back with its path; the rules on values
// (quantities, known lines, what is still returnable) are the schema's.
import { header, json, type DoorResponse } from '../../door.ts';
import type { Route, RouteInput } from '../../routeTable.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import type { FieldIssue } from '../../schema/errors.ts';
import { nextPageHeaders, PAGE_PARAMETER_NAMES, PAGINATION_DOC, readPage } from '../pagination.ts';
import { problemFromOutcome, validationProblem } from '../problem.ts';
import { documentQueryParameters, parameterNames, readQueryParameters, type QueryParameter } from '../queryParameters.ts';
import {
  ORDER_SCHEMA,
  REST_ORDER_FRAGMENT,
  REST_RETURN_FRAGMENT,
  RETURN_SCHEMA,
  restOrder,
  restReturn,
  type RestOrderNode,
  type RestReturnNode,
} from '../returnShape.ts';

const CREATE = defineOperation(`
  mutation RestCreateReturn($input: CreateReturnInput!, $idempotencyKey: String) {
    createReturn(input: $input, idempotencyKey: $idempotencyKey) { replayed return { ...RestReturn } }
  }
  ${REST_RETURN_FRAGMENT}`);

const LIST = defineOperation(`
  query RestReturns($first: Int!, $after: String, $status: [ReturnStatus!], $updatedAtMin: DateTime, $updatedAtMax: DateTime,
                    $orderName: String) {
    returns(first: $first, after: $after, status: $status, updatedAtMin: $updatedAtMin, updatedAtMax: $updatedAtMax,
            orderName: $orderName) {
      pageInfo { hasNextPage endCursor }
      nodes { ...RestReturn order { ...RestOrder } }
    }
  }
  ${REST_RETURN_FRAGMENT}
  ${REST_ORDER_FRAGMENT}`);

const STATUSES = ['open', 'in_transit', 'delivered', 'needs_review', 'in_review', 'flagged', 'complete', 'rejected', 'deleted'];
const TYPES = ['return', 'claim', 'warranty'];
const OUTCOMES = ['refund', 'credit', 'exchange', 'keep'];

const IDEMPOTENCY_KEY = 'Idempotency-Key';

type Checked<T> = { ok: true; value: T } | { ok: false; issues: FieldIssue[] };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body as the mutation's input, or every JSON type mistake with its path. */
function readCreateBody(body: unknown): Checked<Record<string, unknown>> {
  if (!isObject(body)) return { ok: false, issues: [{ path: '', message: 'the body must be a JSON object' }] };
  const issues: FieldIssue[] = [];
  const expect = (ok: boolean, path: string, message: string) => {
    if (!ok) issues.push({ path, message });
  };
  const oneOf = (value: unknown, allowed: string[], path: string) =>
    expect(value === undefined || (typeof value === 'string' && allowed.includes(value)), path, `must be one of ${allowed.join(', ')}`);

  expect(body.orderId !== undefined, 'orderId', 'is required');
  expect(body.orderId === undefined || typeof body.orderId === 'string', 'orderId', 'must be a string');
  oneOf(body.type, TYPES, 'type');
  if (body.items === undefined) issues.push({ path: 'items', message: 'is required' });
  else if (!Array.isArray(body.items)) issues.push({ path: 'items', message: 'must be an array' });
  else {
    body.items.forEach((item: unknown, index) => {
      const at = `items.${index}`;
      if (!isObject(item)) {
        issues.push({ path: at, message: 'must be an object' });
        return;
      }
      expect(typeof item.lineItemId === 'string', `${at}.lineItemId`, item.lineItemId === undefined ? 'is required' : 'must be a string');
      expect(Number.isSafeInteger(item.quantity), `${at}.quantity`, item.quantity === undefined ? 'is required' : 'must be an integer');
      expect(item.reason === undefined || item.reason === null || typeof item.reason === 'string', `${at}.reason`, 'must be a string');
      oneOf(item.outcome, OUTCOMES, `${at}.outcome`);
    });
  }
  if (issues.length > 0) return { ok: false, issues };
  const items = body.items as Record<string, unknown>[];
  return {
    ok: true,
    value: {
      orderId: body.orderId,
      type: typeof body.type === 'string' ? body.type.toUpperCase() : null,
      items: items.map((item) => ({
        lineItemId: item.lineItemId,
        quantity: item.quantity,
        reason: item.reason ?? null,
        outcome: typeof item.outcome === 'string' ? item.outcome.toUpperCase() : null,
      })),
    },
  };
}

async function create(input: RouteInput): Promise<DoorResponse> {
  const body = readCreateBody(input.body);
  if (!body.ok) return validationProblem(body.issues, input.instance);
  const idempotencyKey = header(input.request, IDEMPOTENCY_KEY) ?? null;
  const outcome = await runOperation<{ createReturn: { replayed: boolean; return: RestReturnNode } }>(
    CREATE,
    { input: body.value, idempotencyKey },
    input.ctx,
  );
  if (!outcome.ok) {
    return problemFromOutcome(outcome, input.instance, { input: 'body', idempotencyKey: IDEMPOTENCY_KEY });
  }
  const { replayed, return: created } = outcome.data.createReturn;
  return json(replayed ? 200 : 201, { return: restReturn(created) });
}

const FILTERS: QueryParameter[] = [
  { name: 'updated_at_min', variable: 'updatedAtMin', type: 'DateTime', description: 'Only returns updated at or after this instant (inclusive)' },
  { name: 'updated_at_max', variable: 'updatedAtMax', type: 'DateTime', description: 'Only returns updated before this instant (exclusive)' },
  { name: 'order_name', variable: 'orderName', type: 'String', description: 'Only returns of the order with this name, e.g. #1001' },
];

const NAMES = { ...parameterNames(FILTERS), ...PAGE_PARAMETER_NAMES, status: 'status' };

/** `status`: one native status or several, comma-separated. */
function readStatus(query: URLSearchParams): Checked<string[] | null> {
  const values = query.getAll('status');
  if (values.length === 0) return { ok: true, value: null };
  if (values.length > 1) return { ok: false, issues: [{ path: 'status', message: 'must be given at most once (list several comma-separated)' }] };
  const statuses = values[0].split(',').map((s) => s.trim());
  const unknown = statuses.filter((s) => !STATUSES.includes(s));
  if (unknown.length > 0) {
    return { ok: false, issues: [{ path: 'status', message: `must be among ${STATUSES.join(', ')}, got "${unknown.join(', ')}"` }] };
  }
  return { ok: true, value: statuses.map((s) => s.toUpperCase()) };
}

interface ListData {
  returns: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: (RestReturnNode & { order: RestOrderNode })[] };
}

async function list(input: RouteInput): Promise<DoorResponse> {
  const page = readPage(input);
  const filters = readQueryParameters(input.query, FILTERS);
  const status = readStatus(input.query);
  const issues = [...(page.ok ? [] : page.issues), ...(filters.ok ? [] : filters.issues), ...(status.ok ? [] : status.issues)];
  if (!page.ok || !filters.ok || !status.ok) return validationProblem(issues, input.instance);
  const outcome = await runOperation<ListData>(
    LIST,
    { first: page.first, after: page.after, status: status.value, ...filters.variables },
    input.ctx,
  );
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, NAMES);
  const { nodes, pageInfo } = outcome.data.returns;
  const orders = new Map<string, RestOrderNode>();
  for (const node of nodes) if (!orders.has(node.order.id)) orders.set(node.order.id, node.order);
  return json(200, { returns: nodes.map(restReturn), orders: [...orders.values()].map(restOrder) }, nextPageHeaders(pageInfo));
}

const CREATE_BODY_SCHEMA = {
  type: 'object',
  required: ['orderId', 'items'],
  properties: {
    orderId: { type: 'string', minLength: 1, description: 'Our order id (ord_), as order creation answered it' },
    items: {
      type: 'array',
      minItems: 1,
      maxItems: 250,
      items: {
        type: 'object',
        required: ['lineItemId', 'quantity'],
        properties: {
          lineItemId: { type: 'string', minLength: 1, description: "Our order line id (oli_) or the merchant's line item id" },
          quantity: { type: 'integer', minimum: 1, description: 'At most what was ordered minus what other returns already claim' },
          reason: { type: ['string', 'null'], maxLength: 255 },
          outcome: { type: 'string', enum: OUTCOMES, default: 'refund' },
        },
      },
    },
    type: { type: 'string', enum: TYPES, default: 'return' },
  },
};

const RETURN_BODY_SCHEMA = { type: 'object', additionalProperties: false, required: ['return'], properties: { return: RETURN_SCHEMA } };

export const returnRoutes: Route[] = [
  {
    method: 'POST',
    path: '/stores/{storeId}/returns',
    scopes: ['returns_write'],
    doc: {
      summary: 'Create a return',
      tag: 'Returns',
      description:
        'Creates a return (status `open`) for some of an order\'s line items. With an `Idempotency-Key`, repeating the same ' +
        'request (same store, key and body) answers 200 with the same return instead of creating another; the key with a ' +
        'different body is a 409. Concurrent duplicates create one return.',
      parameters: [
        {
          name: IDEMPOTENCY_KEY,
          in: 'header',
          description: 'Client-chosen key (1 to 255 characters) making the request safe to retry',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
      ],
      requestBody: { required: true, schema: CREATE_BODY_SCHEMA },
      responses: {
        '201': { description: 'The return was created', schema: RETURN_BODY_SCHEMA },
        '200': { description: 'Replay of an earlier request with the same Idempotency-Key: the return it created', schema: RETURN_BODY_SCHEMA },
        '400': { description: 'Invalid body: `errors` names each offending field (e.g. `items.0.quantity`)', problem: true },
        '404': { description: 'No order with this orderId in the store', problem: true },
        '409': {
          description: 'A quantity exceeds what was ordered minus what other returns already claim, or the Idempotency-Key was used with another body',
          problem: true,
        },
      },
    },
    handle: create,
  },
  {
    method: 'GET',
    path: '/stores/{storeId}/returns',
    scopes: ['returns_read'],
    doc: {
      summary: 'List returns',
      tag: 'Returns',
      description: 'Returns of the store, most recently updated first (ties by id), with the orders they belong to.',
      parameters: [
        ...PAGINATION_DOC.parameters,
        {
          name: 'status',
          in: 'query',
          description: 'Only returns with this status (several comma-separated)',
          schema: { type: 'string', pattern: `^(${STATUSES.join('|')})(,(${STATUSES.join('|')}))*$` },
        },
        ...documentQueryParameters(FILTERS),
      ],
      responses: {
        '200': {
          description: 'One page of returns and the orders they belong to',
          headers: { 'X-Page-Next': PAGINATION_DOC.nextHeader },
          schema: {
            type: 'object',
            additionalProperties: false,
            required: ['returns', 'orders'],
            properties: {
              returns: { type: 'array', items: RETURN_SCHEMA },
              orders: { type: 'array', description: "The orders of this page's returns, each once", items: ORDER_SCHEMA },
            },
          },
        },
        '400': { description: 'A bad page-size, an altered page-continue cursor or a bad filter value; `errors` names each parameter', problem: true },
      },
    },
    handle: list,
  },
];
