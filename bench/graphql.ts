// The v3 inbound-shipment graph: SQL statements per request and median latency of
//   inboundShipments(first: N) { nodes { items(first: 10) { nodes { product { title
//     inventoryLevels(first: 10) { nodes { available location { name } } } } } }
//     purchaseOrders(first: 10) { nodes { name } } } }
// at N = 1, 10, 100 over real HTTP, on an in-memory PGlite and on a scratch
// PostgreSQL database (dropped after), every statement counted. The count must not
// grow with N (batched loading, no N+1). The HTTP requests come from a client in a process of its
// own (bench/sequentialClient.mjs, one request after another on one kept-alive connection), so its
// work (decoding and parsing 174 KB answers) never shares the service's event loop; it asks for
// compression as a browser does (Accept-Encoding: br, gzip), so the service pays for compressing. Then the same query executed by yoga
// in process (the door's executor), and on reads answered from memory (bench/readsInMemory.ts: the
// query's cost above the database). The baseline: one hand-written SQL query returning the same
// JSON for N = 100 (run in process, so it pays no HTTP or authentication). The N = 100 requests
// and the baseline's queries are timed in alternating rounds, so a change in the machine's load
// (others share it) weighs on both sides of the ratio alike; beside the latencies, this process's
// CPU per request (on PGlite the database's work included, as it runs in this thread).
// BENCH_PROFILE=graphql writes a CPU profile of this process (the service alone) over RUNS more
// N = 100 requests over HTTP, taken apart from the timed ones (bench/profiles/, one per database),
// with a summary.
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { graphqlJsExecution } from '../src/v3/door.ts';
import { createYoga } from 'graphql-yoga';
import { authenticate } from '../src/auth/authenticate.ts';
import { SCOPES } from '../src/auth/scopes.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import type { Database } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { newId } from '../src/domain/ids.ts';
import { Decimal } from '../src/domain/money.ts';
import { createApiClient } from '../src/domain/stores.ts';
import { createLogger } from '../src/observability/logger.ts';
import { contextFactory, type GraphQLContext } from '../src/schema/context.ts';
import { contextServices } from '../src/process/contextServices.ts';
import { schema } from '../src/schema/index.ts';
import { createApp } from '../src/process/server.ts';
import { withReadsInMemory } from './readsInMemory.ts';
import { runClientProcess, startProfile } from './load.ts';

const SHIPMENTS = 100;
const ITEMS_PER_SHIPMENT = 10;
const PRODUCTS = 50;
const RUNS = 25;
/** The N = 100 comparison: this many rounds of RUNS / ROUNDS requests, then as many baseline queries. */
const ROUNDS = 5;
const PROFILED = (process.env.BENCH_PROFILE ?? '').split(',').includes('graphql');
const PROFILE_DIR = fileURLToPath(new URL('./profiles', import.meta.url));
const CLIENT = fileURLToPath(new URL('./sequentialClient.mjs', import.meta.url));
const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

const QUERY = `query Bench($n: Int!) {
  inboundShipments(first: $n) { nodes {
    items(first: 10) { nodes { product { title inventoryLevels(first: 10) { nodes { available location { name } } } } } }
    purchaseOrders(first: 10) { nodes { name } }
  } }
}`;

// The floor of the query: the whole answer built by PostgreSQL as one JSON value.
const HAND_WRITTEN_SQL = `
SELECT json_build_object('data', json_build_object('inboundShipments', json_build_object('nodes',
  coalesce((SELECT json_agg(s.node ORDER BY s."createdAt", s.id) FROM (
    SELECT sh.id, sh."createdAt", json_build_object(
      'items', json_build_object('nodes', (
        SELECT coalesce(json_agg(json_build_object('product', json_build_object(
          'title', p.title,
          'inventoryLevels', json_build_object('nodes', (
            SELECT coalesce(json_agg(json_build_object('available', l.quantity - l.committed - l.reserved, 'location', json_build_object('name', loc.name)) ORDER BY l.id), '[]'::json)
            FROM (SELECT * FROM "InventoryLevel" l2 WHERE l2."productId" = p.id ORDER BY l2.id LIMIT 10) l
            JOIN "Location" loc ON loc.id = l."locationId"))))
          ORDER BY i."createdAt", i.id), '[]'::json)
        FROM (SELECT * FROM "InboundShipmentItem" i2 WHERE i2."shipmentId" = sh.id ORDER BY i2."createdAt", i2.id LIMIT 10) i
        JOIN "Product" p ON p.id = i."productId")),
      'purchaseOrders', json_build_object('nodes', (
        SELECT coalesce(json_agg(json_build_object('name', po.name) ORDER BY po.name), '[]'::json)
        FROM "InboundShipmentPurchaseOrder" x JOIN "PurchaseOrder" po ON po.id = x."purchaseOrderId" WHERE x."shipmentId" = sh.id))
    ) AS node
    FROM "InboundShipment" sh WHERE sh."storeId" = $1 ORDER BY sh."createdAt", sh.id LIMIT $2) s), '[]'::json)))) AS answer`;

interface CountingDatabase extends Database {
  statements: number;
}

/** The database with a count of the statements Prisma runs on it (every statement of a request). */
function counting(db: Database): CountingDatabase {
  const counted = Object.assign(db, { statements: 0 });
  db.onStatement(() => counted.statements++);
  return counted;
}

/** A scratch PostgreSQL database, dropped on close. */
async function openScratchPostgres(): Promise<CountingDatabase> {
  const name = `bench_graphql_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  const db = counting(await openDatabase(url.toString(), { poolSize: 10 }));
  const close = db.close.bind(db);
  db.close = async () => {
    await close();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  };
  return db;
}

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** One merchant with PRODUCTS products stocked at two locations and SHIPMENTS shipments, each tied to a purchase order. */
async function seed(db: Database): Promise<{ storeId: string; secret: string }> {
  const { prisma } = db;
  const storeId = newId('store');
  await prisma.store.create({ data: { id: storeId, name: 'Bench store' } });
  const locations = [newId('location'), newId('location')];
  await prisma.location.createMany({ data: locations.map((id, i) => ({ id, storeId, name: `Location ${i + 1}` })) });
  const products = Array.from({ length: PRODUCTS }, (_, i) => ({ id: newId('product'), storeId, title: `Product ${i + 1}`, sku: `SKU-${i + 1}` }));
  await prisma.product.createMany({ data: products });
  await prisma.inventoryLevel.createMany({
    data: products.flatMap((p, i) => locations.map((locationId) => ({ id: newId('inventoryLevel'), storeId, productId: p.id, locationId, quantity: 100 + i }))),
  });
  for (let s = 0; s < SHIPMENTS; s++) {
    const purchaseOrderId = newId('purchaseOrder');
    const lines = Array.from({ length: ITEMS_PER_SHIPMENT }, (_, i) => ({
      poItemId: newId('purchaseOrderItem'),
      productId: products[(s * ITEMS_PER_SHIPMENT + i) % PRODUCTS].id,
    }));
    await prisma.purchaseOrder.create({
      data: {
        id: purchaseOrderId,
        storeId,
        name: `PO-${1000 + s}`,
        status: 'ORDERED',
        items: { create: lines.map((l) => ({ id: l.poItemId, productId: l.productId, quantity: 20, unitCost: new Decimal('4.5') })) },
      },
    });
    await prisma.inboundShipment.create({
      data: {
        id: newId('inboundShipment'),
        storeId,
        locationId: locations[s % 2],
        status: 'IN_TRANSIT',
        carrier: 'Bench Freight',
        items: { create: lines.map((l) => ({ id: newId('inboundShipmentItem'), productId: l.productId, purchaseOrderItemId: l.poItemId, quantity: 20 })) },
        purchaseOrders: { create: [{ purchaseOrderId }] },
      },
    });
  }
  const client = await createApiClient(prisma, { storeId, name: 'bench', scopes: SCOPES });
  return { storeId, secret: client.secret };
}

/** The 1-minute load average as a figure is taken: others may share the machine. */
function loadAverage(): string {
  return os.loadavg()[0].toFixed(2);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

interface Measurement {
  statements: number;
  medianMs: number;
}

/** This process's CPU time (user and system, every thread) in ms. */
function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Statements of one request (after a warm-up), then the median of RUNS requests. */
async function measure(db: CountingDatabase, request: () => Promise<unknown>): Promise<Measurement> {
  await request();
  await request();
  db.statements = 0;
  await request();
  const statements = db.statements;
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await request();
    times.push(performance.now() - started);
  }
  return { statements, medianMs: median(times) };
}

function check(body: unknown, n: number): void {
  const result = body as { errors?: unknown[]; data?: { inboundShipments: { nodes: { items: { nodes: unknown[] } }[] } } };
  if (result.errors) throw new Error(`query failed: ${JSON.stringify(result.errors)}`);
  const nodes = result.data!.inboundShipments.nodes;
  if (nodes.length !== n || nodes.some((s) => s.items.nodes.length !== ITEMS_PER_SHIPMENT)) {
    throw new Error(`unexpected result size for N=${n}`);
  }
}

async function benchmark(db: CountingDatabase, label: string): Promise<void> {
  await applyMigrations(db);
  const { secret, storeId } = await seed(db);
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const logger = createLogger('silent');
  const app = createApp({ db, config, logger });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const { port } = app.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/v3/graphql`;

  /** Requests of the client process: `count` timed after `warmup`, the last answer handed back to check. */
  const fromClient = async (n: number, warmup: number, count: number): Promise<number[]> => {
    const result = await runClientProcess<{ latencies: number[]; answer: { text: string; encoding: string } } | { error: string }>(CLIENT, {
      url,
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'accept-encoding': 'br, gzip' },
      body: JSON.stringify({ query: QUERY, variables: { n } }),
      warmup,
      count,
      maxSeconds: 120,
      graphql: true,
      lastAnswer: true,
    });
    if ('error' in result) throw new Error(`N=${n}: ${result.error}`);
    if (count === 0) return result.latencies;
    if (n === 100 && result.answer.encoding === 'identity') throw new Error('the N = 100 answer came uncompressed: the bench would not measure what a client gets');
    check(JSON.parse(result.answer.text), n);
    return result.latencies;
  };
  /** Statements of one request after a warm-up. */
  const statementsOverHttp = async (n: number): Promise<number> => {
    await fromClient(n, 2, 0);
    db.statements = 0;
    await fromClient(n, 0, 1);
    return db.statements;
  };
  /** Statements of one request after a warm-up, then the median of RUNS requests. */
  const overHttp = async (n: number): Promise<Measurement> => {
    const statements = await statementsOverHttp(n);
    return { statements, medianMs: median(await fromClient(n, 0, RUNS)) };
  };
  const handWritten = async (): Promise<void> => {
    const [row] = await db.sql.query<{ answer: unknown }>(HAND_WRITTEN_SQL, [storeId, 100]);
    const answer = typeof row.answer === 'string' ? JSON.parse(row.answer) : row.answer;
    check(answer, 100);
    JSON.stringify(answer);
  };

  process.stdout.write(`\n${label}: ${SHIPMENTS} shipments x ${ITEMS_PER_SHIPMENT} items, ${PRODUCTS} products at 2 locations\n`);
  process.stdout.write('over HTTP (/v3/graphql, authentication included; client in its own process, Accept-Encoding: br, gzip):\n');
  process.stdout.write('     N  SQL statements  median ms  load average\n');
  for (const n of [1, 10]) {
    const m = await overHttp(n);
    process.stdout.write(`${String(n).padStart(6)}  ${String(m.statements).padStart(14)}  ${m.medianMs.toFixed(1).padStart(9)}  ${loadAverage()}\n`);
  }
  const statements100 = await statementsOverHttp(100);
  await handWritten();
  await handWritten();
  const timed = { http: [] as number[], sql: [] as number[] };
  const cpuMs = { http: 0, sql: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    // Each round's client process is new: its first request (a new connection, its own code not
    // yet compiled) is a warm-up. Starting it costs this process CPU too (tens of ms): a client
    // that sends the warm-up alone measures that, to take it off the timed requests' share.
    let cpuBefore = ownCpuMs();
    await fromClient(100, 1, 0);
    const clientStartMs = ownCpuMs() - cpuBefore;
    cpuBefore = ownCpuMs();
    timed.http.push(...(await fromClient(100, 1, RUNS / ROUNDS)));
    cpuMs.http += ownCpuMs() - cpuBefore - clientStartMs;
    cpuBefore = ownCpuMs();
    for (let i = 0; i < RUNS / ROUNDS; i++) {
      const started = performance.now();
      await handWritten();
      timed.sql.push(performance.now() - started);
    }
    cpuMs.sql += ownCpuMs() - cpuBefore;
  }
  const overHttp100: Measurement = { statements: statements100, medianMs: median(timed.http) };
  const sql: Measurement = { statements: 1, medianMs: median(timed.sql) };
  process.stdout.write(`${String(100).padStart(6)}  ${String(statements100).padStart(14)}  ${overHttp100.medianMs.toFixed(1).padStart(9)}  ${loadAverage()}\n`);
  if (PROFILED) {
    const profile = await startProfile();
    await fromClient(100, 0, RUNS);
    await profile.stop(path.join(PROFILE_DIR, `graphql-${label.split(' ')[0].toLowerCase()}-n100.cpuprofile`));
  }

  // The executor alone: the same schema and context, yoga with the door's executor.
  const auth = await authenticate(db.prisma, secret);
  if ('status' in auth) throw new Error(auth.message);
  const yoga = createYoga<{ gqlContext: GraphQLContext }>({
    schema,
    logging: false,
    plugins: [graphqlJsExecution],
    context: ({ gqlContext }) => gqlContext,
  });
  const inProcess = (readsFrom: Database) => async () => {
    const gqlContext = contextFactory({ db: readsFrom, logger, services: contextServices(config) })({ auth, door: 'v3', requestId: 'bench' });
    const response = await yoga.fetch(
      'http://bench/graphql',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY, variables: { n: 100 } }) },
      { gqlContext },
    );
    check(await response.json(), 100);
  };
  process.stdout.write('executor only (yoga in process), N = 100:\n');
  const executor = await measure(db, inProcess(db));
  process.stdout.write(`  graphql-js   ${String(executor.statements).padStart(3)} statements  median ${executor.medianMs.toFixed(1)} ms\n`);
  // graphql-js once more with every read answered from memory: what the query costs above the database.
  const inMemory = await measure(db, inProcess(withReadsInMemory(db)));
  if (inMemory.statements !== 0) throw new Error(`reads in memory still ran ${inMemory.statements} statements`);
  process.stdout.write(`  graphql-js, every read answered from memory: median ${inMemory.medianMs.toFixed(1)} ms\n`);

  process.stdout.write(
    `hand-written SQL, N = 100: 1 statement, median ${sql.medianMs.toFixed(1)} ms; ` +
      `v3 over HTTP / SQL median latency: ${(overHttp100.medianMs / sql.medianMs).toFixed(2)} (target <= 1.5; in ${ROUNDS} alternating rounds); ` +
      `CPU of this process per request: v3 over HTTP ${(cpuMs.http / RUNS).toFixed(1)} ms, SQL ${(cpuMs.sql / RUNS).toFixed(1)} ms` +
      (db.kind === 'pglite' ? ` (the database's work included), ratio ${(cpuMs.http / cpuMs.sql).toFixed(2)}; ` : ' (the database works in its own process); ') +
      `reads in memory / SQL: ${(inMemory.medianMs / sql.medianMs).toFixed(2)} (the least any change to how data is read could reach); ` +
      `load average ${loadAverage()}\n`,
  );
  await app.shutdown(1_000);
}

export async function run(): Promise<void> {
  const pglite = counting(await openDatabase('pglite:memory:'));
  try {
    await benchmark(pglite, 'PGlite (in memory)');
  } finally {
    await pglite.close();
  }
  if (!(await postgresReachable())) {
    process.stdout.write(`\nPostgreSQL at ${POSTGRES_ADMIN_URL} not reachable: skipped (set BENCH_POSTGRES_URL)\n`);
    return;
  }
  const postgres = await openScratchPostgres();
  try {
    await benchmark(postgres, 'PostgreSQL');
  } finally {
    await postgres.close();
  }
}
