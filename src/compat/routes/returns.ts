// The compat door's routes, for tooling built for the other returns platform (docs/interface-rules.md, "Compat door"):
// return details and list, the seven actions on `/return/:return_id/...`, and the
// advance shipping notice report. Each runs one operation of the shared schema; an
// action answers `true`, or for a state that refuses it, 200 UNPROCESSABLE_RETURN.
import { json, type DoorResponse } from '../../http/door.ts';
import type { Route, RouteInput } from '../../http/routeTable.ts';
import { connectionPages } from '../../schema/connectionPages.ts';
import { defineOperation, runOperation, type Operation, type OperationOutcome } from '../../schema/execute.ts';
import { jsonArray, streamedAnswer } from '../../http/streamedAnswer.ts';
import { compatError, compatErrorFrom } from '../errors.ts';
import { originOf, readReturnRef, readWindow, revalidatedAsWindowMoves, type Parsed } from '../requests.ts';
import {
  ASN_ROW_FIELDS,
  COMPAT_RETURN_FRAGMENT,
  COMPAT_STATES,
  compatAsnRow,
  compatNote,
  compatReturn,
  DEFAULT_LIST_STATES,
  STATUSES_BY_STATE,
  type AsnRowNode,
  type CompatNoteNode,
  type CompatReturnNode,
} from '../../formats/compatReturn.ts';

const REF_VARIABLES = '$number: Int, $id: ID, $orderName: String, $orderId: ID';
const REF_ARGS = 'number: $number, id: $id, orderName: $orderName, orderId: $orderId';

const DETAILS = defineOperation(`
  query CompatReturnDetails(${REF_VARIABLES}) { findReturn(${REF_ARGS}) { ...CompatReturn } }
  ${COMPAT_RETURN_FRAGMENT}`);

const NOTES = defineOperation(`
  query CompatReturnNotes(${REF_VARIABLES}) { findReturn(${REF_ARGS}) { notes { id content createdAt } } }`);

/** The list's one operation, exported for the planner's tests (test/schema/planned.test.ts). */
export const COMPAT_RETURN_LIST = defineOperation(`
  query CompatReturnList($first: Int, $after: String, $last: Int, $before: String, $status: [ReturnStatus!],
                         $createdAtMin: DateTime, $createdAtMax: DateTime, $updatedAtMin: DateTime, $updatedAtMax: DateTime,
                         $sortKey: ReturnSortKey) {
    returns(first: $first, after: $after, last: $last, before: $before, status: $status,
            createdAtMin: $createdAtMin, createdAtMax: $createdAtMax, updatedAtMin: $updatedAtMin, updatedAtMax: $updatedAtMax,
            sortKey: $sortKey) {
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      nodes { ...CompatReturn }
    }
  }
  ${COMPAT_RETURN_FRAGMENT}`);

const ASN = defineOperation(`
  query CompatAsn($from: DateTime!, $to: DateTime!, $first: Int, $after: String) {
    asnReturns(from: $from, to: $to, first: $first, after: $after) {
      pageInfo { hasNextPage endCursor }
      nodes { asnRows { ${ASN_ROW_FIELDS} } }
    }
  }`);

/** The platform's action names and the schema mutation each one is. */
const STATE_ACTIONS: Record<string, Operation> = {
  process: defineOperation(`mutation CompatProcess(${REF_VARIABLES}) { returnProcess(${REF_ARGS}) { id } }`),
  flag: defineOperation(`mutation CompatFlag(${REF_VARIABLES}) { returnFlag(${REF_ARGS}) { id } }`),
  // The platform's close is our reject; its cancel is our reset to the initial state.
  close: defineOperation(`mutation CompatClose(${REF_VARIABLES}) { returnReject(${REF_ARGS}) { id } }`),
  cancel: defineOperation(`mutation CompatCancel(${REF_VARIABLES}) { returnReset(${REF_ARGS}) { id } }`),
};

const REMOVE = defineOperation(`
  mutation CompatRemove(${REF_VARIABLES}, $lineItemIds: [ID!]!) { returnItemsRemove(${REF_ARGS}, lineItemIds: $lineItemIds) { id } }`);

const NOTE = defineOperation(`
  mutation CompatNote(${REF_VARIABLES}, $content: String!) { returnNoteAdd(${REF_ARGS}, content: $content) { id } }`);

const CURRENCY_TYPES = ['shop', 'presentment'];
const FILTERS = { created_at: 'createdAt', updated_at: 'updatedAt' } as const;
const DEFAULT_PAGE_SIZE = 100;
/**
 * Returns per page of the unpaginated list as it is read. A whole return (items, order, amounts)
 * is heavy to execute and map: over 100,000 returns a request made meanwhile waited up to 120 ms
 * at 200 per page, 89 ms at 100, the list taking 26 s either way.
 */
export const WHOLE_LIST_PAGE_SIZE = 100;

async function runAction(operation: Operation, variables: Record<string, unknown>, input: RouteInput): Promise<DoorResponse> {
  const outcome = await runOperation(operation, variables, input.ctx);
  return outcome.ok ? json(200, true) : compatErrorFrom(outcome.error);
}

function stateAction(action: string, operation: Operation): Route {
  return {
    method: 'POST',
    path: `/return/{return_id}/${action}`,
    scopes: ['returns_write'],
    async handle(input) {
      const ref = readReturnRef(input, input.params.return_id);
      if (!ref.ok) return ref.response;
      return runAction(operation, { ...ref.value }, input);
    },
  };
}

/** `line_item_id` as a comma-separated query parameter, or in the JSON body as a string or list. */
function lineItemIdsOf(input: RouteInput): string[] | undefined {
  const fromQuery = input.query.getAll('line_item_id').flatMap((value) => value.split(','));
  const body = input.body as { line_item_id?: unknown } | undefined;
  const raw = body !== null && typeof body === 'object' ? body.line_item_id : undefined;
  let fromBody: string[] = [];
  if (typeof raw === 'string' || typeof raw === 'number') fromBody = String(raw).split(',');
  else if (Array.isArray(raw) && raw.every((v) => typeof v === 'string' || typeof v === 'number')) fromBody = raw.map(String);
  else if (raw !== undefined) return undefined;
  return [...fromQuery, ...fromBody].map((id) => id.trim()).filter((id) => id !== '');
}

async function remove(input: RouteInput): Promise<DoorResponse> {
  const ref = readReturnRef(input, input.params.return_id);
  if (!ref.ok) return ref.response;
  const lineItemIds = lineItemIdsOf(input);
  if (!lineItemIds || lineItemIds.length === 0) {
    return compatError(422, 'line_item_id is required: one or more line item ids, comma-separated');
  }
  return runAction(REMOVE, { ...ref.value, lineItemIds }, input);
}

async function addNote(input: RouteInput): Promise<DoorResponse> {
  const ref = readReturnRef(input, input.params.return_id);
  if (!ref.ok) return ref.response;
  const body = input.body as { content?: unknown } | undefined;
  const content = body !== null && typeof body === 'object' ? body.content : undefined;
  if (typeof content !== 'string') return compatError(422, 'content is required: a string of 1 to 255 characters');
  return runAction(NOTE, { ...ref.value, content }, input);
}

async function notes(input: RouteInput): Promise<DoorResponse> {
  const ref = readReturnRef(input, input.params.return_id);
  if (!ref.ok) return ref.response;
  const outcome = await runOperation<{ findReturn: { notes: CompatNoteNode[] } }>(NOTES, { ...ref.value }, input.ctx);
  if (!outcome.ok) return compatErrorFrom(outcome.error);
  return json(200, { notes: outcome.data.findReturn.notes.map(compatNote) });
}

async function details(input: RouteInput): Promise<DoorResponse> {
  const currencyType = input.query.get('currency_type');
  // Amounts are kept in the order's currency only (the one shown to the shopper) and no exchange
  // rates are kept, so both views answer them; multi_currency tells a client when they differ.
  if (currencyType !== null && !CURRENCY_TYPES.includes(currencyType)) {
    return compatError(422, `currency_type must be one of ${CURRENCY_TYPES.join(', ')}, got "${currencyType}"`);
  }
  const ref = readReturnRef(input, input.query.get('return_id'));
  if (!ref.ok) return ref.response;
  const outcome = await runOperation<{ findReturn: CompatReturnNode }>(DETAILS, { ...ref.value }, input.ctx);
  if (!outcome.ok) return compatErrorFrom(outcome.error);
  return json(200, compatReturn(outcome.data.findReturn, 'details'));
}

interface ListPage {
  returns: {
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
    nodes: CompatReturnNode[];
  };
}

interface ListRequest {
  /** Query parameters that fix the list, carried into the page URLs. */
  params: Record<string, string>;
  variables: Record<string, unknown>;
  paginate: boolean;
  pageSize: number;
  cursor: { after: string | null; before: string | null };
}

function readList(input: RouteInput): Parsed<ListRequest> {
  const bad = (message: string): Parsed<never> => ({ ok: false, response: compatError(422, message) });
  const { query } = input;
  const window = readWindow(query);
  if (!window.ok) return window;
  const filter = query.get('filter') ?? 'created_at';
  if (!(filter in FILTERS)) return bad(`filter must be created_at or updated_at, got "${filter}"`);
  const field = FILTERS[filter as keyof typeof FILTERS];

  const rawStates = query.get('state');
  const states = rawStates === null || rawStates.trim() === '' ? [...DEFAULT_LIST_STATES] : rawStates.split(',').map((s) => s.trim().toLowerCase());
  const unknown = states.filter((state) => !(COMPAT_STATES as string[]).includes(state));
  if (unknown.length > 0) return bad(`state must be among ${COMPAT_STATES.join(', ')}, got "${unknown.join(', ')}"`);

  const rawPaginate = query.get('paginate');
  if (rawPaginate !== null && !['true', 'false', '1', '0'].includes(rawPaginate)) return bad(`paginate must be true or false, got "${rawPaginate}"`);
  const paginate = rawPaginate === 'true' || rawPaginate === '1';

  const rawSize = query.get('pageSize');
  let pageSize = DEFAULT_PAGE_SIZE;
  if (paginate && rawSize !== null) {
    if (!/^\d+$/.test(rawSize) || Number(rawSize) < 1 || Number(rawSize) > input.ctx.maxPageSize) {
      return bad(`pageSize must be an integer from 1 to ${input.ctx.maxPageSize}, got "${rawSize}"`);
    }
    pageSize = Number(rawSize);
  }
  const after = paginate ? query.get('after') : null;
  const before = paginate ? query.get('before') : null;
  if (after !== null && before !== null) return bad('after and before cannot be used together');

  const { from, to } = window.value;
  const statuses = [...new Set(states.flatMap((state) => STATUSES_BY_STATE[state as keyof typeof STATUSES_BY_STATE]))];
  return {
    ok: true,
    value: {
      params: { from: from.toISOString(), to: to.toISOString(), filter, state: states.join(',') },
      variables: { status: statuses, [`${field}Min`]: from.toISOString(), [`${field}Max`]: to.toISOString(), sortKey: filter === 'created_at' ? 'CREATED_AT' : 'UPDATED_AT' },
      paginate,
      pageSize,
      cursor: { after, before },
    },
  };
}

function pageUrl(input: RouteInput, request: ListRequest, cursor: Record<string, string>): string {
  const url = new URL(input.request.url.pathname, originOf(input));
  const params = { ...request.params, paginate: 'true', pageSize: String(request.pageSize), ...cursor };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}

async function list(input: RouteInput): Promise<DoorResponse> {
  const read = readList(input);
  if (!read.ok) return read.response;
  const request = read.value;
  if (request.paginate) {
    const { after, before } = request.cursor;
    const page = before !== null ? { last: request.pageSize, before } : { first: request.pageSize, after };
    const outcome = await runOperation<ListPage>(COMPAT_RETURN_LIST, { ...request.variables, ...page }, input.ctx);
    if (!outcome.ok) return compatErrorFrom(outcome.error);
    const { nodes, pageInfo } = outcome.data.returns;
    return json(200, {
      returns: nodes.map((node) => compatReturn(node, 'list')),
      nextPageUrl: pageInfo.hasNextPage && pageInfo.endCursor ? pageUrl(input, request, { after: pageInfo.endCursor }) : null,
      previousPageUrl: pageInfo.hasPreviousPage && pageInfo.startCursor ? pageUrl(input, request, { before: pageInfo.startCursor }) : null,
    });
  }
  // Without paginate the platform answers every return of the window in one array.
  const pages = connectionPages<ListPage, CompatReturnNode>(
    COMPAT_RETURN_LIST,
    request.variables,
    input.ctx,
    ({ returns }) => ({ items: returns.nodes, pageInfo: returns.pageInfo }),
    WHOLE_LIST_PAGE_SIZE,
  );
  return streamedArray(pages, (node) => compatReturn(node, 'list'));
}

interface AsnPage {
  asnReturns: { pageInfo: ListPage['returns']['pageInfo']; nodes: { asnRows: AsnRowNode[] }[] };
}

async function asn(input: RouteInput): Promise<DoorResponse> {
  const window = readWindow(input.query);
  if (!window.ok) return window.response;
  const variables = { from: window.value.from.toISOString(), to: window.value.to.toISOString() };
  const pages = connectionPages<AsnPage, AsnRowNode>(ASN, variables, input.ctx, ({ asnReturns }) => ({
    items: asnReturns.nodes.flatMap((node) => node.asnRows),
    pageInfo: asnReturns.pageInfo,
  }));
  return streamedArray(pages, compatAsnRow);
}

/** Every item of the pages in one JSON array, written as it is read; a failing first page is the platform's error answer. */
function streamedArray<T>(pages: AsyncGenerator<OperationOutcome<T[]>, void>, map: (item: T) => unknown): Promise<DoorResponse> {
  return streamedAnswer(pages, { layout: jsonArray(map), refused: (failure) => compatErrorFrom(failure.error) });
}

export const compatReturnRoutes: Route[] = [
  { method: 'GET', path: '/return/details', scopes: ['returns_read'], handle: details },
  { method: 'GET', path: '/return/list', scopes: ['returns_read'], handle: async (input) => revalidatedAsWindowMoves(input.query, await list(input)) },
  ...Object.entries(STATE_ACTIONS).map(([action, operation]) => stateAction(action, operation)),
  { method: 'POST', path: '/return/{return_id}/remove', scopes: ['returns_write'], handle: remove },
  { method: 'POST', path: '/return/{return_id}/note', scopes: ['returns_write'], handle: addNote },
  { method: 'GET', path: '/return/{return_id}/notes', scopes: ['returns_read'], handle: notes },
  { method: 'GET', path: '/reporting/asn', scopes: ['returns_read'], handle: async (input) => revalidatedAsWindowMoves(input.query, await asn(input)) },
];
