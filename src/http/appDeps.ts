// What the server is made with and what it hands each door. A door gets only what it answers
// with; authenticating and rate limiting are the pipeline's (pipeline.ts), so no door holds them.
import type { Authenticator } from '../auth/authenticate.ts';
import type { RateLimiter } from '../auth/rateLimit.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { LiveFeed } from '../live/feed.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Tracing } from '../observability/telemetry.ts';
import type { ContextServices, NewContext } from '../schema/context.ts';

export interface DoorDeps {
  db: Database;
  config: Config;
  logger: Logger;
  /** Committed changes as they happen, for subscriptions. */
  live: LiveFeed;
  /** Present when traces are exported (config.traces); absent, nothing on the request path traces. */
  tracing?: Tracing;
  /** What every operation of the process shares (cursor and link signing, execution, webhook address rules). */
  services: ContextServices;
  /** Each request's GraphQL context, made with `services`. */
  newContext: NewContext;
}

export interface AppDeps extends DoorDeps {
  metrics: Metrics;
  rateLimiter: RateLimiter;
  authenticator: Authenticator;
}
