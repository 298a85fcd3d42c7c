// Webhook subscriptions on the REST door (decisions.md "Webhooks"): create, list,
// delete, and the deliveries of one subscription with every attempt. Hand-written
// adapters: create answers 201 and delete 204, which SOFA cannot choose. The body
// of create is checked for shape here (unknown keys refused); the URL, address,
// topic and secret rules run in the domain behind `createWebhookSubscription`.
import { json } from '../../door.ts';
import type { JsonSchema, Route, RouteInput } from '../../routeTable.ts';
import type { FieldIssue } from '../../schema/errors.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import { nextPageHeaders, PAGE_PARAMETER_NAMES, PAGINATION_DOC, readPage } from '../pagination.ts';
import { problem, problemFromOutcome, validationProblem } from '../problem.ts';
import { documentQueryParameters, parameterNames, readQueryParameters, type QueryParameter } from '../queryParameters.ts';

const TAG = 'Webhooks';

const SUBSCRIPTION_FIELDS = `
  fragment RestWebhookSubscription on WebhookSubscription { id url topics enabled hasSecret createdAt updatedAt }`;

const CREATE = defineOperation(`
  mutation RestCreateWebhook($input: CreateWebhookSubscriptionInput!) {
    createWebhookSubscription(input: $input) { ...RestWebhookSubscription }
  }
  ${SUBSCRIPTION_FIELDS}`);

const LIST = defineOperation(`
  query RestWebhooks($first: Int!, $after: String) {
    webhookSubscriptions(first: $first, after: $after) {
      pageInfo { hasNextPage endCursor }
      nodes { ...RestWebhookSubscription }
    }
  }
  ${SUBSCRIPTION_FIELDS}`);

const DELETE = defineOperation(`
  mutation RestDeleteWebhook($id: ID!) { deleteWebhookSubscription(id: $id) }`);

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

const SUBSCRIPTION_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'url', 'topics', 'enabled', 'hasSecret', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', pattern: '^whk_' },
    url: { type: 'string', format: 'uri' },
    topics: { type: 'array', items: { type: 'string' } },
    enabled: { type: 'boolean', description: 'A disabled subscription gets no new events; its pending deliveries wait' },
    hasSecret: { type: 'boolean', description: 'Whether deliveries carry `Authorization: Bearer <secret>`; the secret is never returned' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

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

const CREATE_BODY_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url', 'topics'],
  properties: {
    url: { type: 'string', description: 'https; every address the host resolves to must be public' },
    secret: { type: 'string', description: 'Sent as `Authorization: Bearer <secret>` on every delivery; never returned' },
    topics: {
      type: 'array',
      minItems: 1,
      items: { type: 'string' },
      description: 'return.created, return.updated, order.created, customer.created, customer.updated, inventory_level.updated, inbound_shipment.updated',
    },
    enabled: { type: 'boolean', description: 'Default true' },
  },
};

const DELIVERY_FILTERS: QueryParameter[] = [
  { name: 'status', variable: 'status', type: 'WebhookDeliveryStatus', description: 'Only deliveries in this status' },
  { name: 'subject_id', variable: 'subjectId', type: 'String', description: 'Only deliveries of events about this record' },
];

const DELIVERY_NAMES = { ...parameterNames(DELIVERY_FILTERS), ...PAGE_PARAMETER_NAMES };

type PageInfo = { hasNextPage: boolean; endCursor: string | null };

/** Shape of the create body; the business rules of each field are the domain's. */
function createBodyIssues(body: unknown): FieldIssue[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [{ path: '', message: 'body must be a JSON object' }];
  const record = body as Record<string, unknown>;
  const known = Object.keys(CREATE_BODY_SCHEMA.properties as object);
  const issues: FieldIssue[] = Object.keys(record)
    .filter((key) => !known.includes(key))
    .map((key) => ({ path: key, message: 'is not a known property' }));
  if (typeof record.url !== 'string') issues.push({ path: 'url', message: 'is required and must be a string' });
  if (!Array.isArray(record.topics)) issues.push({ path: 'topics', message: 'is required and must be an array of topic names' });
  else record.topics.forEach((topic, i) => typeof topic !== 'string' && issues.push({ path: `topics.${i}`, message: 'must be a string' }));
  if (record.secret !== undefined && record.secret !== null && typeof record.secret !== 'string') {
    issues.push({ path: 'secret', message: 'must be a string' });
  }
  if (record.enabled !== undefined && record.enabled !== null && typeof record.enabled !== 'boolean') {
    issues.push({ path: 'enabled', message: 'must be a boolean' });
  }
  return issues;
}

async function create(input: RouteInput) {
  const issues = createBodyIssues(input.body);
  if (issues.length > 0) return validationProblem(issues, input.instance);
  const outcome = await runOperation<{ createWebhookSubscription: unknown }>(CREATE, { input: input.body }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  return json(201, outcome.data.createWebhookSubscription);
}

async function list(input: RouteInput) {
  const page = readPage(input);
  if (!page.ok) return validationProblem(page.issues, input.instance);
  const outcome = await runOperation<{ webhookSubscriptions: { pageInfo: PageInfo; nodes: unknown[] } }>(
    LIST,
    { first: page.first, after: page.after },
    input.ctx,
  );
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, PAGE_PARAMETER_NAMES);
  const { nodes, pageInfo } = outcome.data.webhookSubscriptions;
  return json(200, { webhooks: nodes }, nextPageHeaders(pageInfo));
}

async function remove(input: RouteInput) {
  const outcome = await runOperation(DELETE, { id: input.params.id }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  return { status: 204 };
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
  {
    method: 'POST',
    path: '/stores/{storeId}/webhooks',
    differsFromReference: "decisions.md's subscription shape ({url, secret, topics}); the reference's {webhook: {callback, topic, kind, externalId}} is not served yet",
    scopes: ['webhooks_write'],
    doc: {
      summary: 'Subscribe to webhook events',
      tag: TAG,
      description:
        'Each event of a subscribed topic is POSTed to `url` with `Authorization: Bearer <secret>` (when a secret is set), ' +
        '`Webhook-Id: <event id>` and the body `{id, topic, createdAt, storeId, subjectId, data}`. Events of one subject arrive in order; ' +
        'a failed delivery (non-2xx, timeout of 10 s, connection error) is retried 8 times in all with exponential backoff (1 s, 2 s, 4 s ... capped at 5 min), then discarded. ' +
        'The URL must be https and resolve to public addresses only (no loopback, private, link-local, multicast or cloud metadata addresses).',
      requestBody: { required: true, schema: CREATE_BODY_SCHEMA },
      responses: {
        '201': { description: 'The subscription (never its secret)', schema: SUBSCRIPTION_SCHEMA },
        '400': { description: 'A bad body, URL, address, topic or secret; `errors` names each field', problem: true },
      },
    },
    handle: create,
  },
  {
    method: 'GET',
    path: '/stores/{storeId}/webhooks',
    differsFromReference: "decisions.md's subscription shape ({url, secret, topics}); the reference's {webhook: {callback, topic, kind, externalId}} is not served yet",
    scopes: ['webhooks_read'],
    doc: {
      summary: 'List webhook subscriptions',
      tag: TAG,
      description: 'Newest first (createdAt desc, ties by id).',
      parameters: PAGINATION_DOC.parameters,
      responses: {
        '200': {
          description: 'One page of subscriptions',
          headers: { 'X-Page-Next': PAGINATION_DOC.nextHeader },
          schema: {
            type: 'object',
            additionalProperties: false,
            required: ['webhooks'],
            properties: { webhooks: { type: 'array', items: SUBSCRIPTION_SCHEMA } },
          },
        },
        '400': { description: 'A bad page-size or an altered page-continue cursor', problem: true },
      },
    },
    handle: list,
  },
  {
    method: 'DELETE',
    path: '/stores/{storeId}/webhooks/{id}',
    scopes: ['webhooks_write'],
    doc: {
      summary: 'Delete a webhook subscription',
      tag: TAG,
      description: 'Its pending deliveries are dropped with it.',
      responses: {
        '204': { description: 'Deleted' },
        '404': { description: 'The store has no subscription with this id', problem: true },
      },
    },
    handle: remove,
  },
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
