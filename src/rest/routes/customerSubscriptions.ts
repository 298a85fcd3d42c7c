// POST /stores/{storeId}/customer-subscriptions: the reference's customer subscription
// update, over the v3 `customerSubscriptionsUpdate` mutation. The body's JSON shape and
// the status names of the document are checked here; every other rule (addresses, which
// status each channel takes, which customer, stale changes) is the domain's.
import { json, type DoorResponse } from '../../http/door.ts';
import type { JsonSchema, Route, RouteInput } from '../../http/routeTable.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import type { FieldIssue } from '../../schema/errors.ts';
import { checkShape } from '../bodyShape.ts';
import { problemFromOutcome, validationProblem } from '../problem.ts';

const STATUSES = ['subscribed', 'confirmed', 'unsubscribed'];

const change = (extra: Record<string, JsonSchema> = {}): JsonSchema => ({
  type: 'object',
  required: ['subscriptionStatus'],
  properties: { subscriptionStatus: { type: 'string' }, updatedAt: { type: 'string' }, ...extra },
});
const MARKETING = change({ triggerAutomations: { type: 'boolean' } });

const REQUEST: JsonSchema = {
  type: 'object',
  properties: {
    email: {
      type: 'object',
      required: ['email', 'subscriptions'],
      properties: { email: { type: 'string' }, subscriptions: { type: 'object', properties: { marketing: MARKETING } } },
    },
    sms: {
      type: 'object',
      required: ['phoneNumber', 'subscriptions'],
      properties: { phoneNumber: { type: 'string' }, subscriptions: { type: 'object', properties: { marketing: MARKETING, transactional: change() } } },
    },
  },
};

const UPDATE = defineOperation(`
  mutation RestUpdateCustomerSubscriptions($input: CustomerSubscriptionsInput!) {
    customerSubscriptionsUpdate(input: $input) {
      updatedSubscriptions { email { marketing } sms { marketing transactional } }
    }
  }`);

type Body = Record<string, { subscriptions: Record<string, { subscriptionStatus: string } | undefined> } | undefined>;

/** The document's status names become the schema's enum values; an unknown one is an issue. */
function statusesToEnum(body: Body, issues: FieldIssue[]): void {
  for (const [channel, request] of Object.entries(body)) {
    for (const [kind, requested] of Object.entries(request?.subscriptions ?? {})) {
      if (!requested) continue;
      const status = requested.subscriptionStatus;
      if (STATUSES.includes(status)) requested.subscriptionStatus = status.toUpperCase();
      else issues.push({ path: `${channel}.subscriptions.${kind}.subscriptionStatus`, message: `must be one of ${STATUSES.join(', ')}` });
    }
  }
}

/** Drops the null branches GraphQL answers for what the request did not name. */
function present(value: Record<string, unknown> | null): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value ?? {})
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, typeof v === 'object' ? present(v as Record<string, unknown>) : v]),
  );
}

async function update(input: RouteInput): Promise<DoorResponse> {
  const shape = checkShape(REQUEST, input.body);
  const issues = [...shape.issues];
  if (issues.length === 0) statusesToEnum(shape.value as Body, issues);
  if (issues.length > 0) return validationProblem(issues, input.instance);
  const outcome = await runOperation<{ customerSubscriptionsUpdate: { updatedSubscriptions: Record<string, unknown> } }>(UPDATE, { input: shape.value }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, { input: '' });
  return json(200, {
    success: true,
    message: 'Customer subscriptions updated successfully',
    updatedSubscriptions: present(outcome.data.customerSubscriptionsUpdate.updatedSubscriptions),
  });
}

export const customerSubscriptionRoutes: Route[] = [
  { method: 'POST', path: '/stores/{storeId}/customer-subscriptions', scopes: ['customers_write'], handle: update },
];
