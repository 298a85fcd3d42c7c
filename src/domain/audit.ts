// The audit trail (migration audit_trail): the database's triggers write an entry for every
// row of an audited table that a statement inserts, changes or deletes, in that statement's
// transaction. What they cannot see themselves (who acts, for which store, through which door
// and operation, in which request) the application hands them as one setting of the
// transaction, `audit.context`, taken from the request scope when the transaction begins.
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { currentScope, type Actor } from '../observability/requestScope.ts';

/** The tables the triggers audit (their model names are the entries' object kinds); the migration lists the same. */
export const AUDITED_KINDS = [
  'Store',
  'StoreLink',
  'ApiClient',
  'MerchantUser',
  'Customer',
  'CustomerSubscription',
  'CustomEvent',
  'CustomFieldDeclaration',
  'CustomFieldValue',
  'Order',
  'OrderLineItem',
  'FulfillmentGroup',
  'Fulfillment',
  'FulfillmentLineItem',
  'FulfillmentTrackingEvent',
  'CoverageProduct',
  'BillingSetting',
  'Return',
  'ReturnItem',
  'ReturnNote',
  'ReturnTag',
  'ProductFamily',
  'ProductFamilyOption',
  'ProductFamilyImage',
  'Product',
  'ProductOptionValue',
  'ProductImage',
  'Attribute',
  'AttributeValue',
  'Location',
  'InventoryLevel',
  'InboundShipment',
  'InboundShipmentItem',
  'InboundShipmentPurchaseOrder',
  'PurchaseOrder',
  'PurchaseOrderItem',
  'WebhookSubscription',
] as const;

export type AuditedKind = (typeof AUDITED_KINDS)[number];

export type AuditActorKind = 'API_CLIENT' | 'MERCHANT_USER' | 'SHOPPER' | 'JOB' | 'SYSTEM';

function actorColumns(actor: Actor | undefined): { actorKind: AuditActorKind; actorId?: string; actorName?: string } {
  switch (actor?.kind) {
    case 'api_client':
      return { actorKind: 'API_CLIENT', actorId: actor.id, actorName: actor.name };
    case 'merchant_user':
      return { actorKind: 'MERCHANT_USER', actorId: actor.id, actorName: actor.email };
    case 'shopper':
      return { actorKind: 'SHOPPER', actorId: actor.session };
    case 'job':
      return { actorKind: 'JOB', actorId: actor.name };
    default:
      return { actorKind: 'SYSTEM' };
  }
}

/** The current request or job as the triggers read it, or null outside any (the triggers then record the database role). */
export function auditContext(): string | null {
  const scope = currentScope();
  if (!scope) return null;
  return JSON.stringify({ ...actorColumns(scope.actor), storeId: scope.storeId, door: scope.door, operation: scope.operation, requestId: scope.requestId });
}

/** Hands the current scope to the audit triggers for the rest of the transaction `tx` (one statement). */
export async function recordAuditContext(tx: Prisma.TransactionClient): Promise<void> {
  const context = auditContext();
  if (context !== null) await tx.$executeRawUnsafe(`SELECT set_config('audit.context', $1, true)`, context);
}

export interface AuditEntryFilters {
  /** The object's own entries and those of its parts (an order's lines, a return's items). */
  object?: { kind: string; id: string };
  /** `id` absent: every actor of the kind. */
  actor?: { kind: AuditActorKind; id?: string | null };
  operation?: string;
  /** From (inclusive) and to (exclusive). */
  occurredAtMin?: Date;
  occurredAtMax?: Date;
}

/** The where-clause of a store's entries that pass the filters. */
export function auditEntryWhere(storeId: string, filters: AuditEntryFilters): Prisma.AuditEntryWhereInput {
  const { object, actor, operation, occurredAtMin, occurredAtMax } = filters;
  return {
    storeId,
    ...(object && {
      OR: [
        { objectKind: object.kind, objectId: object.id },
        { parentKind: object.kind, parentId: object.id },
      ],
    }),
    ...(actor && { actorKind: actor.kind, ...(actor.id ? { actorId: actor.id } : {}) }),
    ...(operation && { operation }),
    ...((occurredAtMin || occurredAtMax) && { occurredAt: { ...(occurredAtMin && { gte: occurredAtMin }), ...(occurredAtMax && { lt: occurredAtMax }) } }),
  };
}

// The oldest entries first, a bounded batch per statement: the batch is the lowest ids (entry
// ids follow time, to within the length of the transactions that wrote them, so no index of
// times is kept for this) and of those the ones past the age go. A batch that finds an entry
// young enough to keep has reached the entries to keep. Rows another transaction holds (an
// erasure rewriting them) are left to the next batch.
const PRUNE_SQL = `
WITH oldest AS (
  SELECT id, "occurredAt" FROM "AuditEntry" ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED),
gone AS (
  DELETE FROM "AuditEntry" a USING oldest
  WHERE a.id = oldest.id AND oldest."occurredAt" < (now() AT TIME ZONE 'UTC') - interval '1 day' * $1::float8
  RETURNING 1)
SELECT count(*)::int AS deleted FROM gone`;

export interface AuditRetention {
  /** Entries older than this many days are deleted. */
  retentionDays: number;
  /** Entries per statement. */
  batchSize?: number;
  /** Statements in one run; whatever is left waits for the next run. */
  maxBatches?: number;
}

/** Deletes entries older than the retention age, in short statements of their own; answers how many. */
export async function pruneAuditTrail(db: PrismaClient, { retentionDays, batchSize = 1000, maxBatches = 20 }: AuditRetention): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const [{ deleted }] = await db.$queryRawUnsafe<{ deleted: number }[]>(PRUNE_SQL, retentionDays, batchSize);
    total += deleted;
    if (deleted < batchSize) break;
  }
  return total;
}
