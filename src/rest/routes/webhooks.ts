// Webhooks on the REST door, as the reference document has them: return webhooks of
// kind `redo` (the document's `webhooks.return` payload) or `loop` (the warehouse
// platform's return webhook), created or updated by externalId, read, changed, deleted
// and replayed. Subscriptions to our other topics are v3's (`webhookSubscriptionCreate`);
// this door lists and serves only the return webhooks the document can describe. The
// deliveries route is our addition, for any subscription of the store.
import { json, type DoorResponse } from '../../http/door.ts';
import type { JsonSchema, Route, RouteInput } from '../../http/routeTable.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import { checkShape } from '../bodyShape.ts';
import { nextPageHeaders, PAGE_PARAMETER_NAMES, PAGINATION_DOC, readPage } from '../pagination.ts';
import { problem, problemFromOutcome, validationProblem } from '../problem.ts';
import { documentQueryParameters, parameterNames, readQueryParameters, type QueryParameter } from '../queryParameters.ts';

const TAG = 'Webhooks';

const WEBHOOK_FIELDS = `
  fragment RestWebhook on WebhookSubscription { id url hasSecret payload externalId createdAt updatedAt }`;

interface WebhookNode {
  id: string;
  url: string;
  hasSecret: boolean;
  payload: 'NATIVE' | 'REDO' | 'LOOP';
  externalId: string | null;
  createdAt: string;
  updatedAt: string;
}

const RETURN_WEBHOOK_PAYLOADS = ['REDO', 'LOOP'];

const SAVE = defineOperation(`
  mutation RestSaveWebhook($input: ReturnWebhookSaveInput!) {
    returnWebhookSave(input: $input) { created subscription { ...RestWebhook } }
  }
  ${WEBHOOK_FIELDS}`);

const LIST = defineOperation(`
  query RestWebhooks($first: Int!, $after: String) {
    webhookSubscriptions(first: $first, after: $after, payloads: [REDO, LOOP]) {
      pageInfo { hasNextPage endCursor }
      nodes { ...RestWebhook }
    }
  }
  ${WEBHOOK_FIELDS}`);

const GET = defineOperation(`
  query RestWebhook($id: ID!) { webhookSubscription(id: $id) { ...RestWebhook } }
  ${WEBHOOK_FIELDS}`);

const UPDATE = defineOperation(`
  mutation RestUpdateWebhook($id: ID!, $input: WebhookSubscriptionUpdateInput!) { webhookSubscriptionUpdate(id: $id, input: $input) { id } }`);

const DELETE = defineOperation(`
  mutation RestDeleteWebhook($id: ID!) { webhookSubscriptionDelete(id: $id) }`);

const REPLAY = defineOperation(`
  mutation RestReplayWebhook($id: ID!, $since: DateTime!) { webhookSubscriptionReplay(id: $id, since: $since) }`);

/** The document's webhook-read: the token is never answered, only that there is one. */
function restWebhook(node: WebhookNode) {
  return {
    id: node.id,
    callback: { url: node.url, auth: node.hasSecret ? { bearer: {} } : null },
    topic: 'return',
    kind: node.payload.toLowerCase(),
    externalId: node.externalId,
    createdAt: node.createdAt,
    updatedAt: node.updatedAt,
  };
}

const CALLBACK_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url', 'auth'],
  properties: {
    url: { type: 'string' },
    auth: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: { bearer: { type: 'object', additionalProperties: false, required: ['token'], properties: { token: { type: 'string' } } } },
    },
  },
};

/** `{webhook: {...}}` with these properties, `required` among them; no others. */
function webhookBody(required: string[], properties: Record<string, JsonSchema>): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['webhook'],
    properties: {
      webhook: { type: 'object', additionalProperties: false, required, properties: { callback: CALLBACK_SCHEMA, externalId: { type: ['string', 'null'] }, ...properties } },
    },
  };
}

const CREATE_BODY_SCHEMA = webhookBody(['callback', 'topic'], { topic: { type: 'string' }, kind: { type: 'string' }, backfill: { type: 'boolean' } });
const UPDATE_BODY_SCHEMA = webhookBody(['callback'], {});

const REPLAY_BODY_SCHEMA: JsonSchema = { type: 'object', additionalProperties: false, required: ['start'], properties: { start: { type: 'string' } } };

interface CallbackBody {
  url: string;
  auth: { bearer?: { token: string } } | null;
}

/** Field names of the mutations' inputs as the body names them. */
const BODY_NAMES = { url: 'webhook.callback.url', secret: 'webhook.callback.auth.bearer.token', externalId: 'webhook.externalId', since: 'start' };

const DELIVERIES = defineOperation(`
  query RestWebhookDeliveries($id: ID!, $first: Int!, $after: String, $status: WebhookDeliveryStatus, $subjectId: String) {
    webhookSubscription(id: $id) { id }
    webhookDeliveries(subscriptionId: $id, first: $first, after: $after, status: $status, subjectId: $subjectId) {
      pageInfo { hasNextPage endCursor }
      nodes {
        id status attemptCount nextAttemptAt lastError completedAt createdAt
        event { id topic subjectId createdAt }
        attempts { attemptNumber startedAt durationMs responseStatus error }
      }
    }
  }`);

const STATUS_SCHEMA: JsonSchema = { type: 'string', enum: ['PENDING', 'DELIVERED', 'DISCARDED'] };

const DELIVERY_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'event', 'status', 'attemptCount', 'nextAttemptAt', 'lastError', 'completedAt', 'createdAt', 'attempts'],
  properties: {
    id: { type: 'string', pattern: '^dlv_' },
    event: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'topic', 'subjectId', 'createdAt'],
      properties: {
        id: { type: 'string', pattern: '^evt_', description: 'The Webhook-Id header of every attempt' },
        topic: { type: 'string' },
        subjectId: { type: 'string' },
        createdAt: { type: 'string', format: 'date-time' },
      },
    },
    status: STATUS_SCHEMA,
    attemptCount: { type: 'integer', minimum: 0 },
    nextAttemptAt: { type: ['string', 'null'], format: 'date-time', description: 'Null once delivered or discarded' },
    lastError: { type: ['string', 'null'] },
    completedAt: { type: ['string', 'null'], format: 'date-time' },
    createdAt: { type: 'string', format: 'date-time' },
    attempts: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['attemptNumber', 'startedAt', 'durationMs', 'responseStatus', 'error'],
        properties: {
          attemptNumber: { type: 'integer', minimum: 1 },
          startedAt: { type: 'string', format: 'date-time' },
          durationMs: { type: 'integer', minimum: 0 },
          responseStatus: { type: ['integer', 'null'], description: 'Null when no response came' },
          error: { type: ['string', 'null'] },
        },
      },
    },
  },
};

const DELIVERY_FILTERS: QueryParameter[] = [
  { name: 'status', variable: 'status', type: 'WebhookDeliveryStatus', description: 'Only deliveries in this status' },
  { name: 'subject_id', variable: 'subjectId', type: 'String', description: 'Only deliveries of events about this record' },
];

const DELIVERY_NAMES = { ...parameterNames(DELIVERY_FILTERS), ...PAGE_PARAMETER_NAMES };

type PageInfo = { hasNextPage: boolean; endCursor: string | null };

async function create(input: RouteInput): Promise<DoorResponse> {
  const shape = checkShape(CREATE_BODY_SCHEMA, input.body);
  const issues = [...shape.issues];
  // A null body has no members: the shape check has already said so.
  const webhook = (shape.value as { webhook?: { callback: CallbackBody; topic: string; kind?: string; externalId?: string | null; backfill?: boolean } } | null)?.webhook;
  if (webhook && shape.issues.length === 0) {
    if (webhook.topic !== 'return') issues.push({ path: 'webhook.topic', message: 'must be "return"' });
    if (webhook.kind !== undefined && !['redo', 'loop'].includes(webhook.kind)) issues.push({ path: 'webhook.kind', message: 'must be "redo" or "loop"' });
  }
  if (issues.length > 0 || !webhook) return validationProblem(issues, input.instance);
  const outcome = await runOperation<{ returnWebhookSave: { created: boolean; subscription: WebhookNode } }>(
    SAVE,
    {
      input: {
        url: webhook.callback.url,
        secret: webhook.callback.auth?.bearer?.token ?? null,
        payload: (webhook.kind ?? 'redo').toUpperCase(),
        externalId: webhook.externalId ?? null,
        backfill: webhook.backfill ?? false,
      },
    },
    input.ctx,
  );
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, BODY_NAMES);
  const { created, subscription } = outcome.data.returnWebhookSave;
  return json(created ? 201 : 200, { webhook: restWebhook(subscription) });
}

async function list(input: RouteInput): Promise<DoorResponse> {
  const page = readPage(input);
  if (!page.ok) return validationProblem(page.issues, input.instance);
  const outcome = await runOperation<{ webhookSubscriptions: { pageInfo: PageInfo; nodes: WebhookNode[] } }>(
    LIST,
    { first: page.first, after: page.after },
    input.ctx,
  );
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, PAGE_PARAMETER_NAMES);
  const { nodes, pageInfo } = outcome.data.webhookSubscriptions;
  return json(200, { webhooks: nodes.map(restWebhook) }, nextPageHeaders(pageInfo));
}

function notFound(input: RouteInput): DoorResponse {
  return problem(404, `webhook ${input.params.webhookId} not found`, { instance: input.instance });
}

/** The store's return webhook with this id; subscriptions the document cannot describe are not found here. */
async function findReturnWebhook(input: RouteInput): Promise<DoorResponse | { found: WebhookNode }> {
  const outcome = await runOperation<{ webhookSubscription: WebhookNode | null }>(GET, { id: input.params.webhookId }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  const found = outcome.data.webhookSubscription;
  if (!found || !RETURN_WEBHOOK_PAYLOADS.includes(found.payload)) return notFound(input);
  return { found };
}

async function get(input: RouteInput): Promise<DoorResponse> {
  const read = await findReturnWebhook(input);
  if (!('found' in read)) return read;
  return json(200, { webhook: restWebhook(read.found) });
}

async function update(input: RouteInput): Promise<DoorResponse> {
  const shape = checkShape(UPDATE_BODY_SCHEMA, input.body);
  if (shape.issues.length > 0) return validationProblem(shape.issues, input.instance);
  const read = await findReturnWebhook(input);
  if (!('found' in read)) return read;
  const webhook = (shape.value as { webhook: { callback: CallbackBody; externalId?: string | null } }).webhook;
  const changes = {
    url: webhook.callback.url,
    secret: webhook.callback.auth?.bearer?.token ?? null,
    ...('externalId' in webhook ? { externalId: webhook.externalId } : {}),
  };
  const outcome = await runOperation(UPDATE, { id: read.found.id, input: changes }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, BODY_NAMES);
  return { status: 204, headers: {} };
}

async function remove(input: RouteInput): Promise<DoorResponse> {
  const read = await findReturnWebhook(input);
  if (!('found' in read)) return read;
  const outcome = await runOperation(DELETE, { id: read.found.id }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  return { status: 204, headers: {} };
}

async function replay(input: RouteInput): Promise<DoorResponse> {
  const shape = checkShape(REPLAY_BODY_SCHEMA, input.body);
  if (shape.issues.length > 0) return validationProblem(shape.issues, input.instance);
  const read = await findReturnWebhook(input);
  if (!('found' in read)) return read;
  const { start } = shape.value as { start: string };
  const outcome = await runOperation(REPLAY, { id: read.found.id, since: start }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, BODY_NAMES);
  return { status: 202, headers: {} };
}

async function deliveries(input: RouteInput) {
  const page = readPage(input);
  const filters = readQueryParameters(input.query, DELIVERY_FILTERS);
  if (!page.ok || !filters.ok) return validationProblem([...(page.ok ? [] : page.issues), ...(filters.ok ? [] : filters.issues)], input.instance);
  const outcome = await runOperation<{
    webhookSubscription: { id: string } | null;
    webhookDeliveries: { pageInfo: PageInfo; nodes: unknown[] };
  }>(DELIVERIES, { id: input.params.id, first: page.first, after: page.after, ...filters.variables }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, DELIVERY_NAMES);
  if (!outcome.data.webhookSubscription) {
    return problem(404, `webhook subscription ${input.params.id} not found`, { instance: input.instance });
  }
  const { nodes, pageInfo } = outcome.data.webhookDeliveries;
  return json(200, { deliveries: nodes }, nextPageHeaders(pageInfo));
}

export const webhookRoutes: Route[] = [
  { method: 'POST', path: '/stores/{storeId}/webhooks', scopes: ['webhooks_write'], handle: create },
  { method: 'GET', path: '/stores/{storeId}/webhooks', scopes: ['webhooks_read'], handle: list },
  { method: 'GET', path: '/webhooks/{webhookId}', scopes: ['webhooks_read'], handle: get },
  { method: 'PUT', path: '/webhooks/{webhookId}', scopes: ['webhooks_write'], handle: update },
  { method: 'DELETE', path: '/webhooks/{webhookId}', scopes: ['webhooks_write'], handle: remove },
  { method: 'POST', path: '/webhooks/{webhookId}/replay', scopes: ['webhooks_write'], handle: replay },
  {
    method: 'GET',
    path: '/stores/{storeId}/webhooks/{id}/deliveries',
    scopes: ['webhooks_read'],
    doc: {
      summary: 'List the deliveries of a webhook subscription',
      tag: TAG,
      description: 'Newest first (createdAt desc, ties by id), each with every attempt made (status, duration, error).',
      parameters: [...PAGINATION_DOC.parameters, ...documentQueryParameters(DELIVERY_FILTERS)],
      responses: {
        '200': {
          description: 'One page of deliveries',
          headers: { 'X-Page-Next': PAGINATION_DOC.nextHeader },
          schema: {
            type: 'object',
            additionalProperties: false,
            required: ['deliveries'],
            properties: { deliveries: { type: 'array', items: DELIVERY_SCHEMA } },
          },
        },
        '400': { description: 'A bad page-size, an altered page-continue cursor or a bad filter; `errors` names each parameter', problem: true },
        '404': { description: 'The store has no subscription with this id', problem: true },
      },
    },
    handle: deliveries,
  },
];
