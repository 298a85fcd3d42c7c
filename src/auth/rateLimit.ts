// Request budgets per API client and door: fixed one-minute windows, kept off the
// database so that one client's requests never queue on one counter row. In memory by
// default (each instance counts its own requests); in Redis when REDIS_URL is set, so
// that every instance draws on one shared budget. Counting is rate-limiter-flexible's.
// Should Redis be unreachable, an in-memory limiter of the same budget stands in, so an
// outage degrades to per-instance limits instead of refusing or failing requests.
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export type RateLimitedDoor = 'rest' | 'compat';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  retryAfter: number;
}

export interface RateLimiter {
  /** Where the counts live, for the start-up log. */
  readonly store: 'memory' | 'redis';
  consume(apiClientId: string, door: RateLimitedDoor): Promise<RateDecision>;
  /** The budget as it stands, nothing spent: what an answer given without running the door (a 304) reports. */
  standing(apiClientId: string, door: RateLimitedDoor): Promise<RateDecision>;
  close(): Promise<void>;
}

const WINDOW_SECONDS = 60;

export interface RateLimiterOptions {
  limits: Record<RateLimitedDoor, number>;
  /** redis://... to share budgets across instances; absent keeps them in memory. */
  redisUrl?: string;
  /** Prefix of every Redis key (tests give each run its own). */
  keyPrefix?: string;
}

/**
 * The decision as the IETF fields (draft-ietf-httpapi-ratelimit-headers-11, structured-field
 * lists): `RateLimit-Policy` names the door's budget as the policy (its quota `q` per window
 * `w` seconds), `RateLimit` what is left of it (`r`) and the seconds until the window ends
 * (`t`). The doors send them beside the X-RateLimit-* headers integrations already read.
 */
export function rateLimitFields(door: RateLimitedDoor, decision: RateDecision): Record<string, string> {
  return {
    'ratelimit-policy': `"${door}";q=${decision.limit};w=${WINDOW_SECONDS}`,
    ratelimit: `"${door}";r=${decision.remaining};t=${decision.retryAfter}`,
  };
}

function decision(limit: number, result: RateLimiterRes, allowed: boolean): RateDecision {
  return {
    allowed,
    limit,
    remaining: Math.max(0, result.remainingPoints),
    retryAfter: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
  };
}

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const prefix = options.keyPrefix ?? 'ratelimit';
  const redis = options.redisUrl
    ? // Commands wait for the connection at start; once Redis is lost, each fails after one retry and the insurance limiter answers.
      new Redis(options.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2_000 })
    : undefined;
  // ioredis reports connection trouble as events; the insurance limiter covers for it.
  redis?.on('error', () => undefined);
  const limiters = Object.fromEntries(
    (Object.keys(options.limits) as RateLimitedDoor[]).map((door) => {
      const settings = { points: options.limits[door], duration: WINDOW_SECONDS, keyPrefix: `${prefix}:${door}` };
      const memory = new RateLimiterMemory(settings);
      const limiter: RateLimiterAbstract = redis ? new RateLimiterRedis({ ...settings, storeClient: redis, insuranceLimiter: memory }) : memory;
      return [door, limiter];
    }),
  ) as Record<RateLimitedDoor, RateLimiterAbstract>;

  return {
    store: redis ? 'redis' : 'memory',
    async consume(apiClientId, door) {
      const limit = options.limits[door];
      try {
        return decision(limit, await limiters[door].consume(apiClientId, 1), true);
      } catch (refusal) {
        if (refusal instanceof RateLimiterRes) return decision(limit, refusal, false);
        throw refusal;
      }
    },
    async standing(apiClientId, door) {
      const limit = options.limits[door];
      const current = await limiters[door].get(apiClientId);
      // No request in the current window: the whole budget, for a window that would start now.
      if (!current) return { allowed: true, limit, remaining: limit, retryAfter: WINDOW_SECONDS };
      return decision(limit, current, current.remainingPoints > 0);
    },
    async close() {
      await redis?.quit().catch(() => redis.disconnect());
    },
  };
}
