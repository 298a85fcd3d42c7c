// The reference document's return operations named by return id alone:
// GET /returns/{returnId}, GET|PUT /returns/{returnId}/status, GET|POST
// /returns/{returnId}/comments and POST /returns/{returnId}/process. The store is the
// API secret's: another store's return is answered like an unknown one (404).
// Status changes run the domain's state machine (returnStatusSet); comments are the
// return's notes, the same list the compat door shows.
import { json, type DoorResponse } from '../../http/door.ts';
import type { Route, RouteInput } from '../../http/routeTable.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import type { FieldIssue } from '../../schema/errors.ts';
import { problem, problemFromOutcome, validationProblem } from '../problem.ts';
import { REST_ORDER_FRAGMENT, REST_RETURN_FRAGMENT, restNoOrder, restOrder, restReturn, type RestOrderNode, type RestReturnNode } from '../../formats/restReturn.ts';

const GET = defineOperation(`
  query RestReturn($id: ID!) { return(id: $id) { ...RestReturn order { ...RestOrder } } }
  ${REST_RETURN_FRAGMENT}
  ${REST_ORDER_FRAGMENT}`);

const STATUS = defineOperation(`query RestReturnStatus($id: ID!) { return(id: $id) { status } }`);

const COMMENTS = defineOperation(`query RestReturnComments($id: ID!) { return(id: $id) { notes { content } } }`);

const SET_STATUS = defineOperation(`
  mutation RestSetReturnStatus($id: ID!, $status: SettableReturnStatus!) { returnStatusSet(id: $id, status: $status) { id } }`);

const ADD_COMMENT = defineOperation(`
  mutation RestAddReturnComment($id: ID!, $content: String!) { returnNoteAdd(id: $id, content: $content) { content } }`);

const PROCESS = defineOperation(`
  mutation RestProcessReturn($id: ID!, $items: [ProcessReturnItemInput!]!) { returnItemsProcess(id: $id, items: $items) { status } }`);

const SETTABLE = ['complete', 'open', 'flagged', 'rejected', 'deleted'];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function notFound(input: RouteInput): DoorResponse {
  return problem(404, `return ${input.params.returnId} not found`, { instance: input.instance });
}

/** Runs a query of `return(id)`; null data means absent (or another store's). */
async function readReturn<T>(input: RouteInput, operation: ReturnType<typeof defineOperation>): Promise<DoorResponse | { found: T }> {
  const outcome = await runOperation<{ return: T | null }>(operation, { id: input.params.returnId }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  if (!outcome.data.return) return notFound(input);
  return { found: outcome.data.return };
}

async function get(input: RouteInput): Promise<DoorResponse> {
  const read = await readReturn<RestReturnNode & { order: RestOrderNode | null }>(input, GET);
  if (!('found' in read)) return read;
  const { order } = read.found;
  return json(200, { return: restReturn(read.found), order: order ? restOrder(order) : restNoOrder(read.found) });
}

async function getStatus(input: RouteInput): Promise<DoorResponse> {
  const read = await readReturn<{ status: string }>(input, STATUS);
  if (!('found' in read)) return read;
  return json(200, { status: read.found.status.toLowerCase() });
}

async function setStatus(input: RouteInput): Promise<DoorResponse> {
  const body = input.body;
  const status = isObject(body) ? body.status : undefined;
  if (typeof status !== 'string' || !SETTABLE.includes(status)) {
    const issue = { path: 'status', message: status === undefined ? 'is required' : `must be one of ${SETTABLE.join(', ')}` };
    return validationProblem(isObject(body) ? [issue] : [{ path: '', message: 'the body must be a JSON object' }], input.instance);
  }
  const outcome = await runOperation(SET_STATUS, { id: input.params.returnId, status: status.toUpperCase() }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  return { status: 204, headers: {} };
}

async function listComments(input: RouteInput): Promise<DoorResponse> {
  const read = await readReturn<{ notes: { content: string }[] }>(input, COMMENTS);
  if (!('found' in read)) return read;
  return json(200, { comments: read.found.notes.map((note) => ({ message: note.content })) });
}

async function addComment(input: RouteInput): Promise<DoorResponse> {
  const body = input.body;
  const comment = isObject(body) ? body.comment : undefined;
  if (!isObject(comment)) {
    return validationProblem([isObject(body) ? { path: 'comment', message: comment === undefined ? 'is required' : 'must be an object' } : { path: '', message: 'the body must be a JSON object' }], input.instance);
  }
  if ('image' in comment) {
    // Notes hold text only: there is no image store behind this service.
    return validationProblem([{ path: 'comment.image', message: 'image comments are not supported; send {"message": ...}' }], input.instance);
  }
  if (typeof comment.message !== 'string') {
    return validationProblem([{ path: 'comment.message', message: comment.message === undefined ? 'is required' : 'must be a string' }], input.instance);
  }
  const outcome = await runOperation<{ returnNoteAdd: { content: string } }>(ADD_COMMENT, { id: input.params.returnId, content: comment.message }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, { content: 'comment.message' });
  return json(201, { comment: { message: outcome.data.returnNoteAdd.content } });
}

/** `{products: [{_id, reject?, processInput?}], customerNotes?}` as the mutation's items, or every mistake with its path. */
function readProcessBody(body: unknown): { ok: true; items: { itemId: string; reject: boolean }[]; notes: string | null } | { ok: false; issues: FieldIssue[] } {
  if (!isObject(body)) return { ok: false, issues: [{ path: '', message: 'the body must be a JSON object' }] };
  const issues: FieldIssue[] = [];
  // Checked here in full, because the notes are added after processing, which must not be left half-done.
  const notes = body.customerNotes;
  if (notes != null && (typeof notes !== 'string' || notes.trim() === '' || notes.length > 255)) {
    issues.push({ path: 'customerNotes', message: 'must be a string of 1 to 255 characters' });
  }
  if (!Array.isArray(body.products)) {
    issues.push({ path: 'products', message: body.products === undefined ? 'is required' : 'must be an array' });
    return { ok: false, issues };
  }
  const items = body.products.map((product: unknown, index) => {
    const at = `products.${index}`;
    if (!isObject(product)) {
      issues.push({ path: at, message: 'must be an object' });
      return { itemId: '', reject: false };
    }
    if (typeof product._id !== 'string') issues.push({ path: `${at}._id`, message: product._id === undefined ? 'is required' : 'must be a string' });
    if (product.reject != null && typeof product.reject !== 'boolean') issues.push({ path: `${at}.reject`, message: 'must be a boolean' });
    const processInput = product.processInput;
    if (processInput != null) {
      if (!isObject(processInput)) issues.push({ path: `${at}.processInput`, message: 'must be an object' });
      else {
        if (product.reject === true) issues.push({ path: `${at}.processInput`, message: 'give either reject or processInput, not both' });
        if (processInput.restock != null && typeof processInput.restock !== 'boolean') issues.push({ path: `${at}.processInput.restock`, message: 'must be a boolean' });
        // Refunds are computed from what was ordered; an override has nowhere to go yet.
        if (processInput.newMerchantAdjustment != null) {
          issues.push({ path: `${at}.processInput.newMerchantAdjustment`, message: 'adjusting the refunded amount is not supported' });
        }
      }
    }
    return { itemId: String(product._id), reject: product.reject === true };
  });
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, items, notes: typeof body.customerNotes === 'string' ? body.customerNotes : null };
}

async function process(input: RouteInput): Promise<DoorResponse> {
  const body = readProcessBody(input.body);
  if (!body.ok) return validationProblem(body.issues, input.instance);
  const outcome = await runOperation<{ returnItemsProcess: { status: string } }>(PROCESS, { id: input.params.returnId, items: body.items }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  if (body.notes) {
    const noted = await runOperation(ADD_COMMENT, { id: input.params.returnId, content: body.notes }, input.ctx);
    if (!noted.ok) return problemFromOutcome(noted, input.instance, { content: 'customerNotes' });
  }
  const status = outcome.data.returnItemsProcess.status.toLowerCase();
  return json(200, { message: status === 'rejected' ? 'Return rejected: every product was rejected' : 'Processing triggered successfully' });
}

export const returnDetailRoutes: Route[] = [
  { method: 'GET', path: '/returns/{returnId}', scopes: ['returns_read'], handle: get },
  { method: 'GET', path: '/returns/{returnId}/status', scopes: ['returns_read'], handle: getStatus },
  { method: 'PUT', path: '/returns/{returnId}/status', scopes: ['returns_write'], handle: setStatus },
  { method: 'GET', path: '/returns/{returnId}/comments', scopes: ['returns_read'], handle: listComments },
  { method: 'POST', path: '/returns/{returnId}/comments', scopes: ['returns_write'], handle: addComment },
  { method: 'POST', path: '/returns/{returnId}/process', scopes: ['returns_write'], handle: process },
];
