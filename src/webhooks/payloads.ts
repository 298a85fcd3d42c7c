// The body of a delivery, by the subscription's payload kind. NATIVE is our envelope of
// the stored event. REDO and LOOP are the two published return webhooks: they carry the
// return as it is when the delivery is made, read through the one schema with the
// formats of src/formats (the v2.2 reference's return and order for REDO, the warehouse
// platform's return and label for LOOP), the same the doors answer, so a webhook never shows
// a field or value that its published shape does not allow.
import DataLoader from 'dataloader';
import type { ReturnStatus, StoreKind, WebhookPayload } from '../generated/prisma/client.ts';
import { RETURN_BACKFILL_TOPIC } from '../domain/webhooks.ts';
import {
  COMPAT_RETURN_FRAGMENT,
  loopLabelWebhook,
  loopReturnWebhook,
  type CompatReturnNode,
  type LabelEventData,
  type LoopLabelTrigger,
  type LoopTrigger,
} from '../formats/compatReturn.ts';
import { REST_ORDER_FRAGMENT, REST_RETURN_FRAGMENT, restOrder, restReturn, type RestOrderNode, type RestReturnNode } from '../formats/restReturn.ts';
import type { NewContext } from '../schema/context.ts';
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
// sends NATIVE deliveries never needs them. `nodes(ids:)` loads the returns of a batch
// together (one statement per relation, whatever the batch's size) and answers null for
// a return that is gone.
function returnOperations() {
  operations ??= {
    redo: defineOperation(`
      query WebhookRedoReturns($ids: [ID!]!) { nodes(ids: $ids) { ... on Return { ...RestReturn order { ...RestOrder } } } }
      ${REST_RETURN_FRAGMENT}
      ${REST_ORDER_FRAGMENT}`),
    loop: defineOperation(`
      query WebhookLoopReturns($ids: [ID!]!) { nodes(ids: $ids) { ... on Return { ...CompatReturn } } }
      ${COMPAT_RETURN_FRAGMENT}`),
  };
  return operations;
}

type ReturnPayload = 'REDO' | 'LOOP';

interface ReturnRequest {
  payload: ReturnPayload;
  event: DeliveredEvent;
}

/**
 * Reads the returns that REDO and LOOP deliveries show, as they are when the deliveries are
 * made. The deliveries a dispatcher starts in the same turn of the event loop (a claim's
 * batch) are read together: one operation per store and payload kind instead of one per
 * delivery, and a return several subscriptions receive is read once.
 */
export class ReturnReader {
  private readonly loader: DataLoader<ReturnRequest, unknown>;

  constructor(private readonly newContext: NewContext) {
    // Not cached beyond a batch: each delivery shows the return as it is when it is made.
    this.loader = new DataLoader((requests) => this.readBatch(requests), { cache: false });
  }

  read<T>(payload: ReturnPayload, event: DeliveredEvent): Promise<T> {
    return this.loader.load({ payload, event }) as Promise<T>;
  }

  private async readBatch(requests: readonly ReturnRequest[]): Promise<unknown[]> {
    const groups = new Map<string, ReturnRequest[]>();
    for (const request of requests) {
      const key = `${request.payload}\u0000${request.event.storeId}`;
      const group = groups.get(key);
      if (group) group.push(request);
      else groups.set(key, [request]);
    }
    const answers = new Map<ReturnRequest, unknown>();
    await Promise.all(
      [...groups.values()].map(async (group) => {
        const found = await this.readGroup(group);
        group.forEach((request) => answers.set(request, found.get(request.event.subjectId)));
      }),
    );
    return requests.map((request) => answers.get(request));
  }

  /** The returns of one store for one payload kind, by id; a return that is gone is SubjectGone. */
  private async readGroup(group: ReturnRequest[]): Promise<Map<string, unknown>> {
    const [{ payload, event }] = group;
    const ids = [...new Set(group.map((request) => request.event.subjectId))];
    const ctx = this.newContext({
      auth: {
        store: { id: event.storeId, name: event.storeName, kind: event.storeKind },
        client: { id: 'webhook-dispatcher', name: 'webhook dispatcher' },
        scopes: new Set(['returns_read', 'orders_read']),
      },
      door: 'internal',
      requestId: event.eventId,
    });
    const operation = payload === 'REDO' ? returnOperations().redo : returnOperations().loop;
    const outcome = await runOperation<{ nodes: ({ id: string } | null)[] }>(operation, { ids }, ctx);
    if (!outcome.ok) {
      const failed = new Error(`reading returns ${ids.join(', ')} for ${payload} deliveries failed: ${outcome.error.message}`);
      return new Map(ids.map((id) => [id, failed]));
    }
    const { nodes } = outcome.data;
    return new Map(
      ids.map((id, index) => {
        // A node that is not a return answers `{}` to the fragment on Return.
        const node = nodes[index];
        return [id, node?.id ? node : new SubjectGone(`return ${id} no longer exists`)];
      }),
    );
  }
}

const REDO_TYPES: Record<string, 'created' | 'updated' | 'backfill'> = {
  'return.created': 'created',
  'return.updated': 'updated',
  [RETURN_BACKFILL_TOPIC]: 'backfill',
};

/** Our label topics, as the platform's label webhook names them (topic `label`). */
const LOOP_LABEL_TRIGGERS: Record<string, LoopLabelTrigger> = {
  'return_label.created': 'label.created',
  'return_label.updated': 'label.updated',
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

/** The serialised body of one delivery of `event`. */
export async function deliveryBody(returns: ReturnReader, event: DeliveredEvent): Promise<string> {
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
      const node = await returns.read<RestReturnNode & { order: RestOrderNode }>('REDO', event);
      return JSON.stringify({
        type: REDO_TYPES[event.topic],
        at: event.createdAt,
        merchantName: event.storeName,
        return: restReturn(node),
        order: restOrder(node.order),
      });
    }
    case 'LOOP': {
      const node = await returns.read<CompatReturnNode>('LOOP', event);
      const labelTrigger = LOOP_LABEL_TRIGGERS[event.topic];
      if (labelTrigger) {
        // The label as the event recorded it: a later change has its own event and delivery.
        const label = event.data as LabelEventData;
        return JSON.stringify(loopLabelWebhook(node, label, { trigger: labelTrigger, shopId: event.storeId, at: event.createdAt }));
      }
      return JSON.stringify(loopReturnWebhook(node, { trigger: loopTrigger(event), shopId: event.storeId }));
    }
  }
}
