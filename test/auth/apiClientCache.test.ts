// API clients are cached in process: a known secret costs no SQL after its first request,
// and a revocation made anywhere (another instance, the CLI) reaches every authenticator
// through NOTIFY, so the next request is a 401. On PostgreSQL a second database handle
// plays the second instance; on PGlite the notification comes from the same database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_CLIENT_CHANNEL, createAuthenticator, isAuthFailure, type Authenticator } from '../../src/auth/authenticate.ts';
import { openDatabase } from '../../src/db/client.ts';
import type { Database } from '../../src/db/database.ts';
import { revokeApiClient } from '../../src/domain/stores.ts';
import { addApiClient, call, createTestStore, startTestServer, type TestServer } from '../support/server.ts';
import { statementsDuring } from '../support/counts.ts';
import { waitFor } from '../webhooks/support.ts';

let server: TestServer;
let otherInstance: Database | undefined;
const authenticators: Authenticator[] = [];

beforeAll(async () => {
  server = await startTestServer();
  if (server.db.kind === 'postgresql') otherInstance = await openDatabase(server.db.url);
});
afterAll(async () => {
  await Promise.all(authenticators.map((a) => a.close()));
  await otherInstance?.close();
  await server?.close();
});

function authenticatorOn(db: Database): Authenticator {
  const authenticator = createAuthenticator(db);
  authenticators.push(authenticator);
  return authenticator;
}

const statementCount = async (db: Database, fn: () => Promise<unknown>) => (await statementsDuring(db, fn)).length;

describe('the API-client cache', () => {
  it('answers a known secret from memory after its first lookup', async () => {
    const store = await createTestStore(server.db);
    const authenticator = authenticatorOn(server.db);
    await waitFor(async () => !isAuthFailure(await authenticator.authenticate(store.secret)) && (await statementCount(server.db, () => authenticator.authenticate(store.secret))) === 0, 'the cache to serve');
    const auth = await authenticator.authenticate(store.secret);
    expect(isAuthFailure(auth) ? auth : auth.store.id).toBe(store.storeId);
    expect(await statementCount(server.db, () => authenticator.authenticate('sk_unknown'))).toBe(1);
    expect(await statementCount(server.db, () => authenticator.authenticate('sk_unknown'))).toBe(1);
  });

  it('forgets a client revoked outside this process (by NOTIFY): the next request is a 401', async () => {
    const store = await createTestStore(server.db);
    const client = await addApiClient(server.db, store.storeId, ['returns_read']);
    const here = authenticatorOn(server.db);
    const there = authenticatorOn(otherInstance ?? server.db);
    await waitFor(async () => (await statementCount(server.db, () => here.authenticate(client.secret))) === 0, 'this instance to cache the client');
    expect(isAuthFailure(await there.authenticate(client.secret))).toBe(false);

    // As another process revokes it (the revocation's statements, no in-process signal), on another handle on PostgreSQL.
    const elsewhere = otherInstance ?? server.db;
    await elsewhere.sql.query(`UPDATE "ApiClient" SET "revokedAt" = now() WHERE id = $1`, [client.clientId]);
    await elsewhere.sql.query(`SELECT pg_notify($1, $2)`, [API_CLIENT_CHANNEL, client.clientId]);
    // Each listening connection gets the notification on its own; neither is promised to hear it before the other.
    await waitFor(
      async () => isAuthFailure(await here.authenticate(client.secret)) && isAuthFailure(await there.authenticate(client.secret)),
      'the revocation to reach both instances',
      5_000,
    );
    expect(await here.authenticate(client.secret)).toEqual({ status: 401, message: 'this API client has been revoked' });
    expect(await there.authenticate(client.secret)).toEqual({ status: 401, message: 'this API client has been revoked' });
  });

  it('a client revoked in this process is refused by every door on the very next request', async () => {
    const store = await createTestStore(server.db);
    const client = await addApiClient(server.db, store.storeId, ['returns_read']);
    const path = `/v2.2/stores/${store.storeId}/returns`;
    expect((await call(server, 'GET', path, { secret: client.secret })).status).toBe(200);
    expect((await call(server, 'GET', path, { secret: client.secret })).status).toBe(200);
    await revokeApiClient(server.db.prisma, client.clientId);
    expect((await call(server, 'GET', path, { secret: client.secret })).status).toBe(401);
    expect((await call(server, 'GET', '/api/v1/warehouse/return/list', { secret: client.secret })).status).toBe(401);
    expect((await call(server, 'POST', '/v3/graphql', { secret: client.secret, body: { query: '{ store { id } }' } })).status).toBe(401);
  });
});
