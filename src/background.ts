// Periodic work that runs beside the HTTP server in each instance.
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import type { Logger } from './logger.ts';
import { pruneRateLimitWindows } from './auth/rateLimit.ts';

export interface BackgroundWork {
  stop(): Promise<void>;
}

export function startBackgroundWork({ db, logger }: { db: Database; config: Config; logger: Logger }): BackgroundWork {
  const prune = setInterval(() => {
    pruneRateLimitWindows(db.prisma).catch((error) => logger.warn('pruning rate limit windows failed', { error }));
  }, 60_000);
  prune.unref();
  return {
    async stop() {
      clearInterval(prune);
    },
  };
}
