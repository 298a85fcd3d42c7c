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
  'inventory_level.updated',
  'inbound_shipment.updated',
  'return_tag.updated',
  'storefront_event.created',
] as const;

export type Topic = (typeof TOPICS)[number];

export interface NewEvent {
  storeId: string;
  topic: Topic;
  /** The record the event is about; deliveries of one subject keep their order. */
  subjectId: string;
  data: unknown;
}

export async function recordEvent(tx: Tx, event: NewEvent): Promise<string> {
  const id = newId('event');
  const data = JSON.parse(JSON.stringify(event.data ?? null));
  await tx.event.create({ data: { id, storeId: event.storeId, topic: event.topic, subjectId: event.subjectId, data } });
  const subscriptions = await tx.webhookSubscription.findMany({
    where: { storeId: event.storeId, enabled: true, topics: { has: event.topic } },
    select: { id: true },
  });
  if (subscriptions.length > 0) {
    await tx.webhookDelivery.createMany({
      data: subscriptions.map((s) => ({
        id: newId('webhookDelivery'),
        eventId: id,
        subscriptionId: s.id,
        subjectId: event.subjectId,
      })),
    });
  }
  return id;
}
