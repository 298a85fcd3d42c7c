// The body of a delivery, by the subscription's payload kind. NATIVE is our envelope of
// the stored event. REDO and LOOP are the two published return webhooks: they carry the
// return as it is when the delivery is made, read through the one schema with the
// mappers of the door that owns each shape (the v2.2 reference's return and order for
// REDO, the warehouse platform's return for LOOP), so a webhook never shows a field or
// value that its published shape does not allow.
import type { ReturnStatus, StoreKind, WebhookPayload } from '../generated/prisma/client.ts';
import type { Database } from '../db/client.ts';
import { RETURN_BACKFILL_TOPIC } from '../domain/webhooks.ts';
import type { Logger } from '../logger.ts';
import { COMPAT_RETURN_FRAGMENT, loopReturnWebhook, type CompatReturnNode, type LoopTrigger } from '../compat/returnShape.ts';
import { REST_ORDER_FRAGMENT, REST_RETURN_FRAGMENT, restOrder, restReturn, type RestOrderNode, type RestReturnNode } from '../rest/returnShape.ts';
import { createContext } from '../schema/context.ts';
import { defineOperation, runOperation } from '../schema/execute.ts';

export interface DeliveredEvent {
  payload: WebhookPayload;
  eventId: string;
  topic: string;
  storeId: string;
  storeName: string;
  storeKind: StoreKind;
  subjectId: string;
  /** ISO 8601 in UTC. */
  createdAt: string;
  data: unknown;
}

/** The event's subject no longer exists, so its payload cannot be made; retrying cannot help. */
export class SubjectGone extends Error {}

let operations: { redo: ReturnType<typeof defineOperation>; loop: ReturnType<typeof defineOperation> } | undefined;

// Defined at first use: the schema is built by then, and a dispatcher that only ever
// sends NATIVE deliveries never needs them.
function returnOperations() {
  operations ??= {
    redo: defineOperation(`
      query WebhookRedoReturn($id: ID!) { return(id: $id) { ...RestReturn order { ...RestOrder } } }
      ${REST_RETURN_FRAGMENT}
      ${REST_ORDER_FRAGMENT}`),
    loop: defineOperation(`
      query WebhookLoopReturn($id: ID!) { return(id: $id) { ...CompatReturn } }
      ${COMPAT_RETURN_FRAGMENT}`),
  };
  return operations;
}

const REDO_TYPES: Record<string, 'created' | 'updated' | 'backfill'> = {
  'return.created': 'created',
  'return.updated': 'updated',
  [RETURN_BACKFILL_TOPIC]: 'backfill',
};

function loopTrigger(event: DeliveredEvent): LoopTrigger {
  if (event.topic === 'return.created') return 'return.created';
  // A status change records where it led and where it came from (enum values); other
  // updates (notes, tags) carry the status unchanged and no previousStatus.
  const change = (event.data ?? {}) as { status?: ReturnStatus; previousStatus?: ReturnStatus };
  const closed = event.topic === 'return.updated' && change.status === 'complete' && change.previousStatus !== undefined && change.previousStatus !== 'complete';
  // The platform has no backfill trigger: an announced existing return is an update to a subscriber.
  return closed ? 'return.closed' : 'return.updated';
}

async function readReturn<T>(db: Database, logger: Logger, event: DeliveredEvent, operation: ReturnType<typeof defineOperation>): Promise<T> {
  const ctx = createContext({
    db,
    auth: {
      store: { id: event.storeId, name: event.storeName, kind: event.storeKind },
      client: { id: 'webhook-dispatcher', name: 'webhook dispatcher' },
      scopes: new Set(['returns_read', 'orders_read']),
    },
    door: 'internal',
    logger,
    requestId: event.eventId,
  });
  const outcome = await runOperation<{ return: T | null }>(operation, { id: event.subjectId }, ctx);
  if (!outcome.ok) throw new Error(`reading return ${event.subjectId} for event ${event.eventId} failed: ${outcome.error.message}`);
  if (!outcome.data.return) throw new SubjectGone(`return ${event.subjectId} no longer exists`);
  return outcome.data.return;
}

/** The serialised body of one delivery of `event`. */
export async function deliveryBody(db: Database, logger: Logger, event: DeliveredEvent): Promise<string> {
  switch (event.payload) {
    case 'NATIVE':
      return JSON.stringify({
        id: event.eventId,
        topic: event.topic,
        createdAt: event.createdAt,
        storeId: event.storeId,
        subjectId: event.subjectId,
        data: event.data,
      });
    case 'REDO': {
      const node = await readReturn<RestReturnNode & { order: RestOrderNode }>(db, logger, event, returnOperations().redo);
      return JSON.stringify({
        type: REDO_TYPES[event.topic],
        at: event.createdAt,
        merchantName: event.storeName,
        return: restReturn(node),
        order: restOrder(node.order),
      });
    }
    case 'LOOP': {
      const node = await readReturn<CompatReturnNode>(db, logger, event, returnOperations().loop);
      return JSON.stringify(loopReturnWebhook(node, { trigger: loopTrigger(event), shopId: event.storeId }));
    }
  }
}
