// Work that runs beside the HTTP server in each instance: the webhook dispatcher
// (unless WEBHOOK_DISPATCHER=false), the bulk actions on returns (claimed by one instance at a
// time and resumed by another when it stops, domain/returnBulkActions.ts), folding the store
// change counters (db/storeChanges.ts) and the returns overview's rollups (domain/overview.ts),
// and periodic pruning of rate-limit windows, of the
// webhook history older than WEBHOOK_RETENTION_DAYS and of the audit trail older than
// AUDIT_RETENTION_DAYS. Each runs in a job scope of its own, so what it changes is recorded
// in the audit trail as that job's.
import crypto from 'node:crypto';
import os from 'node:os';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import { pruneWebState } from '../auth/throttle.ts';
import { contextFactory } from '../schema/context.ts';
import { contextServices } from './contextServices.ts';
import { ReturnBulkActionWorker } from '../domain/returnBulkActions.ts';
import { pruneAuditTrail } from '../domain/audit.ts';
import { inRequestScope } from '../observability/requestScope.ts';
import { WebhookDispatcher } from '../webhooks/dispatcher.ts';
import { pruneWebhookHistory } from '../webhooks/retention.ts';
import { pruneExpiredIdempotentRequests } from '../http/steps/idempotency.ts';
import { foldStoreChanges } from '../db/storeChanges.ts';
import { foldOverviewRollups } from '../domain/overview.ts';

const PRUNE_INTERVAL_MS = 60_000;
/** Every writing transaction adds a change counter row; folded this often, a store's validator reads a few rows (db/storeChanges.ts). */
const FOLD_INTERVAL_MS = 5_000;

export interface BackgroundWork {
  stop(): Promise<void>;
}

export function startBackgroundWork({
  db,
  config,
  logger,
  metrics,
  pruneIntervalMs = PRUNE_INTERVAL_MS,
}: {
  db: Database;
  config: Config;
  logger: Logger;
  metrics?: Metrics;
  pruneIntervalMs?: number;
}): BackgroundWork {
  // The dispatcher delivers with the address rules the instance's subscriptions were checked with.
  const services = contextServices(config);
  const dispatcher = config.webhookDispatcher
    ? new WebhookDispatcher({
        db,
        logger,
        policy: services.webhookAddressPolicy,
        newContext: contextFactory({ db, logger, services }),
        onAttempt: metrics?.webhookAttempt,
      })
    : undefined;
  if (dispatcher) {
    // Everything the dispatcher's loop and timers do carries this scope (AsyncLocalStorage follows them).
    inRequestScope({ door: 'job', actor: { kind: 'job', name: 'webhook-dispatcher' } }, () => dispatcher.start());
    logger.info('webhook dispatcher started', { instanceId: dispatcher.instanceId, allowLoopback: config.webhooksAllowLoopback });
  }

  const bulkActions = new ReturnBulkActionWorker({
    db: db.prisma,
    instanceId: dispatcher?.instanceId ?? `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`,
    leaseMs: config.bulkActionLeaseMs,
    onError: (error, actionId) => logger.warn('acting on a bulk action failed; it is claimed again once its lease lapses', { error, actionId }),
  });
  bulkActions.start();

  let pruning: Promise<void> | undefined;
  const pruneOnce = async () => {
    await pruneWebState(db.prisma).catch((error) => logger.warn('pruning sign-in throttles and sessions failed', { error }));
    await pruneExpiredIdempotentRequests(db).catch((error) => logger.warn('pruning expired idempotency keys failed', { error }));
    const removed = await pruneWebhookHistory(db, { retentionDays: config.webhookRetentionDays }).catch((error) => {
      logger.warn('pruning the webhook history failed', { error });
      return undefined;
    });
    if (removed && removed.deliveries + removed.events + removed.queues > 0) logger.info('pruned the webhook history', { ...removed, retentionDays: config.webhookRetentionDays });
    const audit = await pruneAuditTrail(db.prisma, { retentionDays: config.auditRetentionDays }).catch((error) => {
      logger.warn('pruning the audit trail failed', { error });
      return 0;
    });
    if (audit > 0) logger.info('pruned the audit trail', { entries: audit, retentionDays: config.auditRetentionDays });
  };
  const prune = setInterval(() => {
    // A run still busy with a large backlog is not joined by a second one.
    pruning ??= inRequestScope({ door: 'job', actor: { kind: 'job', name: 'retention' } }, pruneOnce).finally(() => {
      pruning = undefined;
    });
  }, pruneIntervalMs);
  prune.unref();
  let folding: Promise<void> | undefined;
  const foldOnce = () => {
    folding ??= Promise.all([
      foldStoreChanges(db.sql).catch((error) => logger.warn('folding the store change counters failed', { error })),
      // Every writing transaction adds rollup rows too; folded as often, the overview sums a few per day.
      foldOverviewRollups(db.prisma).catch((error) => logger.warn('folding the returns overview rollups failed', { error })),
    ])
      .then(() => undefined)
      .finally(() => {
        folding = undefined;
      });
  };
  // At once too: what earlier runs left is folded as the instance starts, not seconds into its work.
  foldOnce();
  const fold = setInterval(foldOnce, FOLD_INTERVAL_MS);
  fold.unref();
  return {
    async stop() {
      clearInterval(prune);
      clearInterval(fold);
      await Promise.all([pruning, folding, bulkActions.stop()]);
      // In-flight deliveries finish, or go back to the queue uncounted; none is lost.
      await dispatcher?.stop();
    },
  };
}
