// Reads on a real streaming replica (db/replicas.ts): a primary and a standby made with
// initdb and pg_basebackup, the standby replaying WAL a few seconds late
// (recovery_min_apply_delay). Other clients' reads are served by the standby (its own
// statistics count them); a client reading right after its own write sees it, from the
// primary, while the standby has not replayed it; a standby that stops or lags past the
// bound is left out and comes back by itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { DatabaseUrlError, openDatabase } from '../../src/db/client.ts';
import type { Database } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { newId } from '../../src/domain/ids.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { startStreamingPair, streamingPairUnavailable, type StreamingPair } from '../support/streamingReplica.ts';
import { addApiClient, call, createTestStore, graphql, startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../webhooks/support.ts';

describe('DATABASE_REPLICA_URLS', () => {
  it('is refused at start-up beside the embedded database, which has no replicas', async () => {
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgresql://postgres@127.0.0.1:5433/app' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: 'pglite:memory:', DATABASE_REPLICA_URLS: 'postgresql://postgres@127.0.0.1:5433/app' })).toThrow(/PGlite/);
    await expect(openDatabase('pglite:memory:', { replicas: { urls: ['postgresql://127.0.0.1:5433/app'], maxLagMs: 1_000 } })).rejects.toThrow(DatabaseUrlError);
  });

  it('takes postgresql:// URLs only', () => {
    const primary = 'postgresql://postgres@127.0.0.1:5432/app';
    expect(() => loadConfig({ DATABASE_URL: primary, DATABASE_REPLICA_URLS: 'mysql://127.0.0.1/app' })).toThrow(/postgresql:\/\/ URLs/);
    expect(loadConfig({ DATABASE_URL: primary, DATABASE_REPLICA_URLS: ' postgresql://a:5433/app , postgres://b/app ' }).databaseReplicaUrls).toEqual([
      'postgresql://a:5433/app',
      'postgres://b/app',
    ]);
  });
});

const unavailable = streamingPairUnavailable();

type Scrape = { name: string; metrics: { value?: string; labels?: Record<string, string> }[] }[];

async function metric(server: TestServer, name: string, labels: Record<string, string> = {}): Promise<number> {
  const families = parsePrometheusTextFormat(await (await fetch(`${server.url}/metrics`)).text()) as Scrape;
  const family = families.find((f) => f.name === name);
  return (family?.metrics ?? [])
    .filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
    .reduce((sum, m) => sum + Number(m.value ?? 0), 0);
}

const LEVEL = 'query($id: ID!) { inventoryLevel(id: $id) { id quantity } }';
const ADJUST = 'mutation($input: InventoryAdjustInput!) { inventoryAdjust(input: $input) { inventoryLevel { quantity } userErrors { message } } }';

const REDIS_URL = 'redis://127.0.0.1:6379';

describe.skipIf(unavailable !== undefined)(`reads on a streaming replica${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let pair: StreamingPair;
  let db: Database;
  let server: TestServer;
  /** A second instance of the service on the same primary and standby. */
  let other: TestServer;
  const instances: TestServer[] = [];
  let writer: string;
  let reader: string;
  let levelId: string;
  let storeId: string;

  const quantity = async (secret: string, on: TestServer = server) => {
    const answer = await graphql(on, secret, LEVEL, { id: levelId });
    expect(answer.errors).toBeUndefined();
    return (answer.data!.inventoryLevel as { quantity: number }).quantity;
  };
  const readsServed = (target: 'replica' | 'primary', reason?: string) => metric(server, 'db_reads_total', reason ? { target, reason } : { target });
  /** Index and sequential scans of the stock levels counted by the standby for the queries it ran itself. */
  const standbyLevelScans = async () => {
    const [row] = await pair.onStandby<{ scans: string }>(
      `SELECT (coalesce(idx_scan, 0) + coalesce(seq_scan, 0))::text AS scans FROM pg_stat_user_tables WHERE relname = 'InventoryLevel'`,
    );
    return Number(row.scans);
  };
  /** False too while the standby has not even replayed the migrations. */
  const standbyHasLevel = async () => (await pair.onStandby(`SELECT 1 FROM "InventoryLevel" WHERE id = $1`, [levelId]).catch(() => [])).length === 1;

  /** An instance of the service (its own pools, as another process has) on the pair. */
  const startInstance = async (replicas: { maxLagMs?: number; probeIntervalMs?: number; redisUrl?: string } = {}) => {
    const instanceDb = await openDatabase(pair.primaryUrl, {
      poolSize: 4,
      replicas: { urls: [pair.standbyUrl], maxLagMs: 60_000, probeIntervalMs: 200, logger: createLogger('silent'), ...replicas },
    });
    const instance = await startTestServer({}, {}, { db: instanceDb });
    const close = instance.close.bind(instance);
    instance.close = async () => {
      await close();
      await instanceDb.close();
    };
    instances.push(instance);
    return instance;
  };

  beforeAll(async () => {
    pair = await startStreamingPair({ applyDelay: '2s' });
    const migrator = await openDatabase(pair.primaryUrl, { poolSize: 1 });
    await applyMigrations(migrator).finally(() => migrator.close());
    server = await startInstance();
    other = await startInstance();
    db = server.db;
    const store = await createTestStore(db);
    storeId = store.storeId;
    writer = store.secret;
    reader = (await addApiClient(db, store.storeId, ['inventory_read', 'locations_read', 'customers_read'])).secret;
    const location = (await db.prisma.store.findUniqueOrThrow({ where: { id: store.storeId } })).defaultLocationId!;
    const { id: productId } = await db.prisma.product.create({ data: { id: newId('product'), storeId: store.storeId, title: 'Replicated', sku: 'REP-1' } });
    ({ id: levelId } = await db.prisma.inventoryLevel.create({ data: { id: newId('inventoryLevel'), storeId: store.storeId, productId, locationId: location, quantity: 5 } }));
    // The standby serves only what it has replayed: the fixture, two seconds late.
    await waitFor(async () => (await standbyHasLevel()) || undefined, 'the standby to replay the fixture', 30_000, 100);
  }, 180_000);

  afterAll(async () => {
    for (const instance of instances) await instance.close();
    await pair?.destroy();
  });

  it("serves other clients' reads from the standby, as its own statistics show", async () => {
    const scansBefore = await standbyLevelScans();
    const servedBefore = await readsServed('replica', 'replica');
    for (let i = 0; i < 5; i++) expect(await quantity(reader)).toBe(5);
    expect(await readsServed('replica', 'replica')).toBeGreaterThanOrEqual(servedBefore + 5);
    // A backend reports its statistics when idle, within seconds.
    await waitFor(async () => ((await standbyLevelScans()) >= scansBefore + 5 ? true : undefined), 'the standby to count the reads', 30_000, 250);
  });

  /**
   * The writer adjusts the level through `through` and reads it at once through `then`;
   * replay is paused meanwhile, so nothing depends on how fast this machine is.
   */
  const readOwnWrite = async (through: TestServer, then: TestServer, delta: number) => {
    const [{ quantity: before }] = await pair.onStandby<{ quantity: number }>(`SELECT quantity FROM "InventoryLevel" WHERE id = $1`, [levelId]);
    await pair.onStandby('SELECT pg_wal_replay_pause()');
    try {
      const behindBefore = await metric(then, 'db_reads_total', { target: 'primary', reason: 'behind' });
      const adjusted = await graphql(through, writer, ADJUST, { input: { inventoryLevelId: levelId, quantityDelta: delta, reason: 'replica test' } });
      expect(adjusted.errors).toBeUndefined();
      expect(await quantity(writer, then)).toBe(before + delta);
      expect(await metric(then, 'db_reads_total', { target: 'primary', reason: 'behind' })).toBeGreaterThan(behindBefore);
      // Another client is still served by the standby, which has not replayed the write.
      expect(await quantity(reader, then)).toBe(before);
      const [{ quantity: onStandby }] = await pair.onStandby<{ quantity: number }>(`SELECT quantity FROM "InventoryLevel" WHERE id = $1`, [levelId]);
      expect(onStandby).toBe(before);
    } finally {
      await pair.onStandby('SELECT pg_wal_replay_resume()');
    }
    // Once replayed, the other client sees it too, from the standby.
    await waitFor(async () => ((await quantity(reader, then)) === before + delta ? true : undefined), 'the standby to replay the write', 30_000, 200);
  };

  it('answers a client right after its own write with the write, from the primary, while the standby has not replayed it', async () => {
    await readOwnWrite(server, server, 3);
  });

  it('does so on another instance too: the position is kept on the primary when there is no Redis', async () => {
    expect(server.db.replicas?.positionStore).toBe('primary');
    await readOwnWrite(server, other, 1);
    await readOwnWrite(other, server, -1);
  });

  it('counts a write made by one statement outside a transaction (the customer upsert) as well', async () => {
    await pair.onStandby('SELECT pg_wal_replay_pause()');
    try {
      const email = 'one-statement@example.com';
      const put = await call(server, 'PUT', `/v2.2/stores/${storeId}/customers`, { secret: writer, body: { email, firstName: 'Ada' } });
      expect(put.status).toBeLessThan(300);
      const customer = async (secret: string) => (await graphql(other, secret, 'query($email: String!) { customer(email: $email) { email } }', { email })).data?.customer;
      expect(await customer(writer)).toEqual({ email });
      // Another client, served by the standby, does not see it yet.
      expect(await customer(reader)).toBeNull();
    } finally {
      await pair.onStandby('SELECT pg_wal_replay_resume()');
    }
  });

  /** The level as SOFA's GET serves it: a validated answer (conditionalRequests.ts). */
  const levelGet = (on: TestServer, headers: Record<string, string> = {}) => call(on, 'GET', `/v3/rest/inventory-level/${levelId}`, { secret: reader, headers });
  const levelOnStandby = async () => (await pair.onStandby<{ quantity: number }>(`SELECT quantity FROM "InventoryLevel" WHERE id = $1`, [levelId]))[0].quantity;
  /** Until the standby has replayed all the primary has written: earlier tests' writes included. */
  const standbyCaughtUp = async () => {
    const [{ lsn }] = await db.sql.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    const replayed = async () => (await pair.onStandby<{ behind: boolean }>('SELECT pg_last_wal_replay_lsn() < $1::pg_lsn AS behind', [lsn]))[0].behind;
    await waitFor(async () => ((await replayed()) ? undefined : true), 'the standby to catch up', 30_000, 100);
  };
  const levelOnPrimary = async () => (await db.prisma.inventoryLevel.findUniqueOrThrow({ where: { id: levelId } })).quantity;

  it("reads a validated GET where its tag's changes are replayed: on the primary while the standby is behind, on the standby once it has caught up", async () => {
    const current = await levelOnPrimary();
    await standbyCaughtUp();
    const fromStandby = await readsServed('replica', 'replica');
    const first = await levelGet(server);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ quantity: current });
    expect(await readsServed('replica', 'replica')).toBeGreaterThan(fromStandby);

    await pair.onStandby('SELECT pg_wal_replay_pause()');
    let changed: Awaited<ReturnType<typeof levelGet>>;
    try {
      const adjusted = await graphql(other, writer, ADJUST, { input: { inventoryLevelId: levelId, quantityDelta: 1, reason: 'validated read' } });
      expect(adjusted.errors).toBeUndefined();
      const behind = await readsServed('primary', 'behind');
      // The reader wrote nothing, yet its tag counts the write: the answer it stands for must hold it.
      changed = await levelGet(server, { 'if-none-match': first.headers.get('etag')! });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ quantity: current + 1 });
      expect(changed.headers.get('etag')).not.toBe(first.headers.get('etag'));
      expect(await readsServed('primary', 'behind')).toBeGreaterThan(behind);
      expect(await levelOnStandby()).toBe(current);
    } finally {
      await pair.onStandby('SELECT pg_wal_replay_resume()');
    }
    await standbyCaughtUp();
    expect((await levelGet(server, { 'if-none-match': changed.headers.get('etag')! })).status).toBe(304);
    const replayed = await readsServed('replica', 'replica');
    const again = await levelGet(server);
    expect(again.headers.get('etag')).toBe(changed.headers.get('etag'));
    expect(again.body).toMatchObject({ quantity: current + 1 });
    expect(await readsServed('replica', 'replica')).toBeGreaterThan(replayed);
  });

  it('or in Redis when REDIS_URL is set', async () => {
    const first = await startInstance({ redisUrl: REDIS_URL });
    const second = await startInstance({ redisUrl: REDIS_URL });
    expect(first.db.replicas?.positionStore).toBe('redis');
    await readOwnWrite(first, second, 2);
    await readOwnWrite(second, first, -2);
  });

  it('leaves a stopped standby out with a metric, serves its reads from the primary, and takes it back once it answers', async () => {
    const leftOutBefore = await metric(server, 'db_replica_left_out_total', { reason: 'down' });
    await pair.stopStandby();
    try {
      await waitFor(async () => ((await metric(server, 'db_replica_in_rotation')) === 0 ? true : undefined), 'the standby to be left out', 30_000, 100);
      expect(await metric(server, 'db_replica_left_out_total', { reason: 'down' })).toBe(leftOutBefore + 1);
      const fromPrimary = await readsServed('primary', 'no_replica');
      expect(await quantity(reader)).toBe(9);
      expect(await readsServed('primary', 'no_replica')).toBe(fromPrimary + 1);
    } finally {
      await pair.startStandby();
    }
    await waitFor(async () => ((await metric(server, 'db_replica_in_rotation')) === 1 ? true : undefined), 'the standby to be back', 60_000, 100);
    const fromReplica = await readsServed('replica', 'replica');
    expect(await quantity(reader)).toBe(9);
    expect(await readsServed('replica', 'replica')).toBe(fromReplica + 1);
  });

  it('leaves a standby lagging past the bound out, and takes it back once it catches up', async () => {
    // Another instance, with a bound of half a second.
    const strictServer = await startInstance({ maxLagMs: 500, probeIntervalMs: 100 });
    // Caught up at first: the fixture was replayed long ago and nothing was written since.
    await waitFor(async () => ((await metric(strictServer, 'db_replica_in_rotation')) === 1 ? true : undefined), 'the standby to be in', 30_000, 100);
    await pair.onStandby('SELECT pg_wal_replay_pause()');
    try {
      const adjusted = await graphql(strictServer, writer, ADJUST, { input: { inventoryLevelId: levelId, quantityDelta: 1, reason: 'replica test' } });
      expect(adjusted.errors).toBeUndefined();
      await waitFor(async () => ((await metric(strictServer, 'db_replica_in_rotation')) === 0 ? true : undefined), 'the standby to be left out', 30_000, 100);
      expect(await metric(strictServer, 'db_replica_left_out_total', { reason: 'lagging' })).toBe(1);
      expect(await metric(strictServer, 'db_replica_lag_seconds')).toBeGreaterThan(0.5);
      const fromPrimary = await metric(strictServer, 'db_reads_total', { target: 'primary', reason: 'no_replica' });
      expect(await quantity(reader, strictServer)).toBe(10);
      expect(await metric(strictServer, 'db_reads_total', { target: 'primary', reason: 'no_replica' })).toBe(fromPrimary + 1);
    } finally {
      await pair.onStandby('SELECT pg_wal_replay_resume()');
    }
    await waitFor(async () => ((await metric(strictServer, 'db_replica_in_rotation')) === 1 ? true : undefined), 'the standby to catch up', 60_000, 100);
  });

  it('goes on serving reads from the standby while the primary is down, and writes answer 503 with Retry-After', async () => {
    // An instance that has authenticated no one yet: nothing is cached.
    const fresh = await startInstance();
    await pair.stopPrimary();
    try {
      expect(await quantity(reader, fresh)).toBe(10);
      expect(await quantity(writer, server)).toBe(10);
      // A validated GET too: its tag's changes are read on the standby, with the position it replayed.
      const validated = await levelGet(fresh);
      expect(validated.status).toBe(200);
      expect(validated.body).toMatchObject({ quantity: 10 });
      expect((await levelGet(fresh, { 'if-none-match': validated.headers.get('etag')! })).status).toBe(304);
      const served = await metric(fresh, 'db_reads_total', { target: 'replica' });
      expect(served).toBeGreaterThan(0);
      // Still ready: the balancer keeps the instance for the reads.
      expect(await (await fetch(`${fresh.url}/readyz`)).json()).toMatchObject({ status: 'reads only' });
      const upsert = await call(server, 'PUT', `/v2.2/stores/${storeId}/customers`, { secret: writer, body: { email: 'during@example.com', firstName: 'Nobody' } });
      expect(upsert.status).toBe(503);
      expect(Number(upsert.headers.get('retry-after'))).toBeGreaterThan(0);
      const adjusted = await graphql(server, writer, ADJUST, { input: { inventoryLevelId: levelId, quantityDelta: 1, reason: 'replica test' } });
      expect(adjusted.errors?.[0].extensions?.code).toBe('UNAVAILABLE');
    } finally {
      await pair.startPrimary();
    }
  });
});
