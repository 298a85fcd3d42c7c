// The v2.2 door around every route: unknown routes, wrong methods, oversized and
// malformed bodies, every authentication, store, scope and rate-limit refusal, each
// as problem+json conforming to the OpenAPI document, and none of them writing.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiClient } from '../../src/domain/stores.ts';
import { addApiClient, call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { expectValidRestResponse } from '../support/openapi.ts';
import { rowCounts } from '../support/counts.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;

const levels = (storeId: string) => `/v2.2/stores/${storeId}/inventory-levels`;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other store' });
});
afterAll(async () => server?.close());

function expectProblem(res: Awaited<ReturnType<typeof call>>, status: number, detail?: RegExp) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: 'about:blank', status, title: expect.any(String), detail: expect.any(String) });
  if (detail) expect((res.body as { detail: string }).detail).toMatch(detail);
}

/** A raw request, for what fetch refuses to send (a GET with a body). */
function rawRequest(method: string, path: string, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; headers: Headers; text: string; body: unknown }>((resolve, reject) => {
    const req = http.request(`${server.url}${path}`, { method, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') out.set(name, value);
        resolve({ status: res.statusCode ?? 0, headers: out, text, body: JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('routing', () => {
  it('answers an unknown path with a 404 problem naming it', async () => {
    for (const path of [`/v2.2/stores/${store.storeId}/no-such-thing`, '/v2.2', '/v2.2/', `/v2.2/stores/${store.storeId}/inventory-levels/li_1/extra`]) {
      const res = await call(server, 'GET', path, { secret: store.secret });
      expectProblem(res, 404, /no route/);
      expect((res.body as { instance: string }).instance).toBe(path);
      expectValidRestResponse('GET', path, res);
    }
  });

  it('answers a wrong method with 405 and Allow listing the methods of the path', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await call(server, method, levels(store.storeId), { secret: store.secret });
      expectProblem(res, 405);
      expect(res.headers.get('allow')).toBe('GET');
      expectValidRestResponse(method, levels(store.storeId), res);
    }
  });

  it('keeps the query string in the problem instance', async () => {
    const res = await call(server, 'GET', `${levels(store.storeId)}?page-size=0`, { secret: store.secret });
    expectProblem(res, 400);
    expect((res.body as { instance: string }).instance).toBe(`${levels(store.storeId)}?page-size=0`);
  });
});

describe('request bodies', () => {
  it('refuses a body over 1 MiB with 413 before authentication', async () => {
    const res = await call(server, 'PUT', `/v2.2/stores/${store.storeId}/customers`, { body: 'x'.repeat(1024 * 1024 + 1) });
    expectProblem(res, 413, /1048576 bytes/);
  });

  it('refuses invalid JSON with a 400 problem', async () => {
    const res = await rawRequest('GET', levels(store.storeId), { authorization: `Bearer ${store.secret}`, 'content-type': 'application/json' }, '{"oops": ');
    expectProblem(res, 400, /not valid JSON/);
  });

  it('refuses a body that is not JSON', async () => {
    const res = await rawRequest('GET', levels(store.storeId), { authorization: `Bearer ${store.secret}`, 'content-type': 'text/plain' }, 'hello');
    expectProblem(res, 400, /Content-Type must be application\/json/);
  });
});

describe('authentication and authorization', () => {
  const cases: [string, () => Record<string, string>, RegExp][] = [
    ['no Authorization header', () => ({}), /missing credentials/],
    ['a Basic credential', () => ({ authorization: 'Basic Zm9vOmJhcg==' }), /malformed Authorization/],
    ['a bearer token with spaces', () => ({ authorization: 'Bearer two words' }), /malformed Authorization/],
    ['an empty bearer token', () => ({ authorization: 'Bearer ' }), /malformed Authorization/],
    ['an unknown secret', () => ({ authorization: 'Bearer sk_unknown' }), /unknown API secret/],
  ];
  for (const [name, headers, detail] of cases) {
    it(`401 problem for ${name}`, async () => {
      const res = await call(server, 'GET', levels(store.storeId), { headers: headers() });
      expectProblem(res, 401, detail);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      expectValidRestResponse('GET', levels(store.storeId), res);
    });
  }

  it('401 problem for a revoked client, while other clients of the store still work', async () => {
    const revoked = await addApiClient(server.db, store.storeId, ['inventory_read', 'locations_read']);
    expect((await call(server, 'GET', levels(store.storeId), { secret: revoked.secret })).status).toBe(200);
    await revokeApiClient(server.db.prisma, revoked.clientId);
    const res = await call(server, 'GET', levels(store.storeId), { secret: revoked.secret });
    expectProblem(res, 401, /revoked/);
    expectValidRestResponse('GET', levels(store.storeId), res);
    expect((await call(server, 'GET', levels(store.storeId), { secret: store.secret })).status).toBe(200);
  });

  it("403 problem for another store's secret, on a list and on an id", async () => {
    for (const path of [levels(store.storeId), `${levels(store.storeId)}/li_abc`]) {
      const res = await call(server, 'GET', path, { secret: other.secret });
      expectProblem(res, 403, /does not belong to the store/);
      expectValidRestResponse('GET', path, res);
    }
  });

  it('403 problem for an unknown store in the path (no existence leak: same as another store)', async () => {
    const res = await call(server, 'GET', levels('str_doesnotexist'), { secret: store.secret });
    expectProblem(res, 403, /does not belong to the store/);
  });

  it('403 problem naming each missing scope', async () => {
    const inventoryOnly = await addApiClient(server.db, store.storeId, ['inventory_read']);
    const res = await call(server, 'GET', levels(store.storeId), { secret: inventoryOnly.secret });
    expectProblem(res, 403, /missing scope: locations_read$/);
    expectValidRestResponse('GET', levels(store.storeId), res);
    const none = await addApiClient(server.db, store.storeId, ['customers_read']);
    expectProblem(await call(server, 'GET', levels(store.storeId), { secret: none.secret }), 403, /missing scope: inventory_read, locations_read$/);
  });

  it('serves the OpenAPI document without credentials, and ignores a bad credential there', async () => {
    expect((await call(server, 'GET', '/v2.2/openapi.json')).status).toBe(200);
    expect((await call(server, 'GET', '/v2.2/openapi.json', { headers: { authorization: 'Basic x' } })).status).toBe(200);
  });
});

describe('rate limit', () => {
  let limited: TestServer;
  let client: TestStore;

  beforeAll(async () => {
    limited = await startTestServer({ rateLimits: { rest: 3, compat: 3 } });
    client = await createTestStore(limited.db);
  });
  afterAll(async () => limited?.close());

  it('answers 429 with Retry-After once a client exceeds its per-minute budget; other clients keep theirs', async () => {
    const path = levels(client.storeId);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const ok = await call(limited, 'GET', path, { secret: client.secret });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-ratelimit-limit')).toBe('3');
      remaining.push(ok.headers.get('x-ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const refused = await call(limited, 'GET', path, { secret: client.secret });
    expectProblem(refused, 429, /rate limit of 3 requests per minute/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expectValidRestResponse('GET', path, refused);

    const second = await addApiClient(limited.db, client.storeId, ['inventory_read', 'locations_read']);
    expect((await call(limited, 'GET', path, { secret: second.secret })).status).toBe(200);
  });

  it('does not spend the budget on refused credentials', async () => {
    const fresh = await createTestStore(limited.db);
    for (let i = 0; i < 5; i++) expect((await call(limited, 'GET', levels(fresh.storeId), { secret: other.secret })).status).toBe(401);
    expect((await call(limited, 'GET', levels(fresh.storeId), { secret: fresh.secret })).headers.get('x-ratelimit-remaining')).toBe('2');
  });
});

describe('refused requests write nothing', () => {
  it('leaves every table as it was', async () => {
    const revoked = await addApiClient(server.db, store.storeId, ['customers_write']);
    await revokeApiClient(server.db.prisma, revoked.clientId);
    const counts = await rowCounts(server.db);
    const body = { email: 'someone@example.com' };
    const attempts = [
      call(server, 'PUT', `/v2.2/stores/${store.storeId}/customers`, { body }),
      call(server, 'PUT', `/v2.2/stores/${store.storeId}/customers`, { secret: revoked.secret, body }),
      call(server, 'PUT', `/v2.2/stores/${store.storeId}/customers`, { secret: other.secret, body }),
      call(server, 'PUT', `/v2.2/stores/${store.storeId}/customers`, { secret: store.secret, body: 'x'.repeat(1024 * 1024 + 1) }),
      call(server, 'PUT', `/v2.2/stores/${store.storeId}/customers`, { secret: store.secret, body: '{"email": ' }),
      call(server, 'POST', levels(store.storeId), { secret: store.secret, body }),
      call(server, 'POST', `/v2.2/stores/${store.storeId}/nothing`, { secret: store.secret, body }),
    ];
    const statuses = (await Promise.all(attempts)).map((r) => r.status);
    expect(statuses.every((s) => s >= 400 && s < 500)).toBe(true);
    expect(await rowCounts(server.db)).toEqual(counts);
    expect(Object.keys(counts).length).toBeGreaterThan(10);
  });
});
