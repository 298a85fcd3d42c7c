// The returns overview at size (issue 43): the v3 query returnsOverview and the dashboard page
// /admin that runs it, over 1,000,000 orders (3,000,000 lines) and 1,000,000 returns in one
// store (bench/searchSeed.ts, seeded as `npm run bench -- search` seeds them, search documents
// aside), with each
// return's history (its creation, and its completion for the 45% complete: the day its
// closedAt counts on) and its processing fee on the store's monthly invoices, beside a small
// second store. Target: p95 <= 300 ms for the 7-, 30- (the page's default) and 90-day periods.
//
// The overview reads the rollups the writes keep (migration overview_rollups). The seed writes
// with triggers off, so the rollups are then counted from every row as the migration's backfill
// counts them (overview_rebuild, timed).
//
// Measured as bench/search.ts measures: the service in a child process (NODE_ENV=production)
// on a scratch PostgreSQL database, a client process of its own (bench/searchWorker.mjs) making
// one request after another over loopback, WARMUP first, then REQUESTS timed, each checked
// (HTTP 200, no GraphQL errors). Then each statement of one overview of each period, as the
// service runs it, under EXPLAIN (ANALYZE, BUFFERS): the indexes used and the time.
// Sizes: BENCH_SEARCH_ORDERS (1000000; returns alike); BENCH_OVERVIEW_REQUESTS (100 timed).
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SCOPES } from '../src/auth/scopes.ts';
import { startSession } from '../src/auth/merchantUsers.ts';
import { createMerchantUser } from '../src/domain/merchantUsers.ts';
import { openDatabase } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { returnsOverview } from '../src/domain/overview.ts';
import { createApiClient, createStore } from '../src/domain/stores.ts';
import { exited, startService, type Service } from '../test/support/service.ts';
import { waitFor } from '../test/webhooks/support.ts';
import { runClientProcess } from './load.ts';
import { dropOnInterrupt, scratchDatabase } from './scratchDatabase.ts';
import { seedStore, type SeedSize } from './searchSeed.ts';

const envInt = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${process.env[name]}`);
  return value;
};
const ORDERS = envInt('BENCH_SEARCH_ORDERS', 1_000_000);
const SIZE: SeedSize = { orders: ORDERS, customers: Math.max(100, Math.round(ORDERS / 10)), products: Math.max(100, Math.round(ORDERS / 20)) };
const OTHER: SeedSize = { orders: Math.max(200, Math.round(ORDERS / 50)), customers: 100, products: 100 };
const REQUESTS = envInt('BENCH_OVERVIEW_REQUESTS', 100);
const WARMUP = 10;
const MAX_SECONDS = 30;
const TARGET_MS = 300;
const DAY_MS = 86_400_000;
const FEE = '0.75';
const WORKER = fileURLToPath(new URL('./searchWorker.mjs', import.meta.url));

const write = (line = '') => process.stdout.write(`${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await fn();
  write(`  ${what.padEnd(52)} ${seconds(performance.now() - started).padStart(9)}`);
  return result;
}

/** Tables the seed fills by the million: their secondary indexes are made after the rows. */
const BULK_TABLES = ['Customer', 'Product', 'Order', 'OrderLineItem', 'Return', 'ReturnItem'];

/**
 * The stores' rows as bench/search.ts seeds them, without what only search reads: the search
 * documents are not rebuilt and their trigram (GIN) indexes not made again (most of that
 * bench's seeding time; the overview reads neither).
 */
export async function seed(client: pg.Client, stores: { storeId: string; tag: string; size: SeedSize; label: string }[]): Promise<void> {
  const now = new Date();
  await client.query(`SET work_mem = '256MB'`);
  await client.query(`SET maintenance_work_mem = '1GB'`);
  await client.query('SET synchronous_commit = off');
  const { rows: indexes } = await client.query<{ name: string; def: string; method: string }>(
    `SELECT ic.relname AS name, pg_get_indexdef(i.indexrelid) AS def, am.amname AS method
     FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid JOIN pg_am am ON am.oid = ic.relam
     JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = 'public' AND t.relname = ANY($1) AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    [BULK_TABLES],
  );
  for (const index of indexes) await client.query(`DROP INDEX "${index.name}"`);
  await client.query('SET session_replication_role = replica');
  for (const { storeId, tag, size, label } of stores) {
    write(`  ${label}: ${size.orders} orders, ${size.customers} customers, ${size.products} products (triggers off)`);
    await seedStore(client, { storeId, tag, size, now }, ({ table, rows, ms }) => write(`    ${table.padEnd(30)} ${String(rows).padStart(9)} rows ${seconds(ms).padStart(9)}`));
  }
  await client.query('RESET session_replication_role');
  const btree = indexes.filter((index) => index.method !== 'gin');
  await timed(`b-tree indexes again (${btree.length}; the search GIN indexes left out)`, async () => {
    for (const index of btree) await client.query(index.def);
  });
  await client.query('RESET ALL');
}

/**
 * What the search seed leaves out and the overview reads: every return's creation in its
 * history, a complete one's completion (at its updatedAt, 1 hour to 10 days after opening), and
 * its processing fee on the invoice of its month.
 */
async function seedHistoryAndFees(client: pg.Client, storeIds: string[]): Promise<void> {
  await client.query(`SET work_mem = '256MB'`);
  await client.query('SET synchronous_commit = off');
  // As the rest of the seed: the rollups are counted once below, not a row at a time.
  await client.query('SET session_replication_role = replica');
  await timed('ReturnStatusChange: creation of every return', () =>
    client.query(
      `INSERT INTO "ReturnStatusChange" ("id", "returnId", "operation", "fromStatus", "toStatus", "createdAt")
       SELECT 'rsc_c' || "id", "id", 'create', NULL, 'open', "createdAt" FROM "Return" WHERE "storeId" = ANY($1)`,
      [storeIds],
    ),
  );
  await timed('ReturnStatusChange: completion of every complete one', () =>
    client.query(
      `INSERT INTO "ReturnStatusChange" ("id", "returnId", "operation", "fromStatus", "toStatus", "createdAt")
       SELECT 'rsc_p' || "id", "id", 'process', 'open', 'complete', "updatedAt" FROM "Return" WHERE "storeId" = ANY($1) AND "status" = 'complete'`,
      [storeIds],
    ),
  );
  await timed('Invoice per month, InvoiceItem per return (its fee)', async () => {
    await client.query(
      `INSERT INTO "Invoice" ("id", "storeId", "month", "currency", "createdAt", "updatedAt")
       SELECT 'inv_' || md5("storeId" || m), "storeId", m, 'USD', m, m
       FROM (SELECT DISTINCT "storeId", date_trunc('month', "createdAt") AS m FROM "Return" WHERE "storeId" = ANY($1)) AS months`,
      [storeIds],
    );
    await client.query(
      `INSERT INTO "InvoiceItem" ("id", "invoiceId", "kind", "description", "subjectId", "amount", "occurredAt")
       SELECT 'ini_' || r."id", 'inv_' || md5(r."storeId" || date_trunc('month', r."createdAt")), 'RETURN_PROCESSING_FEE',
              'Processing fee of return ' || r."number", r."id", $2, r."createdAt"
       FROM "Return" AS r WHERE r."storeId" = ANY($1)`,
      [storeIds, FEE],
    );
  });
  await client.query('RESET session_replication_role');
  await timed("overview rollups from every row (the migration's backfill)", () => client.query('SELECT overview_rebuild()'));
  await timed('VACUUM ANALYZE', () => client.query('VACUUM ANALYZE'));
  await client.query('RESET ALL');
}

/** Where each figure of the overview comes from (src/domain/overview.ts). */
const SOURCES = [
  ['needing action by status', "rollup 'status' rows of every day, summed per status"],
  ['needing action by age', "the same rows by day; the two days the 3- and 8-day limits fall in counted from Return (storeId, status, createdAt)"],
  ['opened, completed per day', "rollup 'status' and 'completed' rows of the period's days"],
  ['refunds, store credit, fees', "rollup 'completed' and 'fee' rows of the period's days, per currency"],
  ['return rate, top ten SKUs', "rollup 'ordered' and 'returned' rows of the period's days, per SKU"],
  ['reasons', "rollup 'reason' rows of the period's days"],
  ['median time to complete', 'ReturnOverviewFact (storeId, closedAt, openSeconds): the exact median of the period'],
  ['part-days (periods between midnights)', 'ReturnOverviewFact by openedAt / closedAt, Order by placedAt, InvoiceItem by occurredAt (none in these periods)'],
] as const;

interface Request {
  label: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  graphql: boolean;
}

function requests(secret: string, session: string, now: Date): Request[] {
  const tomorrow = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + DAY_MS);
  const v3 = (days: number): Request => ({
    label: `v3 returnsOverview, ${days} days`,
    method: 'POST',
    path: '/v3/graphql',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    // The dashboard's document, so both doors ask the same of the database.
    body: JSON.stringify({
      query: `query ReturnsOverview($from: DateTime!, $to: DateTime!) { returnsOverview(from: $from, to: $to) {
        asOf needingAction { total byStatus { status count } byAge { age minDays maxDays count } } days { day opened completed }
        refunds { currency refunded { amount } storeCredit { amount } days { day refunded { amount } storeCredit { amount } } }
        fees { currency total { amount } days { day amount { amount } } }
        returnRate { unitsOrdered unitsReturned rate top { sku title unitsOrdered unitsReturned rate } }
        reasons { reason units returns } completion { completed medianSeconds } } }`,
      variables: { from: new Date(tomorrow.getTime() - days * DAY_MS).toISOString(), to: tomorrow.toISOString() },
    }),
    graphql: true,
  });
  const page = (days: number): Request => ({
    label: `page /admin?period=${days}`,
    method: 'GET',
    path: `/admin?period=${days}`,
    headers: { cookie: `merchant_session=${session}` },
    graphql: false,
  });
  return [v3(30), page(30), v3(7), page(7), v3(90), page(90)];
}

/** Each statement of one overview, as the domain runs it, explained with its plan's scans and time. */
async function explain(url: string, storeId: string, days: number): Promise<void> {
  const db = await openDatabase(url, { poolSize: 4 });
  const statements: { sql: string; params: unknown[] }[] = [];
  const stop = db.onStatement((statement) => statements.push({ sql: statement.sql, params: statement.params }));
  const to = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) + DAY_MS);
  try {
    await returnsOverview(db.prisma, storeId, { from: new Date(to.getTime() - days * DAY_MS), to });
  } finally {
    stop();
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    write(`\nplans of the ${days}-day overview (EXPLAIN ANALYZE, BUFFERS), each statement on its own:`);
    for (const statement of statements) {
      if (statement.params.length === 0) continue;
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, statement.params);
      const lines = rows.map((r) => r['QUERY PLAN']);
      write(`  ${statement.sql.replace(/\s+/g, ' ').trim().slice(0, 110)}...`);
      for (const line of lines.filter((l) => /Scan|Execution Time/.test(l))) write(`      ${line.trim().slice(0, 150)}`);
    }
  } finally {
    await client.end();
    await db.close();
  }
}

export async function run(): Promise<void> {
  const scratch = await scratchDatabase('overview');
  let service: Service | undefined;
  const stopWatching = dropOnInterrupt(scratch, () => service);
  try {
    write(`scratch database ${new URL(scratch.url).pathname.slice(1)}; ${SIZE.orders} orders and returns; ${REQUESTS} timed requests each after ${WARMUP}`);
    const db = await openDatabase(scratch.url, { poolSize: 2 });
    let main: { storeId: string; secret: string };
    let other: { storeId: string; secret: string };
    let session: string;
    try {
      await timed('migrations', () => applyMigrations(db));
      const makeStore = async (name: string) => {
        const { id: storeId } = await createStore(db.prisma, { name });
        const { secret } = await createApiClient(db.prisma, { storeId, name: 'overview bench', scopes: SCOPES });
        return { storeId, secret };
      };
      main = await makeStore('Overview bench');
      other = await makeStore('Overview bench, other store');
      const user = await createMerchantUser(db.prisma, { storeId: main.storeId, email: 'bench@example.com', password: 'overview-bench-password' });
      session = await startSession(db.prisma, user.id);
    } finally {
      await db.close();
    }
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    try {
      await seed(client, [
        { storeId: main.storeId, tag: 'a', size: SIZE, label: 'store' },
        { storeId: other.storeId, tag: 'b', size: OTHER, label: 'other store' },
      ]);
      await seedHistoryAndFees(client, [main.storeId, other.storeId]);
    } finally {
      await client.end();
    }

    service = await startService(scratch.url, { NODE_ENV: 'production', SEED_WHEN_EMPTY: 'false', MIGRATE_ON_START: 'false', LOG_LEVEL: 'warn', WEBHOOK_DISPATCHER: 'false' }, 'source');
    const base = service.url;
    await waitFor(async () => (await fetch(`${base}/readyz`).then((r) => r.status).catch(() => 0)) === 200, '/readyz', 120_000, 100);
    const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');
    write(`service at ${base} (NODE_ENV=production); load average before: ${load()} (${os.cpus().length} cores)`);
    const rows: { label: string; p50?: number; p95?: number; n?: number; error?: string }[] = [];
    for (const request of requests(main.secret, session, new Date())) {
      const result = await runClientProcess<{ latencies: number[] } | { error: string }>(WORKER, {
        url: `${base}${request.path}`,
        method: request.method,
        headers: request.headers,
        body: request.body,
        warmup: WARMUP,
        count: REQUESTS,
        maxSeconds: MAX_SECONDS,
        graphql: request.graphql,
      });
      if ('error' in result) {
        rows.push({ label: request.label, error: result.error });
        write(`  ${request.label}: FAILED ${result.error}`);
        continue;
      }
      const sorted = [...result.latencies].sort((a, b) => a - b);
      const row = { label: request.label, p50: percentile(sorted, 50), p95: percentile(sorted, 95), n: sorted.length };
      rows.push(row);
      write(`  ${request.label}: p50 ${row.p50.toFixed(1)} ms, p95 ${row.p95.toFixed(1)} ms (${row.n})`);
    }
    write(`  load average after: ${load()}`);
    service.child.kill('SIGTERM');
    await exited(service.child);
    service = undefined;

    for (const days of [7, 30, 90]) await explain(scratch.url, main.storeId, days);
    write('\nwhere each figure comes from:');
    for (const [figure, source] of SOURCES) write(`  ${figure.padEnd(40)} ${source}`);
    const [sizes] = await (async () => {
      const client = new pg.Client({ connectionString: scratch.url });
      await client.connect();
      try {
        return (await client.query<{ rollup: number; facts: number }>(`SELECT (SELECT count(*)::int FROM "ReturnsOverviewRollup") AS rollup, (SELECT count(*)::int FROM "ReturnOverviewFact") AS facts`)).rows;
      } finally {
        await client.end();
      }
    })();
    write(`  rollup rows ${sizes.rollup}, facts ${sizes.facts}`);

    write(`\nreturns overview, ${SIZE.orders} orders / returns in one store`);
    write(`  ${'request'.padEnd(34)}${'p50 ms'.padStart(9)}${'p95 ms'.padStart(9)}${'n'.padStart(5)}  target`);
    for (const row of rows) {
      if (row.error) {
        write(`  ${row.label.padEnd(34)}  FAILED: ${row.error}`);
        continue;
      }
      write(`  ${row.label.padEnd(34)}${row.p50!.toFixed(1).padStart(9)}${row.p95!.toFixed(1).padStart(9)}${String(row.n).padStart(5)}  p95 <= ${TARGET_MS} ms: ${row.p95! <= TARGET_MS ? 'ok' : 'MISSED'}`);
    }
    const failed = rows.filter((r) => r.error);
    if (failed.length > 0) throw new Error(`${failed.length} requests failed`);
  } finally {
    if (service) {
      service.child.kill('SIGTERM');
      await exited(service.child);
    }
    await scratch.drop();
    stopWatching();
  }
}
