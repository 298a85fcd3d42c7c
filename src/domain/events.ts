// The transactional outbox. An event is written in the same transaction as the
// change it describes, together with one pending delivery per subscription that
// wants its topic, so a rolled-back change leaves no event and a committed one
// is never lost. The dispatcher (src/webhooks) delivers from WebhookDelivery.
//
// Deliveries of one subject go out in the order of their `sequence`, which is
// taken when recordEvent runs. Call it after the write that locks the subject's
// row (the update of the return, level, shipment ...), so that two transactions
// changing the same subject record their events in the order they commit.
import { newId } from './ids.ts';
import type { Tx } from './tx.ts';

export const TOPICS = [
  'return.created',
  'return.updated',
  'order.created',
  'order.updated',
  'order.deleted',
  'fulfillment.created',
  'fulfillment.updated',
  'customer.created',
  'customer.updated',
  // A person's data erased (privacy.ts): ids and counts only, so that subscribers erase their copies.
  'customer.redacted',
  'inventory_level.updated',
  'inbound_shipment.updated',
  'return_tag.updated',
  // A return's shipping label: given (at creation or later), then its carrier, tracking number or status changed.
  'return_label.created',
  'return_label.updated',
  'storefront_event.created',
  'custom_event.created',
] as const;

export type Topic = (typeof TOPICS)[number];

export interface NewEvent {
  storeId: string;
  topic: Topic;
  /** The record the event is about; deliveries of one subject keep their order. */
  subjectId: string;
  data: unknown;
}

/**
 * Common table expressions that record one event per row of the CTE `announced`
 * (columns topic, "subjectId", data jsonb), and a pending delivery for each enabled
 * subscription of the store that names its topic (none is a no-op insert). `eventId`
 * and `storeId` are SQL expressions (parameters). Times are the transaction's, in UTC
 * like every timestamp Prisma writes. A statement that changes a subject can so record
 * its event itself, in the same round trip.
 */
export function recordingCtes(eventId: string, storeId: string): string {
  return `recorded AS (
  INSERT INTO "Event" (id, "storeId", topic, "subjectId", data, "createdAt")
  SELECT ${eventId}, ${storeId}, topic, "subjectId", data, now() AT TIME ZONE 'UTC' FROM announced
  RETURNING id, topic, "subjectId"
), enqueued AS (
  INSERT INTO "WebhookDelivery" (id, "eventId", "subscriptionId", "subjectId", "nextAttemptAt", "createdAt")
  SELECT 'dlv_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 20), recorded.id, s.id, recorded."subjectId", now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
  FROM recorded JOIN "WebhookSubscription" s ON s."storeId" = ${storeId} AND s.enabled AND recorded.topic = ANY(s.topics)
  ORDER BY s.id
)`;
}

const RECORD_SQL = `
WITH announced AS (SELECT $3::text AS topic, $4::text AS "subjectId", $5::jsonb AS data),
${recordingCtes('$1', '$2::text')}
SELECT id FROM recorded`;

export async function recordEvent(tx: Tx, event: NewEvent): Promise<string> {
  const id = newId('event');
  await tx.$executeRawUnsafe(RECORD_SQL, id, event.storeId, event.topic, event.subjectId, JSON.stringify(event.data ?? null));
  return id;
}
