// Storefront (web pixel) events. The reference answers 204 for a stored event and
// documents its 400 as application/json (not problem+json), so this route says so to
// the door. A resent eventId is a 204 that changes nothing.
import type { JsonSchema, Route, RouteInput } from '../../http/routeTable.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import { problemFromOutcome } from '../problem.ts';

const RECORD = defineOperation(`
  mutation RestStorefrontEvent($event: JSON!) { storefrontEventRecord(event: $event) }`);

const EVENT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['eventName', 'eventId', 'timestamp', 'source'],
  properties: {
    eventId: { type: 'string', description: 'Stored once per store and id' },
    eventName: {
      type: 'string',
      enum: ['product_added_to_cart', 'product_removed_from_cart', 'product_viewed', 'checkout_started', 'checkout_completed', 'checkout_contact_info_submitted', 'page_viewed', 'collection_viewed'],
    },
    timestamp: { type: 'string', format: 'date-time' },
    source: { type: 'string', enum: ['AIMERCE'] },
    customerEmail: { type: 'string', format: 'email', description: "Links the event to the store's customer with this e-mail" },
    anonymousId: { type: 'string', description: 'Client id; links the event to the customer an earlier event of this client was linked to' },
  },
};

async function record(input: RouteInput) {
  const outcome = await runOperation(RECORD, { event: input.body ?? null }, input.ctx);
  if (!outcome.ok) {
    const response = problemFromOutcome(outcome, input.instance, { event: '' });
    if (response.status !== 400) return response;
    return { ...response, headers: { ...response.headers, 'content-type': 'application/json; charset=utf-8' } };
  }
  return { status: 204 };
}

export const storefrontRoutes: Route[] = [
  {
    method: 'POST',
    path: '/stores/{storeId}/storefront/events',
    scopes: ['storefront_events_write'],
    jsonErrorStatuses: [400],
    doc: {
      summary: 'Receive Storefront Events',
      tag: 'Storefront',
      description: 'Stores a pixel event once per eventId (a resent one is a 204 that changes nothing) and announces it on the `storefront_event.created` webhook topic.',
      requestBody: { required: true, schema: EVENT_SCHEMA },
      responses: {
        '204': { description: 'Stored, or already stored' },
        '400': { description: 'Invalid event (problem details as application/json); `errors` names each field', problem: true, mediaType: 'application/json' },
      },
    },
    handle: record,
  },
];
