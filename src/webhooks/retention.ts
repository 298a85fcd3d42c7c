// Retention of the webhook history: deliveries that are finished (DELIVERED or
// DISCARDED) longer than the retention age ago, with their attempts (cascade), and
// then events that are older than that age and have no delivery left, and the queues of
// subjects with nothing pending (a queue is made again when its subject has a delivery).
//
// Each batch is one short statement of its own: it deletes at most `batchSize` rows,
// found through an index, and skips rows another transaction holds (SKIP LOCKED), so
// it never waits on, or makes wait, the writers and the dispatcher for long. PENDING
// deliveries are never touched, and an event is only deleted once nothing refers to
// it, so the outbox and per-subject order are unaffected. Times come from the
// database clock, as in the dispatcher.
import type { Database } from '../db/database.ts';

export interface RetentionOptions {
  /** Finished deliveries and events older than this many days are deleted. */
  retentionDays: number;
  /** Rows per statement. */
  batchSize?: number;
  /** Statements per table in one run; whatever is left waits for the next run. */
  maxBatches?: number;
}

export interface RetentionResult {
  deliveries: number;
  events: number;
  queues: number;
}

const CUTOFF = `(now() AT TIME ZONE 'UTC') - interval '1 day' * $1::float8`;

const DELETE_DELIVERIES_SQL = `
WITH gone AS (
  DELETE FROM "WebhookDelivery" WHERE id IN (
    SELECT id FROM "WebhookDelivery"
    WHERE status IN ('DELIVERED', 'DISCARDED') AND "completedAt" < ${CUTOFF}
    LIMIT $2
    FOR UPDATE SKIP LOCKED)
  RETURNING 1)
SELECT count(*)::int AS deleted FROM gone`;

const DELETE_EVENTS_SQL = `
WITH gone AS (
  DELETE FROM "Event" WHERE id IN (
    SELECT e.id FROM "Event" e
    WHERE e."createdAt" < ${CUTOFF}
      AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" d WHERE d."eventId" = e.id)
    LIMIT $2
    FOR UPDATE OF e SKIP LOCKED)
  RETURNING 1)
SELECT count(*)::int AS deleted FROM gone`;

// An idle queue row is locked before it is deleted, and deleted only if still idle, so a
// dispatcher counting a new delivery into it either waits and makes it again, or wins.
const DELETE_IDLE_QUEUES_SQL = `
WITH idle AS (
  SELECT "subscriptionId", "subjectId" FROM "WebhookQueue" WHERE pending = 0 LIMIT $1 FOR UPDATE SKIP LOCKED),
gone AS (
  DELETE FROM "WebhookQueue" q USING idle
  WHERE q."subscriptionId" = idle."subscriptionId" AND q."subjectId" = idle."subjectId" AND q.pending = 0
  RETURNING 1)
SELECT count(*)::int AS deleted FROM gone`;

async function deleteInBatches(db: Database, sql: string, params: (batchSize: number) => unknown[], batchSize: number, maxBatches: number): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const [{ deleted }] = await db.sql.query<{ deleted: number }>(sql, params(batchSize));
    total += deleted;
    if (deleted < batchSize) break;
  }
  return total;
}

export async function pruneWebhookHistory(db: Database, options: RetentionOptions): Promise<RetentionResult> {
  const batchSize = options.batchSize ?? 500;
  const maxBatches = options.maxBatches ?? 20;
  const aged = (size: number) => [options.retentionDays, size];
  const deliveries = await deleteInBatches(db, DELETE_DELIVERIES_SQL, aged, batchSize, maxBatches);
  const events = await deleteInBatches(db, DELETE_EVENTS_SQL, aged, batchSize, maxBatches);
  const queues = await deleteInBatches(db, DELETE_IDLE_QUEUES_SQL, (size) => [size], batchSize, maxBatches);
  return { deliveries, events, queues };
}
