// Work that runs beside the HTTP server in each instance: the webhook dispatcher
// (unless WEBHOOK_DISPATCHER=false) and periodic pruning of rate-limit windows and
// of the webhook history older than WEBHOOK_RETENTION_DAYS.
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';
import { pruneWebState } from './auth/throttle.ts';
import { configureWebhookAddressPolicy, webhookAddressPolicy } from './domain/webhooks.ts';
import { WebhookDispatcher } from './webhooks/dispatcher.ts';
import { pruneWebhookHistory } from './webhooks/retention.ts';

const PRUNE_INTERVAL_MS = 60_000;

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
  // Subscriptions written through this instance are checked with the same policy its dispatcher delivers with.
  configureWebhookAddressPolicy({ allowLoopback: config.webhooksAllowLoopback });
  const dispatcher = config.webhookDispatcher ? new WebhookDispatcher({ db, logger, policy: webhookAddressPolicy(), onAttempt: metrics?.webhookAttempt }) : undefined;
  dispatcher?.start();
  if (dispatcher) logger.info('webhook dispatcher started', { instanceId: dispatcher.instanceId, allowLoopback: config.webhooksAllowLoopback });

  let pruning: Promise<void> | undefined;
  const pruneOnce = async () => {
    await pruneWebState(db.prisma).catch((error) => logger.warn('pruning sign-in throttles and sessions failed', { error }));
    const removed = await pruneWebhookHistory(db, { retentionDays: config.webhookRetentionDays }).catch((error) => {
      logger.warn('pruning the webhook history failed', { error });
      return undefined;
    });
    if (removed && removed.deliveries + removed.events + removed.queues > 0) logger.info('pruned the webhook history', { ...removed, retentionDays: config.webhookRetentionDays });
  };
  const prune = setInterval(() => {
    // A run still busy with a large backlog is not joined by a second one.
    pruning ??= pruneOnce().finally(() => {
      pruning = undefined;
    });
  }, pruneIntervalMs);
  prune.unref();
  return {
    async stop() {
      clearInterval(prune);
      await pruning;
      // In-flight deliveries finish, or go back to the queue uncounted; none is lost.
      await dispatcher?.stop();
    },
  };
}
