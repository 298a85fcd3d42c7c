// Fixed-window counters for pages without an API client (dashboard login, shopper
// portal), kept in the database so several service instances share one budget.
import type { PrismaClient } from '../generated/prisma/client.ts';

export interface ThrottleDecision {
  allowed: boolean;
  /** Seconds until the current window ends. */
  retryAfter: number;
}

export async function consumeThrottle(prisma: PrismaClient, key: string, limit: number, windowMs: number, now = Date.now()): Promise<ThrottleDecision> {
  const windowStart = new Date(Math.floor(now / windowMs) * windowMs);
  const rows = await prisma.$queryRaw<{ count: number }[]>`
    INSERT INTO "ThrottleWindow" ("key", "windowStart", "count")
    VALUES (${key}, ${windowStart}, 1)
    ON CONFLICT ("key", "windowStart")
    DO UPDATE SET "count" = "ThrottleWindow"."count" + 1
    RETURNING "count"`;
  const count = Number(rows[0]?.count ?? 1);
  return { allowed: count <= limit, retryAfter: Math.max(1, Math.ceil((windowStart.getTime() + windowMs - now) / 1000)) };
}

/**
 * Gives back what consumeThrottle took at `now`, for an attempt that should not count (a
 * sign-in that succeeded): taking first and giving back after keeps concurrent attempts
 * from all passing a check that only read the count.
 */
export async function releaseThrottle(prisma: PrismaClient, key: string, windowMs: number, now: number): Promise<void> {
  const windowStart = new Date(Math.floor(now / windowMs) * windowMs);
  await prisma.$executeRaw`
    UPDATE "ThrottleWindow" SET "count" = GREATEST("count" - 1, 0)
    WHERE "key" = ${key} AND "windowStart" = ${windowStart}`;
}

/** Windows older than a day, and expired dashboard sessions, are dropped now and then by the server. */
export async function pruneWebState(prisma: PrismaClient, now = Date.now()): Promise<void> {
  await prisma.throttleWindow.deleteMany({ where: { windowStart: { lt: new Date(now - 24 * 60 * 60_000) } } });
  await prisma.merchantSession.deleteMany({ where: { expiresAt: { lt: new Date(now) } } });
}
