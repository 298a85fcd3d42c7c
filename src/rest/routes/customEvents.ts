// POST /stores/{storeId}/events and /events/bulk: the reference's custom events, over the
// v3 `customEventCreate` and `customEventsCreate` mutations (every rule is the domain's).
// The document answers 202 without a body and declares its 400, 404 and 429 bodies as
// application/json. Bulk: each event is validated and stored on its own; the request is
// 202 while at least one event was accepted (a duplicate uniqueId counts as accepted), and
// 400 naming every refused event's fields (`events.<index>.<field>`) when none was.
import type { DoorResponse } from '../../http/door.ts';
import type { JsonSchema, Route, RouteInput } from '../../http/routeTable.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import { checkShape } from '../bodyShape.ts';
import { problemFromOutcome, validationProblem } from '../problem.ts';

const CREATE = defineOperation(`
  mutation RestCreateCustomEvent($event: JSON!) { customEventCreate(event: $event) { duplicate } }`);

const CREATE_MANY = defineOperation(`
  mutation RestCreateCustomEvents($events: [JSON]!) {
    customEventsCreate(events: $events) { index accepted userErrors { field message } }
  }`);

const BULK_REQUEST: JsonSchema = { type: 'object', additionalProperties: false, required: ['events'], properties: { events: { type: 'array' } } };

const JSON_ERRORS = [400, 404, 429] as const;
const ACCEPTED: DoorResponse = { status: 202 };

async function create(input: RouteInput): Promise<DoorResponse> {
  if (input.body === undefined) return validationProblem([{ path: '', message: 'a JSON request body is required' }], input.instance);
  const outcome = await runOperation(CREATE, { event: input.body }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, { event: '' });
  return ACCEPTED;
}

interface EventResult {
  index: number;
  accepted: boolean;
  userErrors: { field: string[] | null; message: string }[];
}

async function createMany(input: RouteInput): Promise<DoorResponse> {
  const shape = checkShape(BULK_REQUEST, input.body);
  if (shape.issues.length > 0) return validationProblem(shape.issues, input.instance);
  const { events } = shape.value as { events: unknown[] };
  const outcome = await runOperation<{ customEventsCreate: EventResult[] }>(CREATE_MANY, { events }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  const results = outcome.data.customEventsCreate;
  if (results.some((r) => r.accepted)) return ACCEPTED;
  const issues = results.flatMap((r) => r.userErrors.map((e) => ({ path: ['events', r.index, ...(e.field ?? [])].join('.'), message: e.message })));
  return validationProblem(issues, input.instance);
}

export const customEventRoutes: Route[] = [
  { method: 'POST', path: '/stores/{storeId}/events', scopes: ['customer_events_write'], jsonErrorStatuses: JSON_ERRORS, handle: create },
  { method: 'POST', path: '/stores/{storeId}/events/bulk', scopes: ['customer_events_write'], jsonErrorStatuses: JSON_ERRORS, handle: createMany },
];
