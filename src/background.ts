// Work that runs beside the HTTP server in each instance: the webhook dispatcher
// (unless WEBHOOK_DISPATCHER=false) and periodic pruning.
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import type { Logger } from './logger.ts';
import { pruneRateLimitWindows } from './auth/rateLimit.ts';
import { pruneWebState } from './auth/throttle.ts';
import { configureWebhookAddressPolicy, webhookAddressPolicy } from './domain/webhooks.ts';
import { WebhookDispatcher } from './webhooks/dispatcher.ts';

export interface BackgroundWork {
  stop(): Promise<void>;
}

export function startBackgroundWork({ db, config, logger }: { db: Database; config: Config; logger: Logger }): BackgroundWork {
  // Subscriptions written through this instance are checked with the same policy its dispatcher delivers with.
  configureWebhookAddressPolicy({ allowLoopback: config.webhooksAllowLoopback });
  const dispatcher = config.webhookDispatcher ? new WebhookDispatcher({ db, logger, policy: webhookAddressPolicy() }) : undefined;
  dispatcher?.start();
  if (dispatcher) logger.info('webhook dispatcher started', { instanceId: dispatcher.instanceId, allowLoopback: config.webhooksAllowLoopback });

  const prune = setInterval(() => {
    pruneRateLimitWindows(db.prisma).catch((error) => logger.warn('pruning rate limit windows failed', { error }));
    pruneWebState(db.prisma).catch((error) => logger.warn('pruning sign-in throttles and sessions failed', { error }));
  }, 60_000);
  prune.unref();
  return {
    async stop() {
      clearInterval(prune);
      // In-flight deliveries finish, or go back to the queue uncounted; none is lost.
      await dispatcher?.stop();
    },
  };
}
