// The authentication matrix on one route of each door: no token, an unknown token,
// a revoked client, another store's token, and a missing scope, each answered in
// the door's own error format; the right token and scope gets through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addApiClient, call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { revokeApiClient } from '../../src/domain/stores.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
let revoked: string;
let noScope: string;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other store' });
  const gone = await addApiClient(server.db, store.storeId, ['customers_read', 'returns_read', 'inventory_read']);
  await revokeApiClient(server.db.prisma, gone.clientId);
  revoked = gone.secret;
  noScope = (await addApiClient(server.db, store.storeId, ['orders_read'])).secret;
});
afterAll(async () => server?.close());

interface DoorCase {
  door: string;
  request(secret?: string, headers?: Record<string, string>): ReturnType<typeof call>;
  expectError(response: Awaited<ReturnType<typeof call>>, status: number): void;
  /** A secret of another store is refused on REST (path names the store); elsewhere it sees only its own store. */
  crossStore: 'refused' | 'own-data';
}

const v3Query = '{ inboundShipments(first: 1) { nodes { id } } }';

const doors: DoorCase[] = [
  {
    door: 'v3',
    request: (secret, headers) => call(server, 'POST', '/v3/graphql', { secret, headers, body: { query: v3Query } }),
    expectError(res, status) {
      const code = status === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN';
      if (status === 401) expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ errors: [{ extensions: { code } }] });
    },
    crossStore: 'own-data',
  },
  {
    door: 'REST',
    request: (secret, headers) => call(server, 'GET', `/v2.2/stores/${store.storeId}/customers?email=a@example.com`, { secret, headers }),
    expectError(res, status) {
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body).toMatchObject({ type: 'about:blank', status, detail: expect.any(String) });
    },
    crossStore: 'refused',
  },
  {
    door: 'compat',
    request: (secret, headers) => call(server, 'GET', '/api/v1/warehouse/return/list', { secret, headers }),
    expectError(res, status) {
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ error: { code: status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN', http_code: status, message: expect.any(String) } });
    },
    crossStore: 'own-data',
  },
];

describe.each(doors)('$door door', (door) => {
  it('refuses a request without credentials (401)', async () => door.expectError(await door.request(), 401));
  it('refuses an unknown secret (401)', async () => door.expectError(await door.request('sk_not-a-real-secret'), 401));
  it('refuses a malformed Authorization header (401)', async () =>
    door.expectError(await door.request(undefined, { authorization: 'Bearer' }), 401));
  it('refuses a revoked client (401)', async () => door.expectError(await door.request(revoked), 401));
  it('refuses a client without the scope (403)', async () => door.expectError(await door.request(noScope), 403));
  it('lets the right client through', async () => {
    const res = await door.request(store.secret);
    expect(res.status === 200 || res.status === 404).toBe(true);
    if (door.door === 'v3') expect(res.body).toEqual({ data: { inboundShipments: { nodes: [] } } });
  });
  it("handles another store's secret", async () => {
    const res = await door.request(other.secret);
    if (door.crossStore === 'refused') door.expectError(res, 403);
    else expect(res.status).toBe(200);
  });
});

describe('compat X-Authorization', () => {
  it('accepts the bare secret in X-Authorization, as the other platform does', async () => {
    const res = await call(server, 'GET', '/api/v1/warehouse/return/list', { headers: { 'x-authorization': store.secret } });
    expect(res.status).toBe(200);
  });
  it('refuses an unknown X-Authorization secret', async () => {
    const res = await call(server, 'GET', '/api/v1/warehouse/return/list', { headers: { 'x-authorization': 'nope' } });
    expect(res.status).toBe(401);
  });
});
