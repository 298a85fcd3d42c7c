// A database that stops under a running service (restart, failover, shutdown): every door
// answers "retry shortly" in its own format (503 problem+json with Retry-After on REST
// and /v3/rest, the warehouse error body with Retry-After, UNAVAILABLE on v3), /readyz
// says not ready, the logs say warn (not an unhandled error), and once the database is
// back the same process serves again without a restart. Runs on a PostgreSQL server of
// its own so stopping it disturbs nothing else; once, in the PostgreSQL run of the suite.
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import type { Database } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { createApp, type App } from '../../src/process/server.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { startPostgresServer, type PostgresServer } from '../support/postgresServer.ts';
import { call, createTestStore, type TestStore } from '../support/server.ts';
import { waitFor } from '../webhooks/support.ts';

describe.runIf(process.env.TEST_DATABASE_URL)('the database stops under a running server', { timeout: 180_000 }, () => {
  let postgres: PostgresServer;
  let db: Database;
  let app: App;
  let base: { url: string };
  let store: TestStore;
  const logs: { level: string; msg: string }[] = [];

  beforeAll(async () => {
    postgres = await startPostgresServer();
    db = await openDatabase(postgres.url, { poolSize: 4 });
    await applyMigrations(db);
    store = await createTestStore(db);
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
        done();
      },
    });
    app = createApp({ db, config: loadConfig({ LOG_LEVEL: 'warn' }), logger: createLogger('warn', sink) });
    await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
    base = { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
  });

  afterAll(async () => {
    await app?.shutdown(1_000);
    await db?.close();
    await postgres?.destroy();
  });

  const customers = () => `/v2.2/stores/${store.storeId}/customers`;

  it('answers 503 with Retry-After on every door while it is down, then serves again without a restart', async () => {
    expect((await call(base, 'GET', `${customers()}?email=before@example.com`, { secret: store.secret })).status).toBe(404);

    await postgres.stop();

    const read = await call(base, 'GET', `${customers()}?email=down@example.com`, { secret: store.secret });
    expect(read.status).toBe(503);
    expect(read.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Number(read.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(read.body).toMatchObject({ status: 503, title: 'Service Unavailable' });

    const write = await call(base, 'PUT', customers(), { secret: store.secret, body: { email: 'down@example.com', firstName: 'Down' } });
    expect(write.status).toBe(503);
    expect(write.headers.get('retry-after')).toBeTruthy();

    // An unknown secret needs the database to be told apart from a revoked one: 503, not 401.
    const unknownClient = await call(base, 'GET', `${customers()}?email=down@example.com`, { secret: 'sk_not_cached_anywhere' });
    expect(unknownClient.status).toBe(503);

    const sofa = await call(base, 'GET', '/v3/rest/customers?first=5', { secret: store.secret });
    expect(sofa.status).toBe(503);
    expect(sofa.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(sofa.headers.get('retry-after')).toBeTruthy();

    const warehouse = await call(base, 'GET', '/api/v1/warehouse/return/list', { secret: store.secret });
    expect(warehouse.status).toBe(503);
    expect(warehouse.body).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE', http_code: 503 } });
    expect(warehouse.headers.get('retry-after')).toBeTruthy();

    const graphql = await call(base, 'POST', '/v3/graphql', { secret: store.secret, body: { query: '{ customers(first: 1) { nodes { id } } }' } });
    expect((graphql.body as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe('UNAVAILABLE');

    expect((await fetch(`${base.url}/readyz`)).status).toBe(503);

    const unhandled = logs.filter((line) => line.level === 'error');
    expect(unhandled).toEqual([]);
    expect(logs.some((line) => line.level === 'warn' && line.msg === 'database unavailable')).toBe(true);

    await postgres.start();
    await waitFor(async () => (await fetch(`${base.url}/readyz`)).status === 200, '/readyz after the database is back', 30_000, 100);
    const again = await call(base, 'PUT', customers(), { secret: store.secret, body: { email: 'back@example.com', firstName: 'Back' } });
    expect(again.status).toBeLessThan(300);
    expect((await call(base, 'GET', `${customers()}?email=back@example.com`, { secret: store.secret })).status).toBe(200);
  });
});
