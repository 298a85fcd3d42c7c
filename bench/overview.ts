// The returns overview at size (issue 43): the v3 query returnsOverview and the dashboard page
// /admin that runs it, over the million orders and returns of bench/returnsAtSize.ts. Target:
// p95 <= 300 ms for the 7-, 30- (the page's default) and 90-day periods and a custom one (whole
// days on the page; in v3 the same days starting and ending between midnights, whose part-days
// are counted from the rows).
//
// The overview reads the rollups the writes keep (migration overview_rollups). The seed writes
// with triggers off, so the rollups are then counted from every row as the migration's backfill
// counts them (overview_rebuild, timed).
//
// Measured as bench/search.ts measures: the service in a child process (NODE_ENV=production), a
// client process of its own (bench/sequentialClient.mjs) making one request after another over
// loopback, WARMUP first, then REQUESTS timed, each checked (HTTP 200, no GraphQL errors), the
// load average beside each (the machine may be shared). Then each statement of one overview of
// each period, as the service runs it, under EXPLAIN (ANALYZE, BUFFERS): the indexes used and the time.
// BENCH_OVERVIEW_REQUESTS (100 timed); BENCH_OVERVIEW_CPU_PROF=<dir> writes the service's CPU profile there.
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDatabase } from '../src/db/client.ts';
import { returnsOverview } from '../src/domain/overview.ts';
import { exited, startService, type Service } from '../test/support/service.ts';
import { waitFor } from '../test/webhooks/support.ts';
import { runClientProcess } from './load.ts';
import { envInt, ORDERS, returnsAtSize, write } from './returnsAtSize.ts';
import { dropOnInterrupt } from './scratchDatabase.ts';

const REQUESTS = envInt('BENCH_OVERVIEW_REQUESTS', 100);
const WARMUP = 10;
const MAX_SECONDS = 30;
const TARGET_MS = 300;
const DAY_MS = 86_400_000;
const WORKER = fileURLToPath(new URL('./sequentialClient.mjs', import.meta.url));

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** Where each figure of the overview comes from (src/domain/overview.ts). */
const SOURCES = [
  ['needing action by status', "rollup 'status' rows of every day, summed per status"],
  ['needing action by age', "the same rows by day; the two days the 3- and 8-day limits fall in counted from Return (storeId, status, createdAt)"],
  ['opened, completed per day', "rollup 'status' and 'completed' rows of the period's days"],
  ['refunds, store credit, fees', "rollup 'completed' and 'fee' rows of the period's days, per currency"],
  ['return rate, top ten SKUs', "rollup 'sku_month' rows of the period's whole months, 'sku_week' rows of the whole weeks around them, 'ordered' and 'returned' rows of the days left, summed per SKU alone (covering indexes of SKU and units)"],
  ['titles of the top ten', "rollup 'ordered' rows of the ten SKUs in the period, found by SKU (storeId, key, day)"],
  ['reasons', "rollup 'reason' rows of the period's days"],
  ['median time to complete', 'ReturnOverviewFact (storeId, closedAt, openSeconds): the exact median of the period'],
  ['part-days (periods between midnights)', 'ReturnOverviewFact by openedAt / closedAt, Order by placedAt, InvoiceItem by occurredAt (the custom v3 period)'],
] as const;

interface Request {
  label: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  graphql: boolean;
}

/** A period the bench asks for: the last `days` whole days up to today, or a custom one. */
interface Period {
  label: string;
  from: Date;
  to: Date;
  /** The dashboard's query for it. */
  query: string;
}

const dayOf = (time: Date) => time.toISOString().slice(0, 10);

/**
 * The presets, and a custom period: on the page 60 whole days ending 20 days ago; in v3 the same
 * days from 09:30 on the first to 17:15 on the last (part-days at both ends, counted from the rows).
 */
function periods(now: Date): { v3: Period; page: Period }[] {
  const tomorrow = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + DAY_MS);
  const preset = (days: number): Period => ({ label: `${days} days`, from: new Date(tomorrow.getTime() - days * DAY_MS), to: tomorrow, query: `period=${days}` });
  const first = new Date(tomorrow.getTime() - 80 * DAY_MS);
  const last = new Date(tomorrow.getTime() - 21 * DAY_MS);
  const custom = `period=custom&from=${dayOf(first)}&to=${dayOf(last)}`;
  return [
    ...[30, 7, 90].map((days) => ({ v3: preset(days), page: preset(days) })),
    {
      v3: { label: 'custom, part-days', from: new Date(first.getTime() + 9.5 * 3_600_000), to: new Date(last.getTime() + 17.25 * 3_600_000), query: custom },
      page: { label: 'custom', from: first, to: new Date(last.getTime() + DAY_MS), query: custom },
    },
  ];
}

function requests(secret: string, session: string, now: Date): Request[] {
  const v3 = ({ label, from, to }: Period): Request => ({
    label: `v3 returnsOverview, ${label}`,
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
      variables: { from: from.toISOString(), to: to.toISOString() },
    }),
    graphql: true,
  });
  const page = ({ label, query }: Period): Request => ({
    label: `page /admin, ${label}`,
    method: 'GET',
    path: `/admin?${query}`,
    headers: { cookie: `merchant_session=${session}` },
    graphql: false,
  });
  return periods(now).flatMap((period) => [v3(period.v3), page(period.page)]);
}

/** Each statement of one overview, as the domain runs it, explained with its plan's scans and time. */
async function explain(url: string, storeId: string, period: Period): Promise<void> {
  const db = await openDatabase(url, { poolSize: 4 });
  const statements: { sql: string; params: unknown[] }[] = [];
  const stop = db.onStatement((statement) => statements.push({ sql: statement.sql, params: statement.params }));
  try {
    await returnsOverview(db.prisma, storeId, { from: period.from, to: period.to });
  } finally {
    stop();
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // As the service runs them (src/domain/overview.ts): JIT's compile time would otherwise be most of what the plans show, and the return rate would be planned in parallel.
    await client.query(`SET jit = off`);
    await client.query(`SET work_mem = '32MB'`);
    await client.query(`SET max_parallel_workers_per_gather = 0`);
    write(`\nplans of the overview of ${period.label} (EXPLAIN ANALYZE, BUFFERS; JIT off, work_mem 32MB, no parallel workers), each statement on its own:`);
    for (const statement of statements) {
      if (statement.params.length === 0) continue;
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, statement.params);
      const lines = rows.map((r) => r['QUERY PLAN']);
      write(`  ${statement.sql.replace(/\s+/g, ' ').trim().slice(0, 110)}...`);
      for (const line of lines.filter((l) => /Scan|Execution Time|JIT|Timing/.test(l))) write(`      ${line.trim().slice(0, 150)}`);
    }
  } finally {
    await client.end();
    await db.close();
  }
}

export async function run(): Promise<void> {
  const database = await returnsAtSize('overview');
  let service: Service | undefined;
  const stopWatching = dropOnInterrupt(database, () => service);
  try {
    const { main, session } = database;
    write(`${REQUESTS} timed requests each after ${WARMUP}`);
    const profile = process.env.BENCH_OVERVIEW_CPU_PROF;
    service = await startService(
      database.url,
      { NODE_ENV: 'production', SEED_WHEN_EMPTY: 'false', MIGRATE_ON_START: 'false', LOG_LEVEL: 'warn', WEBHOOK_DISPATCHER: 'false' },
      'source',
      profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [],
    );
    const base = service.url;
    await waitFor(async () => (await fetch(`${base}/readyz`).then((r) => r.status).catch(() => 0)) === 200, '/readyz', 120_000, 100);
    const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');
    write(`service at ${base} (NODE_ENV=production${profile ? `, CPU profile to ${profile}` : ''}); ${os.cpus().length} cores`);
    const rows: { label: string; p50?: number; p95?: number; n?: number; load: string; error?: string }[] = [];
    const now = new Date();
    for (const request of requests(main.secret, session, now)) {
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
      // Others may share the machine: the 1-minute load average as each request's run ends stands beside its figures.
      const loadAfter = load();
      if ('error' in result) {
        rows.push({ label: request.label, load: loadAfter, error: result.error });
        write(`  ${request.label}: FAILED ${result.error}`);
        continue;
      }
      const sorted = [...result.latencies].sort((a, b) => a - b);
      const row = { label: request.label, p50: percentile(sorted, 50), p95: percentile(sorted, 95), n: sorted.length, load: loadAfter };
      rows.push(row);
      write(`  ${request.label}: p50 ${row.p50.toFixed(1)} ms, p95 ${row.p95.toFixed(1)} ms (${row.n}), load average ${loadAfter}`);
    }
    service.child.kill('SIGTERM');
    await exited(service.child);
    service = undefined;

    for (const period of periods(now)) await explain(database.url, main.storeId, period.v3);
    write('\nwhere each figure comes from:');
    for (const [figure, source] of SOURCES) write(`  ${figure.padEnd(40)} ${source}`);
    const [sizes] = await (async () => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query<{ rollup: number; facts: number }>(`SELECT (SELECT count(*)::int FROM "ReturnsOverviewRollup") AS rollup, (SELECT count(*)::int FROM "ReturnOverviewFact") AS facts`)).rows;
      } finally {
        await client.end();
      }
    })();
    write(`  rollup rows ${sizes.rollup}, facts ${sizes.facts}`);

    write(`\nreturns overview, ${ORDERS} orders / returns in one store`);
    write(`  ${'request'.padEnd(40)}${'p50 ms'.padStart(9)}${'p95 ms'.padStart(9)}${'n'.padStart(5)}  ${'load average'.padEnd(16)}target`);
    for (const row of rows) {
      if (row.error) {
        write(`  ${row.label.padEnd(40)}  FAILED: ${row.error}`);
        continue;
      }
      write(
        `  ${row.label.padEnd(40)}${row.p50!.toFixed(1).padStart(9)}${row.p95!.toFixed(1).padStart(9)}${String(row.n).padStart(5)}  ${row.load.padEnd(16)}p95 <= ${TARGET_MS} ms: ${row.p95! <= TARGET_MS ? 'ok' : 'MISSED'}`,
      );
    }
    const failed = rows.filter((r) => r.error);
    if (failed.length > 0) throw new Error(`${failed.length} requests failed`);
  } finally {
    if (service) {
      service.child.kill('SIGTERM');
      await exited(service.child);
    }
    await database.drop();
    stopWatching();
  }
}
