// Prometheus metrics of one service instance (prom-client). Each instance has its own
// registry (tests run several apps in one process). Request metrics are labelled by the
// route template, never the raw path, so label sets stay bounded. The webhook queue is
// read from the database at scrape time: it is shared by every instance.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * What the metrics read of the database (db/database.ts's Database is one): stated here, so
 * the database room, which logs and traces through this one, is not imported back.
 */
export interface ObservedDatabase {
  kind: string;
  onStatement(listener: (statement: { durationMs: number }) => void): () => void;
  poolStats(): { total: number; idle?: number; waiting?: number };
  sql: { query<T>(text: string): Promise<T[]> };
  replicas?: ObservedReplicas;
}

/** The read replicas' routing as the metrics see it (db/replicas.ts). */
export interface ObservedReplicas {
  status(): { name: string; state: string; lagMs: number | undefined }[];
  observe(observer: { routed(target: string, reason: string): void; leftOut(replica: string, reason: string): void }): () => void;
}

/** What the live feed (live/feed.ts) reports to metrics. */
export interface LiveFeedObserver {
  subscriptionOpened(): void;
  subscriptionClosed(): void;
  eventSent(): void;
  subscriberDropped(reason: string): void;
}

export type DeliveryOutcome = 'delivered' | 'retry' | 'discarded';

export interface Metrics {
  registry: Registry;
  observeRequest(labels: { door: string; route: string; method: string; status: number }, seconds: number): void;
  rateLimitRefused(door: string): void;
  webhookAttempt(outcome: DeliveryOutcome): void;
  /** Open subscriptions, events sent to them, subscribers dropped. */
  live: LiveFeedObserver;
  /** Which path a GraphQL operation took: planned (schema/planned.ts) or the ordinary executor. */
  readPath(path: 'planned' | 'fallback', operation: string): void;
  /** Stops listening to the database's statements. */
  close(): void;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const QUEUE_SQL = `
SELECT count(*)::int AS depth,
       COALESCE(EXTRACT(EPOCH FROM (now() - min("createdAt" AT TIME ZONE 'UTC'))), 0)::float8 AS "oldestSeconds"
FROM "WebhookDelivery" WHERE status = 'PENDING'`;

export function createMetrics(db: ObservedDatabase): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by door, route template, method and status',
    labelNames: ['door', 'route', 'method', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from reading the request to sending the answer, by door, route template, method and status',
    labelNames: ['door', 'route', 'method', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused by the per-client rate limit, by door',
    labelNames: ['door'],
    registers: [registry],
  });
  const attempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts made by this instance, by outcome (delivered, retry, discarded)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const statements = new Histogram({
    name: 'db_statement_duration_seconds',
    help: 'Duration of each SQL statement run through Prisma',
    labelNames: ['database'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const stopObserving = db.onStatement(({ durationMs }) => statements.observe({ database: db.kind }, durationMs / 1000));
  const stopObservingReplicas = db.replicas && replicaMetrics(db.replicas, registry);

  new Gauge({
    name: 'db_pool_connections',
    help: 'Database connections of this instance by state (total, idle, waiting requests); PGlite has one',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const pool = db.poolStats();
      this.set({ state: 'total' }, pool.total);
      if (pool.idle !== undefined) this.set({ state: 'idle' }, pool.idle);
      if (pool.waiting !== undefined) this.set({ state: 'waiting' }, pool.waiting);
    },
  });

  const openSubscriptions = new Gauge({
    name: 'graphql_subscriptions_open',
    help: 'GraphQL subscriptions open on this instance',
    registers: [registry],
  });
  const liveEvents = new Counter({
    name: 'graphql_subscription_events_sent_total',
    help: 'Events handed to the streams of open subscriptions on this instance',
    registers: [registry],
  });
  const droppedSubscribers = new Counter({
    name: 'graphql_subscriptions_dropped_total',
    help: 'Subscriptions ended by the service: slow (the client stopped reading), lagging (the service fell 16 times the allowed backlog behind), feed lost (announcements may have been missed)',
    labelNames: ['reason'],
    registers: [registry],
  });

  let queue: Promise<{ depth: number; oldestSeconds: number } | undefined> | undefined;
  /**
   * Both queue gauges come from one query per scrape; none while the database cannot answer
   * (a failover), when the rest of the scrape is what tells what goes on.
   */
  const readQueue = () => {
    queue ??= db.sql
      .query<{ depth: number; oldestSeconds: number }>(QUEUE_SQL)
      .then((rows) => rows[0] ?? { depth: 0, oldestSeconds: 0 })
      .catch(() => undefined)
      .finally(() => setImmediate(() => (queue = undefined)));
    return queue;
  };
  new Gauge({
    name: 'webhook_queue_depth',
    help: 'Webhook deliveries waiting to be delivered (all instances)',
    registers: [registry],
    async collect() {
      const read = await readQueue();
      if (read) this.set(read.depth);
      else this.reset();
    },
  });
  new Gauge({
    name: 'webhook_queue_oldest_pending_seconds',
    help: 'Age of the oldest webhook delivery still waiting (0 when none)',
    registers: [registry],
    async collect() {
      const read = await readQueue();
      if (read) this.set(Number(read.oldestSeconds));
      else this.reset();
    },
  });

  const readPaths = new Counter({
    name: 'graphql_operations_total',
    help: 'GraphQL operations run, by path (planned: one plan per document, resolvers run without the generic executor; fallback: graphql-js) and operation name',
    labelNames: ['path', 'operation'],
    registers: [registry],
  });

  // v3 clients name their operations: past this many names, the rest share one label.
  const MAX_OPERATION_NAMES = 200;
  const operationNames = new Set<string>();

  return {
    registry,
    readPath(path, operation) {
      if (!operationNames.has(operation) && operationNames.size < MAX_OPERATION_NAMES) operationNames.add(operation);
      readPaths.inc({ path, operation: operationNames.has(operation) ? operation : '(other)' });
    },
    observeRequest(labels, seconds) {
      const withStatus = { ...labels, status: String(labels.status) };
      requests.inc(withStatus);
      latency.observe(withStatus, seconds);
    },
    rateLimitRefused(door) {
      refusals.inc({ door });
    },
    webhookAttempt(outcome) {
      attempts.inc({ outcome });
    },
    live: {
      subscriptionOpened: () => openSubscriptions.inc(),
      subscriptionClosed: () => openSubscriptions.dec(),
      eventSent: () => liveEvents.inc(),
      subscriberDropped: (reason) => droppedSubscribers.inc({ reason }),
    },
    close() {
      stopObserving();
      stopObservingReplicas?.();
      // prom-client's default GC metric observes through a process-wide PerformanceObserver it
      // never disconnects, which keeps this registry and, through its gauges, the database:
      // without this a closed app's database (a whole PGlite heap) stays in memory.
      registry.clear();
    },
  };
}

/** Where compiled reads went and the replicas' state (db/replicas.ts); returns the unsubscribe. */
function replicaMetrics(replicas: ObservedReplicas, registry: Registry): () => void {
  const routed = new Counter({
    name: 'db_reads_total',
    help: 'Compiled reads by where they ran (replica, primary) and why: replica; current (outside a client request, or must be current), no_replica (none in rotation), behind (no replica had replayed the client\'s last write), position_unknown, replica_failed; primary_unavailable (served by a replica while the primary was unreachable)',
    labelNames: ['target', 'reason'],
    registers: [registry],
  });
  const leftOut = new Counter({
    name: 'db_replica_left_out_total',
    help: 'Times a replica was left out of the reads, by replica and reason (lagging past DATABASE_REPLICA_MAX_LAG_MS, down)',
    labelNames: ['replica', 'reason'],
    registers: [registry],
  });
  new Gauge({
    name: 'db_replica_in_rotation',
    help: 'Whether each replica takes reads (1) or is left out (0)',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      for (const { name, state } of replicas.status()) this.set({ replica: name }, state === 'in' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'db_replica_lag_seconds',
    help: "How long ago the primary's WAL went past what each replica has replayed, at its last probe",
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      for (const { name, lagMs } of replicas.status()) if (lagMs !== undefined) this.set({ replica: name }, lagMs / 1000);
    },
  });
  return replicas.observe({
    routed: (target, reason) => routed.inc({ target, reason }),
    leftOut: (replica, reason) => leftOut.inc({ replica, reason }),
  });
}
