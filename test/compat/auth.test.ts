// Who may use the warehouse interface: `Authorization: Bearer` or `X-Authorization`,
// returns_read for GET and returns_write for POST, the platform's 401/403 bodies,
// and the per-client limit of 300 requests a minute (429 with Retry-After).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiClient } from '../../src/domain/stores.ts';
import { rowCounts } from '../support/counts.ts';
import { createTestOrder, insertTestReturn, type TestReturn } from '../support/returnFixtures.ts';
import { addApiClient, call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { WAREHOUSE } from './helpers.ts';

let server: TestServer;
let store: TestStore;
let ret: TestReturn;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db, { scopes: ['returns_read', 'returns_write'] });
  ret = await insertTestReturn(server.db, store.storeId, await createTestOrder(server.db, store.storeId));
});
afterAll(async () => server?.close());

const unauthorized = { error: { code: 'UNAUTHORIZED', http_code: 401, message: expect.any(String) } };
const forbidden = { error: { code: 'FORBIDDEN', http_code: 403, message: expect.stringContaining('returns_') } };

describe('credentials', () => {
  it('takes the secret as Authorization: Bearer or as X-Authorization', async () => {
    const details = `${WAREHOUSE}/return/details?return_id=${ret.number}`;
    expect((await call(server, 'GET', details, { headers: { authorization: `Bearer ${store.secret}` } })).status).toBe(200);
    expect((await call(server, 'GET', details, { headers: { 'x-authorization': store.secret } })).status).toBe(200);
    expect((await call(server, 'GET', details, { headers: { 'x-authorization': `Bearer ${store.secret}` } })).status).toBe(200);
  });

  it('401 in the platform shape for missing, malformed, unknown and revoked secrets', async () => {
    const revoked = await addApiClient(server.db, store.storeId, ['returns_read']);
    await revokeApiClient(server.db.prisma, revoked.clientId);
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Basic Zm9vOmJhcg==' },
      { authorization: 'Bearer sk_unknown' },
      { 'x-authorization': 'sk_unknown' },
      { 'x-authorization': 'not a secret' },
      { authorization: `Bearer ${revoked.secret}` },
    ];
    for (const headers of attempts) {
      const res = await call(server, 'GET', `${WAREHOUSE}/return/list`, { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body).toEqual(unauthorized);
    }
  });
});

describe('scopes', () => {
  it('GET needs returns_read: 403 without it', async () => {
    const writer = await addApiClient(server.db, store.storeId, ['returns_write', 'orders_read']);
    for (const path of ['/return/list', `/return/details?return_id=${ret.number}`, `/return/${ret.number}/notes`, '/reporting/asn']) {
      const res = await call(server, 'GET', `${WAREHOUSE}${path}`, { secret: writer.secret });
      expect(res.status, path).toBe(403);
      expect(res.body).toEqual(forbidden);
    }
  });

  it('POST needs returns_write: 403 without it, and nothing is written', async () => {
    const reader = await addApiClient(server.db, store.storeId, ['returns_read']);
    const counts = await rowCounts(server.db);
    for (const action of ['process', 'flag', 'close', 'cancel', 'remove', 'note']) {
      const res = await call(server, 'POST', `${WAREHOUSE}/return/${ret.number}/${action}`, { secret: reader.secret, body: { content: 'x' } });
      expect(res.status, action).toBe(403);
      expect(res.body).toEqual(forbidden);
    }
    expect(await rowCounts(server.db)).toEqual(counts);
  });

  it('a secret for other scopes only is refused everywhere', async () => {
    const other = await addApiClient(server.db, store.storeId, ['inventory_read', 'orders_write']);
    expect((await call(server, 'GET', `${WAREHOUSE}/return/list`, { secret: other.secret })).status).toBe(403);
    expect((await call(server, 'POST', `${WAREHOUSE}/return/${ret.number}/flag`, { secret: other.secret })).status).toBe(403);
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After past the per-client limit, per client', async () => {
    const limited = await startTestServer({ rateLimits: { rest: 1200, compat: 3 } });
    try {
      const one = await createTestStore(limited.db, { scopes: ['returns_read'] });
      const two = await addApiClient(limited.db, one.storeId, ['returns_read']);
      // Windows are whole minutes: should one end mid-test, the next allows 3 more before refusing.
      let allowed = 0;
      let refused = await call(limited, 'GET', `${WAREHOUSE}/return/list`, { secret: one.secret });
      while (refused.status === 200 && allowed < 6) {
        allowed++;
        refused = await call(limited, 'GET', `${WAREHOUSE}/return/list`, { secret: one.secret });
      }
      expect(refused.status).toBe(429);
      expect([3, 6]).toContain(allowed);
      expect(refused.body).toEqual({ error: { code: 'TOO_MANY_REQUESTS', http_code: 429, message: expect.stringContaining('3 requests per minute') } });
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // Another client of the same store has its own budget.
      expect((await call(limited, 'GET', `${WAREHOUSE}/return/list`, { secret: two.secret })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('is 300 requests a minute by default', () => {
    expect(server.config.rateLimits.compat).toBe(300);
  });
});
