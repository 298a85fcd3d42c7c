// Every request authenticates once, whatever the pipeline's steps do with the caller: the
// idempotency step (a keyed write), the validators (a GET), the rate limit and the door all
// read what the guard found. Counted at the authenticator each door's credentials go to; the
// dashboard, which signs merchants in with sessions, loads its session once.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator, type Authenticator } from '../../src/auth/authenticate.ts';
import { startSession } from '../../src/auth/merchantUsers.ts';
import { createMerchantUser } from '../../src/domain/merchantUsers.ts';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { createApp, type App } from '../../src/process/server.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createTestDatabase } from '../support/db.ts';
import { createTestStore, type TestStore } from '../support/server.ts';

let db: Database;
let app: App;
let base: string;
let store: TestStore;
let authentications = 0;

function counted(authenticator: Authenticator): Authenticator {
  return {
    ...authenticator,
    authenticate: (secret) => {
      authentications += 1;
      return authenticator.authenticate(secret);
    },
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  app = createApp({ db, config, logger: createLogger(config.logLevel), authenticator: counted(createAuthenticator(db)) });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  store = await createTestStore(db);
});

afterAll(async () => {
  await app.shutdown(1_000);
  await db.close();
});

/** How many times the request authenticated, and its status. */
async function authenticationsOf(path: string, init: RequestInit = {}): Promise<{ count: number; status: number }> {
  const before = authentications;
  const response = await fetch(base + path, { ...init, headers: { authorization: `Bearer ${store.secret}`, ...init.headers } });
  await response.arrayBuffer();
  return { count: authentications - before, status: response.status };
}

const keyed = (body: unknown, key: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', 'idempotency-key': key },
  body: JSON.stringify(body),
});

describe('one request authenticates once', () => {
  it('on v2.2 REST: a keyed write, a read, and the read polled with its ETag', async () => {
    const write = await authenticationsOf(`/v2.2/stores/${store.storeId}/customers`, { ...keyed({ email: 'once-rest@example.com' }, 'rest-1'), method: 'PUT' });
    expect(write).toEqual({ count: 1, status: 201 });
    const replay = await authenticationsOf(`/v2.2/stores/${store.storeId}/customers`, { ...keyed({ email: 'once-rest@example.com' }, 'rest-1'), method: 'PUT' });
    expect(replay).toEqual({ count: 1, status: 201 });
    const path = `/v2.2/stores/${store.storeId}/customers?email=once-rest@example.com`;
    const read = await fetch(base + path, { headers: { authorization: `Bearer ${store.secret}` } });
    await read.arrayBuffer();
    expect(await authenticationsOf(path)).toEqual({ count: 1, status: 200 });
    expect(await authenticationsOf(path, { headers: { 'if-none-match': read.headers.get('etag')! } })).toEqual({ count: 1, status: 304 });
  });

  it('on v3 GraphQL: a keyed mutation and a query by GET', async () => {
    const mutation = { query: 'mutation($input: CustomerUpsertInput!) { customerUpsert(input: $input) { created } }', variables: { input: { email: 'once-v3@example.com' } } };
    expect(await authenticationsOf('/v3/graphql', keyed(mutation, 'v3-1'))).toEqual({ count: 1, status: 200 });
    expect(await authenticationsOf(`/v3/graphql?query=${encodeURIComponent('{ customers(first: 1) { nodes { id } } }')}`)).toEqual({ count: 1, status: 200 });
  });

  it('on /v3/rest and its exports: a keyed write, a list and an export', async () => {
    expect(await authenticationsOf('/v3/rest/customer-upsert', keyed({ input: { email: 'once-sofa@example.com' } }, 'sofa-1'))).toEqual({ count: 1, status: 200 });
    expect(await authenticationsOf('/v3/rest/customers?first=1')).toEqual({ count: 1, status: 200 });
    expect(await authenticationsOf('/v3/rest/exports/customers.csv')).toEqual({ count: 1, status: 200 });
  });

  it('on the compat door, with either of its credential headers', async () => {
    expect(await authenticationsOf('/api/v1/warehouse/return/list')).toEqual({ count: 1, status: 200 });
    const before = authentications;
    const response = await fetch(`${base}/api/v1/warehouse/return/list`, { headers: { 'x-authorization': store.secret } });
    expect(response.status).toBe(200);
    expect(authentications - before).toBe(1);
  });

  it('on the dashboard, which loads the merchant session once and asks no API authentication', async () => {
    const user = await createMerchantUser(db.prisma, { storeId: store.storeId, email: 'once@example.com', password: 'correct horse battery' });
    const token = await startSession(db.prisma, user.id);
    let sessionReads = 0;
    const stop = db.onStatement(({ sql }) => {
      if (/"MerchantSession"/.test(sql) && /^\s*SELECT/i.test(sql)) sessionReads += 1;
    });
    const before = authentications;
    const response = await fetch(`${base}/admin/returns`, { headers: { cookie: `merchant_session=${token}` } });
    await response.arrayBuffer();
    stop();
    expect(response.status).toBe(200);
    expect(sessionReads).toBe(1);
    expect(authentications - before).toBe(0);
  });
});
