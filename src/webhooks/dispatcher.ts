// The webhook dispatcher: claims due deliveries from the outbox, sends them, records
// every attempt, and retries with exponential backoff until the last attempt, after
// which the delivery is discarded.
//
// Several dispatchers (in several service instances) may run against one database.
// A delivery is claimed by taking a lease on its row (`lockedBy`, `lockedUntil`) in
// one statement that locks candidate rows with FOR UPDATE SKIP LOCKED, so two
// dispatchers never hold the same delivery. Per (subscription, subject) order: a
// delivery is a candidate only when no delivery of its pair with a lower `sequence`
// is still PENDING, so the next event of a subject waits until the previous one was
// delivered or discarded, while other subjects proceed in parallel (up to
// `concurrency` at once). A lease outlives the attempt's timeout; a dispatcher that
// dies mid-attempt leaves a lease that expires, and the delivery is claimed again
// (at-least-once). All times come from the database clock, so instances on hosts
// with skewed clocks agree on what is due.
import crypto from 'node:crypto';
import os from 'node:os';
import type { Database } from '../db/client.ts';
import type { AddressPolicy } from '../domain/webhooks.ts';
import { newId } from '../domain/ids.ts';
import type { Logger } from '../logger.ts';
import { AttemptAborted, createSender, type AttemptOutcome, type Sender } from './delivery.ts';
import { deliveryBody, SubjectGone, type DeliveredEvent } from './payloads.ts';

export interface RetrySchedule {
  /** Delay after the first failed attempt; each later one doubles it. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** Attempts in all; after the last failed one the delivery is discarded. */
  maxAttempts: number;
}

/** decisions.md: 8 attempts, 1 s, 2 s, 4 s ... capped at 5 minutes. */
export const DEFAULT_RETRY: RetrySchedule = { firstDelayMs: 1_000, maxDelayMs: 300_000, maxAttempts: 8 };
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface DispatcherOptions {
  db: Database;
  logger: Logger;
  policy: AddressPolicy;
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

/** Delay before attempt `attempt + 1` after attempt `attempt` (1-based) failed. */
export function retryDelayMs(attempt: number, schedule: RetrySchedule): number {
  return Math.min(schedule.firstDelayMs * 2 ** (attempt - 1), schedule.maxDelayMs);
}

/** A claimed delivery with what its attempt sends. */
interface ClaimedDelivery extends DeliveredEvent {
  id: string;
  attemptCount: number;
  url: string;
  secret: string | null;
}

const NOW = `(now() AT TIME ZONE 'UTC')`;

// Candidates are the heads of the queues: the first PENDING delivery of each
// (subscription, subject) pair. `pairs` walks the distinct pairs with PENDING
// deliveries by index seeks (a loose index scan), `heads` takes each pair's first
// one from the same index, and the oldest due, unleased heads are locked (skipping
// rows another dispatcher is claiming right now) and leased. The conditions on the
// locked row are checked again after the lock, so a head claimed or completed by
// another dispatcher in the meantime drops out.
const CLAIM_SQL = `
WITH RECURSIVE pairs AS (
  (SELECT "subscriptionId", "subjectId" FROM "WebhookDelivery"
   WHERE status = 'PENDING'
   ORDER BY "subscriptionId", "subjectId"
   LIMIT 1)
  UNION ALL
  SELECT next."subscriptionId", next."subjectId"
  FROM pairs p
  CROSS JOIN LATERAL (
    SELECT w."subscriptionId", w."subjectId" FROM "WebhookDelivery" w
    WHERE w.status = 'PENDING' AND (w."subscriptionId", w."subjectId") > (p."subscriptionId", p."subjectId")
    ORDER BY w."subscriptionId", w."subjectId"
    LIMIT 1) next
),
heads AS (
  SELECT head.id
  FROM pairs p
  JOIN "WebhookSubscription" s ON s.id = p."subscriptionId" AND s.enabled
  CROSS JOIN LATERAL (
    SELECT w.id, w.sequence, w."nextAttemptAt", w."lockedUntil" FROM "WebhookDelivery" w
    WHERE w.status = 'PENDING' AND w."subscriptionId" = p."subscriptionId" AND w."subjectId" = p."subjectId"
    ORDER BY w.sequence
    LIMIT 1) head
  WHERE head."nextAttemptAt" <= ${NOW} AND (head."lockedUntil" IS NULL OR head."lockedUntil" <= ${NOW})
  ORDER BY head.sequence
  LIMIT $3
),
claimed AS (
  UPDATE "WebhookDelivery" AS d
  SET "lockedBy" = $1, "lockedUntil" = ${NOW} + interval '1 millisecond' * $2::float8
  WHERE d.id IN (
    SELECT c.id FROM "WebhookDelivery" c
    WHERE c.id IN (SELECT id FROM heads)
      AND c.status = 'PENDING'
      AND (c."lockedUntil" IS NULL OR c."lockedUntil" <= ${NOW})
    FOR UPDATE OF c SKIP LOCKED)
  RETURNING d.id, d."attemptCount", d."eventId", d."subscriptionId")
SELECT claimed.id, claimed."attemptCount", s.url, s.secret, s.payload,
       e.id AS "eventId", e.topic, e."storeId", e."subjectId", e.data,
       to_char(e."createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt",
       st.name AS "storeName", st.kind AS "storeKind"
FROM claimed
JOIN "Event" e ON e.id = claimed."eventId"
JOIN "WebhookSubscription" s ON s.id = claimed."subscriptionId"
JOIN "Store" st ON st.id = e."storeId"`;

// Only the lease holder may record: a dispatcher that lost its lease records nothing.
const RECORD_SQL = `
WITH done AS (
  UPDATE "WebhookDelivery"
  SET "attemptCount" = "attemptCount" + 1,
      status = $3::text::"DeliveryStatus",
      "nextAttemptAt" = CASE WHEN $3::text = 'PENDING' THEN ${NOW} + interval '1 millisecond' * $4::float8 ELSE "nextAttemptAt" END,
      "completedAt" = CASE WHEN $3::text = 'PENDING' THEN NULL ELSE ${NOW} END,
      "lastError" = $5::text,
      "lockedBy" = NULL,
      "lockedUntil" = NULL
  WHERE id = $1 AND "lockedBy" = $2 AND status = 'PENDING'
  RETURNING id, "attemptCount")
INSERT INTO "DeliveryAttempt" (id, "deliveryId", "attemptNumber", "startedAt", "durationMs", "responseStatus", error)
SELECT $6, done.id, done."attemptCount", $7::timestamptz AT TIME ZONE 'UTC', $8::int, $9::int, $5::text FROM done
RETURNING "attemptNumber"`;

const RELEASE_SQL = `
UPDATE "WebhookDelivery" SET "lockedBy" = NULL, "lockedUntil" = NULL
WHERE id = $1 AND "lockedBy" = $2 AND status = 'PENDING'`;

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
  private readonly onAttempt: DispatcherOptions['onAttempt'];
  private readonly inFlight = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private readonly stopSignal = new AbortController();
  private poller: NodeJS.Timeout | undefined;
  /** The claim loop running now, if any; at most one per dispatcher. */
  private claiming: Promise<void> | undefined;
  private claimAgain = false;

  constructor(options: DispatcherOptions) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.db = options.db;
    this.logger = options.logger;
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.leaseMs = options.leaseMs ?? timeoutMs + 5_000;
    this.concurrency = options.concurrency ?? 16;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.claimBatch = Math.max(1, Math.floor(this.concurrency / 4));
    this.instanceId = options.instanceId ?? `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
    this.onAttempt = options.onAttempt;
    this.sender = createSender({ policy: options.policy, timeoutMs, maxSockets: this.concurrency, trustedCa: options.trustedCa });
  }

  start(): void {
    if (this.poller || this.stopSignal.signal.aborted) return;
    this.poller = setInterval(() => this.wake(), this.pollIntervalMs);
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
      body = await deliveryBody(this.db, this.logger, claimed);
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

  private async record(claimed: ClaimedDelivery, outcome: AttemptOutcome, startedAt: Date, durationMs: number, options = { final: false }): Promise<void> {
    const attempt = claimed.attemptCount + 1;
    const status = outcome.delivered ? 'DELIVERED' : options.final || attempt >= this.retry.maxAttempts ? 'DISCARDED' : 'PENDING';
    const rows = await this.db.sql.query(RECORD_SQL, [
      claimed.id,
      this.instanceId,
      status,
      retryDelayMs(attempt, this.retry),
      outcome.error,
      newId('deliveryAttempt'),
      startedAt.toISOString(),
      durationMs,
      outcome.responseStatus,
    ]);
    if (rows.length > 0) this.onAttempt?.(status === 'DELIVERED' ? 'delivered' : status === 'DISCARDED' ? 'discarded' : 'retry');
    if (rows.length === 0) {
      this.logger.warn('webhook delivery lease lost (or the delivery was deleted) before the attempt was recorded', { deliveryId: claimed.id, attempt });
    } else if (status === 'DISCARDED') {
      this.logger.warn('webhook delivery discarded after its last attempt', { deliveryId: claimed.id, attempts: attempt, error: outcome.error });
    }
  }
}
