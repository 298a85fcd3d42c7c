// Rate limits off the database: one-minute budgets per API client and door, in memory by
// default, shared through the real Redis at 127.0.0.1:6379 when REDIS_URL is set (two
// service instances on one database draw on one budget), and still enforced per
// instance when Redis cannot be reached.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../src/auth/rateLimit.ts';
import { loadConfig } from '../../src/config.ts';
import { call, createTestStore, startTestServer, type TestServer } from '../support/server.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';

describe('the limiter', () => {
  it('keeps budgets in memory by default, per client and door', async () => {
    const limiter = createRateLimiter({ limits: { rest: 2, compat: 1 } });
    expect(limiter.store).toBe('memory');
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push(await limiter.consume('apc_a', 'rest'));
    expect(seen.map((d) => [d.allowed, d.remaining])).toEqual([[true, 1], [true, 0], [false, 0]]);
    expect(seen[2].retryAfter).toBeGreaterThanOrEqual(1);
    expect(seen[2].retryAfter).toBeLessThanOrEqual(60);
    expect((await limiter.consume('apc_b', 'rest')).allowed).toBe(true);
    expect((await limiter.consume('apc_a', 'compat')).allowed).toBe(true);
    await limiter.close();
  });

  it('shares one budget between instances through Redis', async () => {
    const keyPrefix = `test-${crypto.randomUUID()}`;
    const a = createRateLimiter({ limits: { rest: 3, compat: 3 }, redisUrl: REDIS_URL, keyPrefix });
    const b = createRateLimiter({ limits: { rest: 3, compat: 3 }, redisUrl: REDIS_URL, keyPrefix });
    expect(a.store).toBe('redis');
    const decisions = [await a.consume('apc_shared', 'rest'), await b.consume('apc_shared', 'rest'), await a.consume('apc_shared', 'rest'), await b.consume('apc_shared', 'rest')];
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    await Promise.all([a.close(), b.close()]);
  });

  it('still limits, per instance, when Redis cannot be reached', async () => {
    const limiter = createRateLimiter({ limits: { rest: 1, compat: 1 }, redisUrl: 'redis://127.0.0.1:1', keyPrefix: `down-${crypto.randomUUID()}` });
    expect((await limiter.consume('apc_down', 'rest')).allowed).toBe(true);
    expect((await limiter.consume('apc_down', 'rest')).allowed).toBe(false);
    await limiter.close();
  });

  it('refuses a REDIS_URL that is not a redis URL at start-up', () => {
    expect(() => loadConfig({ REDIS_URL: 'http://127.0.0.1:6379' })).toThrow('REDIS_URL must be a redis:// or rediss:// URL');
    expect(loadConfig({ REDIS_URL: REDIS_URL }).redisUrl).toBe(REDIS_URL);
  });
});

describe('two service instances with REDIS_URL', () => {
  let first: TestServer;
  let second: TestServer;

  beforeAll(async () => {
    first = await startTestServer({ rateLimits: { rest: 3, compat: 3 }, redisUrl: REDIS_URL });
    second = await startTestServer({ rateLimits: { rest: 3, compat: 3 }, redisUrl: REDIS_URL }, {}, { db: first.db });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('draw on one budget per API client: the fourth request, on either, is a 429', async () => {
    const store = await createTestStore(first.db);
    const path = `/v2.2/stores/${store.storeId}/return-tags`;
    const statuses = [];
    for (const instance of [first, second, first, second]) statuses.push((await call(instance, 'GET', path, { secret: store.secret })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await call(first, 'GET', path, { secret: store.secret });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
