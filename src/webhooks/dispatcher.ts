// The webhook dispatcher: claims due deliveries from the outbox, sends them, records
// every attempt, and retries with exponential backoff until the last attempt, after
// which the delivery is discarded.
//
// Several dispatchers (in several service instances) may run against one database.
// Each (subscription, subject) pair is a queue (WebhookQueue): its head, the PENDING
// delivery of lowest `sequence`, is the only one that may be attempted, so the next event
// of a subject waits until the previous one was delivered or discarded, while other
// subjects proceed in parallel (up to `concurrency` at once). A claim locks due queues
// with FOR UPDATE SKIP LOCKED and leases their heads (`lockedBy`, `lockedUntil`) in one
// statement, so two dispatchers never hold the same delivery, and its cost depends on
// the batch, not on how many subjects wait. A lease outlives the attempt's timeout; a dispatcher that
// dies mid-attempt leaves a lease that expires, and the delivery is claimed again
// (at-least-once). All times come from the database clock, so instances on hosts
// with skewed clocks agree on what is due.
import crypto from 'node:crypto';
import os from 'node:os';
import type { Database } from '../db/database.ts';
import type { AddressPolicy } from '../domain/webhooks.ts';
import { newId } from '../domain/ids.ts';
import type { Logger } from '../observability/logger.ts';
import { AttemptAborted, createSender, type AttemptOutcome, type Sender } from './delivery.ts';
import { deliveryBody, ReturnReader, SubjectGone, type DeliveredEvent } from './payloads.ts';
import type { NewContext } from '../schema/context.ts';

export interface RetrySchedule {
  /** Delay after the first failed attempt; each later one doubles it. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** Attempts in all; after the last failed one the delivery is discarded. */
  maxAttempts: number;
}

/** 8 attempts, waiting 1 s, 2 s, 4 s ... capped at 5 minutes (docs/interface-rules.md, "Webhooks"). */
export const DEFAULT_RETRY: RetrySchedule = { firstDelayMs: 1_000, maxDelayMs: 300_000, maxAttempts: 8 };
export const DEFAULT_TIMEOUT_MS = 10_000;
/**
 * Deliveries in flight at once, each to a different subject. The rate is bound by the
 * claim and record round trips, not the CPU, so more in flight hides them: to a loopback
 * receiver over 100 subjects, 1,495-1,737/s with 64 against 1,053-1,414/s with 32 in
 * back-to-back runs (1,440/s with 16 in an earlier one).
 */
export const DEFAULT_CONCURRENCY = 64;

export interface DispatcherOptions {
  db: Database;
  logger: Logger;
  policy: AddressPolicy;
  /** The contexts the operations that read a delivery's payload run in. */
  newContext: NewContext;
  retry?: RetrySchedule;
  /** Whole-attempt deadline: resolving, connecting, sending and reading the answer. */
  timeoutMs?: number;
  /** How long a claim is held; longer than an attempt can take. Default: timeout + 5 s. */
  leaseMs?: number;
  /** Deliveries in flight at once (each of a different subject). */
  concurrency?: number;
  /** How often to look for due deliveries when idle. */
  pollIntervalMs?: number;
  /** Names this dispatcher in `lockedBy`. */
  instanceId?: string;
  /** PEM certificates that replace the system's trusted roots for https subscribers (a private CA). */
  trustedCa?: string;
  /** Told the outcome of each recorded attempt (metrics). */
  onAttempt?: (outcome: 'delivered' | 'retry' | 'discarded') => void;
}

/**
 * A failed attempt as the log says it: the status, without the subscriber's answer, which may
 * quote the body it was sent (a shopper's data); the delivery log keeps it for the merchant.
 */
function withoutAnswer(error: string | null): string | null {
  return error === null ? null : error.replace(/^(HTTP \d+):[\s\S]*$/, '$1');
}

/** Delay before attempt `attempt + 1` after attempt `attempt` (1-based) failed. */
export function retryDelayMs(attempt: number, schedule: RetrySchedule): number {
  return Math.min(schedule.firstDelayMs * 2 ** (attempt - 1), schedule.maxDelayMs);
}

/** A claimed delivery with what its attempt sends. */
interface ClaimedDelivery extends DeliveredEvent {
  id: string;
  subscriptionId: string;
  attemptCount: number;
  url: string;
  secret: string | null;
}

const NOW = `(now() AT TIME ZONE 'UTC')`;

// Producers only insert deliveries (no row they share, so no lock order to get wrong).
// A dispatcher counts new ones into their queues without ever waiting on a queue another
// statement holds: deliveries another dispatcher is counting are skipped, and so are those
// whose queue row is locked right now (a claim, a recording); they are counted next time.
// Only a queue row being made by another dispatcher at the same moment is waited for, and
// new rows are made in key order, so dispatchers cannot deadlock on queues.
const INGEST_SQL = `
WITH candidates AS (
  SELECT id, "subscriptionId", "subjectId" FROM "WebhookDelivery"
  WHERE NOT queued ORDER BY sequence LIMIT $1 FOR UPDATE SKIP LOCKED
),
pairs AS (SELECT DISTINCT "subscriptionId", "subjectId" FROM candidates),
present AS (
  SELECT q."subscriptionId", q."subjectId" FROM "WebhookQueue" q JOIN pairs p USING ("subscriptionId", "subjectId")
),
free AS (
  SELECT q."subscriptionId", q."subjectId" FROM "WebhookQueue" q JOIN pairs p USING ("subscriptionId", "subjectId")
  FOR UPDATE OF q SKIP LOCKED
),
fresh AS (
  UPDATE "WebhookDelivery" AS d SET queued = true
  FROM candidates c
  WHERE d.id = c.id
    AND (EXISTS (SELECT 1 FROM free f WHERE f."subscriptionId" = c."subscriptionId" AND f."subjectId" = c."subjectId")
         OR NOT EXISTS (SELECT 1 FROM present p WHERE p."subscriptionId" = c."subscriptionId" AND p."subjectId" = c."subjectId"))
  RETURNING d."subscriptionId", d."subjectId", d."nextAttemptAt"
)
INSERT INTO "WebhookQueue" ("subscriptionId", "subjectId", pending, "dueAt")
SELECT "subscriptionId", "subjectId", count(*), min("nextAttemptAt") FROM fresh
GROUP BY "subscriptionId", "subjectId" ORDER BY "subscriptionId" COLLATE "C", "subjectId" COLLATE "C"
ON CONFLICT ("subscriptionId", "subjectId") DO UPDATE SET
  pending = "WebhookQueue".pending + excluded.pending,
  "dueAt" = coalesce("WebhookQueue"."dueAt", excluded."dueAt")
RETURNING 1`;

// The oldest due queues of enabled subscriptions are locked (skipping those another
// dispatcher is claiming right now) and leased; each one's head, its PENDING delivery of
// lowest sequence, is found by one index seek. A queue whose head is gone (its
// subscription's deliveries deleted) is reset rather than leased.
const CLAIM_SQL = `
WITH due AS (
  SELECT q."subscriptionId", q."subjectId"
  FROM "WebhookQueue" q JOIN "WebhookSubscription" s ON s.id = q."subscriptionId" AND s.enabled
  WHERE q."dueAt" <= ${NOW}
  ORDER BY q."dueAt"
  LIMIT $3
  FOR UPDATE OF q SKIP LOCKED
),
heads AS (
  SELECT due."subscriptionId", due."subjectId", head.id
  FROM due LEFT JOIN LATERAL (
    SELECT w.id FROM "WebhookDelivery" w
    WHERE w.status = 'PENDING' AND w."subscriptionId" = due."subscriptionId" AND w."subjectId" = due."subjectId"
    ORDER BY w.sequence
    LIMIT 1) head ON true
),
leased AS (
  UPDATE "WebhookQueue" q
  SET "dueAt" = CASE WHEN heads.id IS NULL THEN NULL ELSE ${NOW} + interval '1 millisecond' * $2::float8 END,
      pending = CASE WHEN heads.id IS NULL THEN 0 ELSE q.pending END
  FROM heads WHERE q."subscriptionId" = heads."subscriptionId" AND q."subjectId" = heads."subjectId"
),
claimed AS (
  UPDATE "WebhookDelivery" AS d
  SET "lockedBy" = $1, "lockedUntil" = ${NOW} + interval '1 millisecond' * $2::float8
  WHERE d.id IN (SELECT id FROM heads WHERE id IS NOT NULL)
  RETURNING d.id, d."attemptCount", d."eventId", d."subscriptionId"
)
SELECT claimed.id, claimed."subscriptionId", claimed."attemptCount", s.url, s.secret, s.payload,
       e.id AS "eventId", e.topic, e."storeId", e."subjectId", e.data,
       to_char(e."createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt",
       st.name AS "storeName", st.kind AS "storeKind"
FROM claimed
JOIN "Event" e ON e.id = claimed."eventId"
JOIN "WebhookSubscription" s ON s.id = claimed."subscriptionId"
JOIN "Store" st ON st.id = e."storeId"`;

// The outcomes of attempts finished meanwhile, recorded together in one statement. Only
// the lease holder may record: a delivery whose lease was lost records nothing. Each
// delivery's queue is updated in the same statement (one delivery per queue is in flight,
// so no queue is touched twice): a retry makes it due again at the next attempt, a
// finished delivery hands the queue to its next one (due now) or leaves it idle.
const RECORD_SQL = `
WITH input AS (
  SELECT * FROM unnest($2::text[], $3::text[], $4::float8[], $5::text[], $6::text[], $7::text[], $8::int[], $9::int[])
    AS t(id, status, "delayMs", error, "attemptId", "startedAt", "durationMs", "responseStatus")
),
done AS (
  UPDATE "WebhookDelivery" d
  SET "attemptCount" = d."attemptCount" + 1,
      status = input.status::"DeliveryStatus",
      "nextAttemptAt" = CASE WHEN input.status = 'PENDING' THEN ${NOW} + interval '1 millisecond' * input."delayMs" ELSE d."nextAttemptAt" END,
      "completedAt" = CASE WHEN input.status = 'PENDING' THEN NULL ELSE ${NOW} END,
      "lastError" = input.error,
      "lockedBy" = NULL,
      "lockedUntil" = NULL
  FROM input
  WHERE d.id = input.id AND d."lockedBy" = $1 AND d.status = 'PENDING'
  RETURNING d.id, d."attemptCount", d."nextAttemptAt", d."subscriptionId", d."subjectId",
            input.status AS outcome, input."attemptId", input."startedAt", input."durationMs", input."responseStatus", input.error),
queue AS (
  UPDATE "WebhookQueue" q
  SET pending = CASE WHEN done.outcome = 'PENDING' THEN q.pending ELSE q.pending - 1 END,
      "dueAt" = CASE WHEN done.outcome = 'PENDING' THEN done."nextAttemptAt" WHEN q.pending > 1 THEN ${NOW} ELSE NULL END
  FROM done WHERE q."subscriptionId" = done."subscriptionId" AND q."subjectId" = done."subjectId")
INSERT INTO "DeliveryAttempt" (id, "deliveryId", "attemptNumber", "startedAt", "durationMs", "responseStatus", error)
SELECT "attemptId", id, "attemptCount", "startedAt"::timestamptz AT TIME ZONE 'UTC', "durationMs", "responseStatus", error FROM done
RETURNING "deliveryId"`;

/** Deadlock and serialisation failures: the statement was rolled back whole and may simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const RECORD_TRIES = 5;

/** One finished attempt waiting to be recorded. */
interface Outcome {
  claimed: ClaimedDelivery;
  status: 'PENDING' | 'DELIVERED' | 'DISCARDED';
  delayMs: number;
  error: string | null;
  startedAt: Date;
  durationMs: number;
  responseStatus: number | null;
  recorded: () => void;
}

// Hands a claimed delivery back untouched (the dispatcher is stopping); its queue is due again.
const RELEASE_SQL = `
WITH released AS (
  UPDATE "WebhookDelivery" SET "lockedBy" = NULL, "lockedUntil" = NULL
  WHERE id = $1 AND "lockedBy" = $2 AND status = 'PENDING'
  RETURNING "subscriptionId", "subjectId", "nextAttemptAt")
UPDATE "WebhookQueue" q SET "dueAt" = released."nextAttemptAt"
FROM released WHERE q."subscriptionId" = released."subscriptionId" AND q."subjectId" = released."subjectId"`;

/** New deliveries counted into their queues per statement. */
const INGEST_BATCH = 5_000;

/** Counts up to one batch of new deliveries into their queues; true when it found any. */
export async function countNewDeliveries(db: Database): Promise<boolean> {
  return (await db.sql.query(INGEST_SQL, [INGEST_BATCH])).length > 0;
}

function compareKeys(x: string[], y: string[]): number {
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

export class WebhookDispatcher {
  readonly instanceId: string;
  private readonly db: Database;
  private readonly logger: Logger;
  private readonly retry: RetrySchedule;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly claimBatch: number;
  private readonly sender: Sender;
  private readonly returns: ReturnReader;
  private readonly onAttempt: DispatcherOptions['onAttempt'];
  private readonly inFlight = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private readonly stopSignal = new AbortController();
  private poller: NodeJS.Timeout | undefined;
  /** The claim loop running now, if any; at most one per dispatcher. */
  private claiming: Promise<void> | undefined;
  private claimAgain = false;
  /** Set by the poll and by an ingest that found new deliveries: look for more. */
  private ingestDue = true;
  private readonly outcomes: Outcome[] = [];
  private recording: Promise<void> | undefined;

  constructor(options: DispatcherOptions) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.db = options.db;
    this.logger = options.logger;
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.leaseMs = options.leaseMs ?? timeoutMs + 5_000;
    this.concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.claimBatch = Math.max(1, Math.floor(this.concurrency / 4));
    this.instanceId = options.instanceId ?? `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
    this.onAttempt = options.onAttempt;
    this.returns = new ReturnReader(options.newContext);
    this.sender = createSender({ policy: options.policy, timeoutMs, maxSockets: this.concurrency, trustedCa: options.trustedCa });
  }

  start(): void {
    if (this.poller || this.stopSignal.signal.aborted) return;
    this.poller = setInterval(() => {
      this.ingestDue = true;
      this.wake();
    }, this.pollIntervalMs);
    this.wake();
  }

  /**
   * Stops claiming, lets deliveries in flight finish for up to `graceMs`, then cuts the
   * rest short and hands them back to the queue uncounted (their lease is released).
   */
  async stop(graceMs = DEFAULT_TIMEOUT_MS + 1_000): Promise<void> {
    clearInterval(this.poller);
    this.stopSignal.abort();
    await this.claiming;
    const all = () => Promise.all([...this.inFlight.values()].map((f) => f.done));
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), graceMs);
    });
    if ((await Promise.race([all(), graceOver])) === 'late') {
      for (const flight of this.inFlight.values()) flight.abort.abort();
      await all();
    }
    clearTimeout(timer);
    this.sender.close();
  }

  /** Claims as many due deliveries as there are free slots; coalesces concurrent calls. */
  private wake(): void {
    if (this.stopSignal.signal.aborted) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = this.fill()
      .catch((error) => this.logger.warn('claiming webhook deliveries failed', { error }))
      .finally(() => {
        this.claiming = undefined;
        if (this.claimAgain) {
          this.claimAgain = false;
          this.wake();
        }
      });
  }

  private async fill(): Promise<void> {
    while (!this.stopSignal.signal.aborted) {
      const free = this.concurrency - this.inFlight.size;
      if (free <= 0) return;
      // New deliveries are counted in on the poll, and again at once while there are more.
      if (this.ingestDue) this.ingestDue = await countNewDeliveries(this.db);
      const claimed = await this.db.sql.query<ClaimedDelivery>(CLAIM_SQL, [this.instanceId, this.leaseMs, free]);
      if (this.stopSignal.signal.aborted) {
        // Stopped while claiming: hand these back untouched.
        for (const delivery of claimed) await this.db.sql.query(RELEASE_SQL, [delivery.id, this.instanceId]);
        return;
      }
      for (const delivery of claimed) this.launch(delivery);
      if (claimed.length < free) return;
    }
  }

  private launch(delivery: ClaimedDelivery): void {
    const abort = new AbortController();
    const done = this.process(delivery, abort.signal)
      .catch((error) => this.logger.error('webhook delivery failed unexpectedly', { deliveryId: delivery.id, error }))
      .finally(() => {
        this.inFlight.delete(delivery.id);
        // A completion may unblock the next event of its subject. Claiming for each single
        // freed slot would cost a query per delivery, so while busy, claims wait for a batch
        // of free slots (the poll claims whatever is free in any case).
        if (this.concurrency - this.inFlight.size >= this.claimBatch) this.wake();
      });
    this.inFlight.set(delivery.id, { abort, done });
  }

  private async process(claimed: ClaimedDelivery, signal: AbortSignal): Promise<void> {
    const startedAt = new Date();
    let body: string;
    try {
      body = await deliveryBody(this.returns, claimed);
    } catch (error) {
      if (!(error instanceof SubjectGone)) throw error;
      await this.record(claimed, { delivered: false, responseStatus: null, error: error.message }, startedAt, 0, { final: true });
      return;
    }
    const started = performance.now();
    let outcome: AttemptOutcome;
    try {
      outcome = await this.sender.send({ url: claimed.url, secret: claimed.secret, eventId: claimed.eventId, body }, signal);
    } catch (error) {
      if (!(error instanceof AttemptAborted)) throw error;
      await this.db.sql.query(RELEASE_SQL, [claimed.id, this.instanceId]);
      return;
    }
    await this.record(claimed, outcome, startedAt, Math.round(performance.now() - started));
  }

  private record(claimed: ClaimedDelivery, outcome: AttemptOutcome, startedAt: Date, durationMs: number, options = { final: false }): Promise<void> {
    const attempt = claimed.attemptCount + 1;
    const status = outcome.delivered ? 'DELIVERED' : options.final || attempt >= this.retry.maxAttempts ? 'DISCARDED' : 'PENDING';
    return new Promise((recorded) => {
      this.outcomes.push({
        claimed,
        status,
        delayMs: retryDelayMs(attempt, this.retry),
        error: outcome.error,
        startedAt,
        durationMs,
        responseStatus: outcome.responseStatus,
        recorded,
      });
      this.recording ??= this.flush();
    });
  }

  /** Records every outcome waiting, a statement at a time, until none is left. */
  private async flush(): Promise<void> {
    // Outcomes finishing in the same turn of the event loop go in one statement.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.outcomes.length > 0) {
      // In queue key order, the order in which dispatchers count new deliveries into queues,
      // so the two rarely wait on each other in opposite orders.
      const batch = this.outcomes
        .splice(0)
        .sort((x, y) => compareKeys([x.claimed.subscriptionId, x.claimed.subjectId], [y.claimed.subscriptionId, y.claimed.subjectId]));
      try {
        const rows = await this.recordBatch(batch);
        this.reportRecorded(batch, new Set(rows.map((row) => row.deliveryId)));
      } catch (error) {
        // The leases stay; the deliveries are claimed again when they expire (at-least-once).
        this.logger.error('recording webhook attempts failed', { deliveries: batch.length, error });
      }
      for (const outcome of batch) outcome.recorded();
    }
    this.recording = undefined;
  }

  /**
   * The batch's statement, run again should PostgreSQL roll it back for a deadlock or a
   * serialisation failure (none is expected: counting never waits on a queue row, see
   * INGEST_SQL), rather than leaving the attempts unrecorded until their leases expire.
   */
  private async recordBatch(batch: Outcome[]): Promise<{ deliveryId: string }[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.sql.query<{ deliveryId: string }>(RECORD_SQL, [
          this.instanceId,
          batch.map((o) => o.claimed.id),
          batch.map((o) => o.status),
          batch.map((o) => o.delayMs),
          batch.map((o) => o.error),
          batch.map(() => newId('deliveryAttempt')),
          batch.map((o) => o.startedAt.toISOString()),
          batch.map((o) => o.durationMs),
          batch.map((o) => o.responseStatus),
        ]);
      } catch (error) {
        if (attempt >= RECORD_TRIES || !RETRYABLE.has((error as { code?: string }).code ?? '')) throw error;
        this.logger.debug('recording webhook attempts rolled back; running it again', { attempt, code: (error as { code?: string }).code });
      }
    }
  }

  private reportRecorded(batch: Outcome[], recorded: Set<string>): void {
    for (const { claimed, status, error } of batch) {
      const attempts = claimed.attemptCount + 1;
      if (!recorded.has(claimed.id)) {
        this.logger.warn('webhook delivery lease lost (or the delivery was deleted) before the attempt was recorded', { deliveryId: claimed.id, attempt: attempts });
        continue;
      }
      this.onAttempt?.(status === 'DELIVERED' ? 'delivered' : status === 'DISCARDED' ? 'discarded' : 'retry');
      if (status === 'DISCARDED') this.logger.warn('webhook delivery discarded after its last attempt', { deliveryId: claimed.id, attempts, error: withoutAnswer(error) });
    }
  }
}
