// POST /stores/{storeId}/returns (the reference's create-return-request body, with
// Idempotency-Key) and GET /stores/{storeId}/returns (filters and cursor pagination), as
// the reference document describes them (served from it, so these routes carry no doc). The body's JSON types are
// checked here so every mistake comes back with its path; the rules on values
// (quantities, known lines, what is still returnable) are the schema's.
import { header, json, type DoorResponse } from '../../http/door.ts';
import type { Route, RouteInput } from '../../http/routeTable.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import type { FieldIssue } from '../../schema/errors.ts';
import { nextPageHeaders, PAGE_PARAMETER_NAMES, readPage } from '../pagination.ts';
import { problemFromOutcome, validationProblem } from '../problem.ts';
import { parameterNames, readQueryParameters, type QueryParameter } from '../queryParameters.ts';
import {
  REST_ORDER_FRAGMENT,
  REST_RETURN_FRAGMENT,
  restReturn,
  restReturnList,
  type RestOrderNode,
  type RestReturnNode,
} from '../../formats/restReturn.ts';

const CREATE = defineOperation(`
  mutation RestCreateReturn($input: ReturnCreateInput!, $idempotencyKey: String) {
    returnCreate(input: $input, idempotencyKey: $idempotencyKey) { replayed return { ...RestReturn } }
  }
  ${REST_RETURN_FRAGMENT}`);

/** The document of the returns page (exported so the planner's tests run the very text this route runs). */
export const RETURNS_PAGE = defineOperation(`
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

const IDEMPOTENCY_KEY = 'Idempotency-Key';

type Checked<T> = { ok: true; value: T } | { ok: false; issues: FieldIssue[] };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const COMPENSATIONS: Record<string, string> = { refund: 'REFUND', store_credit: 'CREDIT' };

/**
 * The reference's create-return-request body as the mutation's input, or every JSON type
 * mistake with its path. Optional members may be null (read as absent).
 */
function readCreateBody(body: unknown): Checked<Record<string, unknown>> {
  if (!isObject(body)) return { ok: false, issues: [{ path: '', message: 'the body must be a JSON object' }] };
  const issues: FieldIssue[] = [];
  const expect = (ok: boolean, path: string, message: string) => {
    if (!ok) issues.push({ path, message });
  };
  const string = (value: unknown, path: string, required: boolean) =>
    expect(value == null ? !required : typeof value === 'string', path, value == null ? 'is required' : 'must be a string');
  const object = (value: unknown, path: string, required: boolean): value is Record<string, unknown> => {
    expect(value == null ? !required : isObject(value), path, value == null ? 'is required' : 'must be an object');
    return isObject(value);
  };
  if (body.options != null && object(body.options, 'options', false)) {
    const create = body.options.createExternalRMAs;
    expect(create == null || typeof create === 'boolean', 'options.createExternalRMAs', 'must be a boolean');
  }
  const data = body.data;
  if (!object(data, 'data', true)) return { ok: false, issues };
  string(data.provider, 'data.provider', true);
  string(data.externalOrderId, 'data.externalOrderId', true);
  string(data.notes, 'data.notes', false);
  if (object(data.shippingAddress, 'data.shippingAddress', true)) {
    for (const field of ['line1', 'city', 'state', 'postalCode', 'country']) string(data.shippingAddress[field], `data.shippingAddress.${field}`, true);
    string(data.shippingAddress.line2, 'data.shippingAddress.line2', false);
  }
  if (data.label != null && object(data.label, 'data.label', false)) {
    string(data.label.trackingNumber, 'data.label.trackingNumber', true);
    for (const field of ['carrier', 'trackingUrl', 'postageLabelUrl', 'formLabelUrl', 'originalShipmentId']) string(data.label[field], `data.label.${field}`, false);
  }
  if (data.items == null) issues.push({ path: 'data.items', message: 'is required' });
  else if (!Array.isArray(data.items)) issues.push({ path: 'data.items', message: 'must be an array' });
  else {
    if (data.items.length === 0) issues.push({ path: 'data.items', message: 'must list at least one item' });
    data.items.forEach((item: unknown, index) => {
      const at = `data.items.${index}`;
      if (!object(item, at, true)) return;
      string(item.lineItemId, `${at}.lineItemId`, true);
      expect(Number.isSafeInteger(item.quantity), `${at}.quantity`, item.quantity == null ? 'is required' : 'must be an integer');
      string(item.reason, `${at}.reason`, true);
      string(item.reasonCode, `${at}.reasonCode`, false);
      string(item.notes, `${at}.notes`, false);
      expect(
        typeof item.compensation === 'string' && item.compensation in COMPENSATIONS,
        `${at}.compensation`,
        item.compensation == null ? 'is required' : `must be one of ${Object.keys(COMPENSATIONS).join(', ')}`,
      );
    });
  }
  if (issues.length > 0) return { ok: false, issues };
  const items = data.items as Record<string, unknown>[];
  const address = data.shippingAddress as Record<string, unknown>;
  const label = data.label as Record<string, unknown> | null | undefined;
  return {
    ok: true,
    value: {
      externalOrderId: data.externalOrderId,
      items: items.map((item) => ({
        lineItemId: item.lineItemId,
        quantity: item.quantity,
        reason: item.reason,
        reasonCode: item.reasonCode ?? null,
        customerComment: item.notes ?? null,
        outcome: COMPENSATIONS[item.compensation as string],
      })),
      originAddress: {
        line1: address.line1,
        line2: address.line2 ?? null,
        city: address.city,
        state: address.state,
        postalCode: address.postalCode,
        country: address.country,
      },
      label: label
        ? { trackingNumber: label.trackingNumber, carrier: label.carrier ?? null, trackingUrl: label.trackingUrl ?? null, postageLabelUrl: label.postageLabelUrl ?? null }
        : null,
      notes: data.notes ?? null,
    },
  };
}

/** The body's path of each input the domain names in an issue. */
const CREATE_NAMES = {
  idempotencyKey: IDEMPOTENCY_KEY,
  orderId: 'data.externalOrderId',
  externalOrderId: 'data.externalOrderId',
  items: 'data.items',
  originAddress: 'data.shippingAddress',
  label: 'data.label',
  notes: 'data.notes',
};

async function create(input: RouteInput): Promise<DoorResponse> {
  const body = readCreateBody(input.body);
  if (!body.ok) return validationProblem(body.issues, input.instance);
  const idempotencyKey = header(input.request, IDEMPOTENCY_KEY) ?? null;
  const outcome = await runOperation<{ returnCreate: { replayed: boolean; return: RestReturnNode } }>(
    CREATE,
    { input: body.value, idempotencyKey },
    input.ctx,
  );
  if (!outcome.ok) {
    return problemFromOutcome(outcome, input.instance, CREATE_NAMES);
  }
  const { replayed, return: created } = outcome.data.returnCreate;
  // No external RMA integration is connected here, so there is no external answer to report.
  return json(replayed ? 200 : 201, { return: restReturn(created), externalRMAResponses: [] });
}

const FILTERS: QueryParameter[] = [
  { name: 'updated_at_min', variable: 'updatedAtMin', type: 'DateTime', description: 'Only returns updated at or after this instant (inclusive)' },
  { name: 'updated_at_max', variable: 'updatedAtMax', type: 'DateTime', description: 'Only returns updated before this instant (exclusive)' },
  { name: 'provider_order_name', variable: 'orderName', type: 'String', description: 'Only returns of the order with this name, e.g. #1001' },
];

/** Other names the reference and earlier clients give the order-name filter. */
const ORDER_NAME_ALIASES = ['shopify_order_name', 'order_name'];

/** The order-name filter under any of its names; naming two different orders is refused. */
function readOrderName(query: URLSearchParams): Checked<string | undefined> {
  const given = ['provider_order_name', ...ORDER_NAME_ALIASES].filter((name) => query.has(name));
  const values = new Set(given.map((name) => query.get(name)));
  if (values.size > 1) return { ok: false, issues: [{ path: given[1], message: `names another order than ${given[0]}` }] };
  return { ok: true, value: given.length > 0 ? query.get(given[0])! : undefined };
}

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
  returns: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: (RestReturnNode & { order: RestOrderNode | null })[] };
}

async function list(input: RouteInput): Promise<DoorResponse> {
  const page = readPage(input);
  const filters = readQueryParameters(input.query, FILTERS);
  const status = readStatus(input.query);
  const orderName = readOrderName(input.query);
  const issues = [page, filters, status, orderName].flatMap((checked) => (checked.ok ? [] : checked.issues));
  if (!page.ok || !filters.ok || !status.ok || !orderName.ok) return validationProblem(issues, input.instance);
  const outcome = await runOperation<ListData>(
    RETURNS_PAGE,
    { first: page.first, after: page.after, status: status.value, ...filters.variables, orderName: orderName.value },
    input.ctx,
  );
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, NAMES);
  const { nodes, pageInfo } = outcome.data.returns;
  return json(200, restReturnList(nodes), nextPageHeaders(pageInfo));
}

export const returnRoutes: Route[] = [
  {
    method: 'POST',
    path: '/stores/{storeId}/returns',
    scopes: ['returns_write'],
    jsonErrorStatuses: [400, 404, 409],
    ownsIdempotencyKey: true,
    handle: create,
  },
  {
    method: 'GET',
    path: '/stores/{storeId}/returns',
    scopes: ['returns_read'],
    handle: list,
  },
];
