// The rate-limit headers in the IETF form (draft-ietf-httpapi-ratelimit-headers-11):
// `RateLimit-Policy` and `RateLimit`, structured-field lists, beside the X-RateLimit-* headers
// integrations already read, telling the same budget: on REST v2.2 and /v3/rest (one budget,
// policy "rest"), on the compat door (policy "compat"), on answers and on the 429; and
// documented in both OpenAPI documents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/rest/openapi.ts';
import { restRoutes } from '../../src/rest/routes/index.ts';
import { expectValidRestResponse } from '../support/openapi.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: { rest: 4, compat: 2 } });
});
afterAll(async () => server?.close());

interface Fields {
  policy: { name: string; quota: number; window: number };
  limit: { name: string; remaining: number; reset: number };
}

/** The two fields of an answer, read by their grammar: a one-member list of a string item with integer parameters. */
function fieldsOf(headers: Headers): Fields {
  const policy = /^"(\w+)";q=(\d+);w=(\d+)$/.exec(headers.get('ratelimit-policy') ?? '');
  const limit = /^"(\w+)";r=(\d+);t=(\d+)$/.exec(headers.get('ratelimit') ?? '');
  expect(policy, `RateLimit-Policy: ${headers.get('ratelimit-policy')}`).not.toBeNull();
  expect(limit, `RateLimit: ${headers.get('ratelimit')}`).not.toBeNull();
  return {
    policy: { name: policy![1], quota: Number(policy![2]), window: Number(policy![3]) },
    limit: { name: limit![1], remaining: Number(limit![2]), reset: Number(limit![3]) },
  };
}

/** The IETF fields say what X-RateLimit-* say. */
function expectConsistent(headers: Headers, policyName: string): Fields {
  const fields = fieldsOf(headers);
  expect(fields.policy).toEqual({ name: policyName, quota: Number(headers.get('x-ratelimit-limit')), window: 60 });
  expect(fields.limit.name).toBe(policyName);
  expect(fields.limit.remaining).toBe(Number(headers.get('x-ratelimit-remaining')));
  expect(fields.limit.reset).toBeGreaterThanOrEqual(1);
  expect(fields.limit.reset).toBeLessThanOrEqual(60);
  return fields;
}

describe('REST v2.2 and /v3/rest', () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await createTestStore(server.db);
  });

  it('send RateLimit-Policy and RateLimit beside X-RateLimit-*, one budget across both doors, down to the 429', async () => {
    const levels = `/v2.2/stores/${store.storeId}/inventory-levels`;
    const first = await call(server, 'GET', levels, { secret: store.secret });
    expect(first.status).toBe(200);
    expect(expectConsistent(first.headers, 'rest').limit.remaining).toBe(3);
    expectValidRestResponse('GET', levels, first);

    const sofa = await call(server, 'GET', '/v3/rest/returns?first=5', { secret: store.secret });
    expect(sofa.status).toBe(200);
    expect(expectConsistent(sofa.headers, 'rest').limit.remaining).toBe(2);

    const notFound = await call(server, 'GET', '/v3/rest/return/ret_missing', { secret: store.secret });
    expect(notFound.status).toBe(404);
    expect(expectConsistent(notFound.headers, 'rest').limit.remaining).toBe(1);

    expect(expectConsistent((await call(server, 'GET', levels, { secret: store.secret })).headers, 'rest').limit.remaining).toBe(0);

    for (const path of [levels, '/v3/rest/returns?first=5']) {
      const refused = await call(server, 'GET', path, { secret: store.secret });
      expect(refused.status).toBe(429);
      const fields = expectConsistent(refused.headers, 'rest');
      expect(fields.limit.remaining).toBe(0);
      expect(fields.limit.reset).toBe(Number(refused.headers.get('retry-after')));
    }
  });

  it('send the budget, unspent, on a 304 of either door', async () => {
    const polled = await createTestStore(server.db);
    for (const path of [`/v2.2/stores/${polled.storeId}/inventory-levels`, '/v3/rest/returns?first=5']) {
      const full = await call(server, 'GET', path, { secret: polled.secret });
      const before = expectConsistent(full.headers, 'rest').limit.remaining;
      for (const condition of [full.headers.get('etag')!, '*']) {
        const unchanged = await call(server, 'GET', path, { secret: polled.secret, headers: { 'if-none-match': condition }, referenceCheck: false });
        expect([path, condition, unchanged.status]).toEqual([path, condition, 304]);
        // A poll by tag is not counted; `*` runs the door, which counts it.
        const expected = condition === '*' ? before - 1 : before;
        expect([path, condition, expectConsistent(unchanged.headers, 'rest').limit.remaining]).toEqual([path, condition, expected]);
      }
    }
  });

  it('send none on a refused secret (nothing was counted)', async () => {
    const refused = await call(server, 'GET', `/v2.2/stores/${store.storeId}/inventory-levels`, { secret: 'sk_unknown' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('ratelimit')).toBeNull();
    expect(refused.headers.get('ratelimit-policy')).toBeNull();
  });
});

describe('the compat door', () => {
  it('sends the IETF fields, policy "compat", on answers and on the 429', async () => {
    const store = await createTestStore(server.db, { scopes: ['returns_read'] });
    const path = '/api/v1/warehouse/return/list?paginate=true&pageSize=1';
    const seen: Fields[] = [];
    for (let i = 0; i < 2; i++) {
      const answer = await call(server, 'GET', path, { secret: store.secret });
      expect(answer.status).toBe(200);
      seen.push(fieldsOf(answer.headers));
    }
    expect(seen.map((f) => [f.policy, f.limit.name, f.limit.remaining])).toEqual([
      [{ name: 'compat', quota: 2, window: 60 }, 'compat', 1],
      [{ name: 'compat', quota: 2, window: 60 }, 'compat', 0],
    ]);
    const refused = await call(server, 'GET', path, { secret: store.secret });
    expect(refused.status).toBe(429);
    const fields = fieldsOf(refused.headers);
    expect(fields.limit.remaining).toBe(0);
    expect(fields.limit.reset).toBe(Number(refused.headers.get('retry-after')));
  });
});

describe('the compat door, polled', () => {
  it('sends the IETF fields, unspent, on a 304', async () => {
    const store = await createTestStore(server.db, { scopes: ['returns_read'] });
    const order = await createTestOrder(server.db, store.storeId);
    const ret = await insertTestReturn(server.db, store.storeId, order);
    const path = `/api/v1/warehouse/return/details?return_id=${ret.number}`;
    const full = await call(server, 'GET', path, { secret: store.secret });
    expect(full.status).toBe(200);
    expect(fieldsOf(full.headers).limit.remaining).toBe(1);
    const unchanged = await call(server, 'GET', path, { secret: store.secret, headers: { 'if-none-match': full.headers.get('etag')! } });
    expect(unchanged.status).toBe(304);
    expect(fieldsOf(unchanged.headers)).toEqual({ ...fieldsOf(full.headers), limit: { ...fieldsOf(full.headers).limit, reset: fieldsOf(unchanged.headers).limit.reset } });
  });
});

type Documented = { paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>> };

describe('the OpenAPI documents', () => {
  it('/v2.2 documents both fields on the answers of its own routes', () => {
    const document = buildOpenApiDocument(restRoutes) as unknown as Documented;
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item)).filter((op) => (op as { 'x-extension'?: true })['x-extension']);
    const authenticated = operations.filter((op) => op.responses['429']);
    expect(authenticated.length).toBeGreaterThan(0);
    for (const operation of authenticated) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (status !== '429' && !status.startsWith('2')) continue;
        expect(Object.keys(response.headers ?? {})).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']));
      }
    }
  });

  it('/v3/rest documents both fields and the 429 on every route', async () => {
    const document = (await call(server, 'GET', '/v3/rest/openapi.json')).body as Documented;
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
    expect(operations.length).toBeGreaterThan(50);
    for (const operation of operations) {
      expect(Object.keys(operation.responses['200'].headers ?? {})).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit', 'X-RateLimit-Limit']));
      expect(Object.keys(operation.responses['429'].headers ?? {})).toEqual(expect.arrayContaining(['Retry-After', 'RateLimit-Policy', 'RateLimit']));
    }
  });
});
