// Fixed one-minute windows per API client and door, counted in the database so
// several service instances share one budget.
import type { PrismaClient } from '../generated/prisma/client.ts';

export type RateLimitedDoor = 'rest' | 'compat';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  retryAfter: number;
}

const WINDOW_MS = 60_000;

export async function consumeRateLimit(
  prisma: PrismaClient,
  apiClientId: string,
  door: RateLimitedDoor,
  limit: number,
  now = Date.now(),
): Promise<RateDecision> {
  const windowStart = new Date(Math.floor(now / WINDOW_MS) * WINDOW_MS);
  const rows = await prisma.$queryRaw<{ count: number }[]>`
    INSERT INTO "RateLimitWindow" ("apiClientId", "door", "windowStart", "count")
    VALUES (${apiClientId}, ${door}, ${windowStart}, 1)
    ON CONFLICT ("apiClientId", "door", "windowStart")
    DO UPDATE SET "count" = "RateLimitWindow"."count" + 1
    RETURNING "count"`;
  const count = Number(rows[0]?.count ?? 1);
  const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + WINDOW_MS - now) / 1000));
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), retryAfter };
}

/** Old windows are worthless; dropped now and then by the server. */
export async function pruneRateLimitWindows(prisma: PrismaClient, now = Date.now()): Promise<void> {
  await prisma.rateLimitWindow.deleteMany({ where: { windowStart: { lt: new Date(now - 2 * WINDOW_MS) } } });
}
