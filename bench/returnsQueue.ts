// The returns queue page at size (issue 43): /admin/returns with its columns (customer, items,
// reasons, requested outcome, total, age), its status tabs with their counts and its bulk form,
// in its default order (last change, newest first) and each of its other orders (by last change
// the other way, by age both ways, by total both ways: the new stored total and its (store,
// total, id) index), over the million orders and returns of bench/returnsAtSize.ts.
// "Today's page" beside it, the returns list before the queue's columns (d1ffa1e~1): its code
// cannot run on today's schema, so its one operation (50 returns, newest change first, the
// fields its columns showed) is replayed as it sent it, over /v3/graphql on the same service:
// the page's statements without its HTML (50 rows of a template, well under a millisecond).
//
// Measured as bench/overview.ts measures: the service in a child process (NODE_ENV=production)
// a client process of its own (bench/sequentialClient.mjs) making
// one request after another over loopback, WARMUP first, then REQUESTS timed, each checked (HTTP
// 200, no GraphQL errors). Then the plan of the returns page statement by total.
// BENCH_QUEUE_REQUESTS (100 timed).
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { RETURN_SORTS } from '../src/web/dashboard/returns.ts';
import { exited, startService, type Service } from '../test/support/service.ts';
import { waitFor } from '../test/webhooks/support.ts';
import { runClientProcess } from './load.ts';
import { envInt, ORDERS, returnsAtSize, write } from './returnsAtSize.ts';
import { dropOnInterrupt } from './scratchDatabase.ts';

const REQUESTS = envInt('BENCH_QUEUE_REQUESTS', 100);
const WARMUP = 10;
const MAX_SECONDS = 30;
const WORKER = fileURLToPath(new URL('./sequentialClient.mjs', import.meta.url));

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

/** The returns list's one operation before the queue's columns (src/web/operations.ts at d1ffa1e~1), as it sent it. */
const TODAYS_OPERATION = `query Returns($status: [ReturnStatus!], $q: String, $after: String) {
    returns(first: 50, after: $after, status: $status, query: $q) {
      nodes { id number status type createdAt updatedAt currency
  order { id name }
  total { amount currency } } pageInfo { hasNextPage endCursor } } }`;

interface Request {
  label: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  graphql: boolean;
}

function requests(secret: string, session: string): Request[] {
  const today: Request = {
    label: "today's page (its operation, v3)",
    method: 'POST',
    path: '/v3/graphql',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: TODAYS_OPERATION, variables: {} }),
    graphql: true,
  };
  const page = (sort: string): Request => ({
    label: `queue ${sort === 'updated-desc' ? 'default (updated-desc)' : `sort=${sort}`}`,
    method: 'GET',
    path: `/admin/returns${sort === 'updated-desc' ? '' : `?sort=${sort}`}`,
    headers: { cookie: `merchant_session=${session}` },
    graphql: false,
  });
  return [today, ...Object.keys(RETURN_SORTS).map(page)];
}

export async function run(): Promise<void> {
  const database = await returnsAtSize('queue');
  let service: Service | undefined;
  const stopWatching = dropOnInterrupt(database, () => service);
  try {
    const { main, session } = database;
    write(`${REQUESTS} timed requests each after ${WARMUP}`);
    service = await startService(database.url, { NODE_ENV: 'production', SEED_WHEN_EMPTY: 'false', MIGRATE_ON_START: 'false', LOG_LEVEL: 'warn', WEBHOOK_DISPATCHER: 'false' }, 'source');
    const base = service.url;
    await waitFor(async () => (await fetch(`${base}/readyz`).then((r) => r.status).catch(() => 0)) === 200, '/readyz', 120_000, 100);
    write(`service at ${base} (NODE_ENV=production); load average before: ${load()} (${os.cpus().length} cores)`);
    const rows: { label: string; p50?: number; p95?: number; n?: number; error?: string }[] = [];
    for (const request of requests(main.secret, session)) {
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

    const explainer = new pg.Client({ connectionString: database.url });
    await explainer.connect();
    try {
      const { rows: plan } = await explainer.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, BUFFERS) SELECT id FROM "Return" WHERE "storeId" = $1 AND status <> 'deleted' ORDER BY total DESC, id DESC LIMIT 51`,
        [main.storeId],
      );
      write('\nthe first page by total (EXPLAIN ANALYZE):');
      for (const line of plan.map((r) => r['QUERY PLAN']).filter((l) => /Scan|Execution Time/.test(l))) write(`  ${line.trim().slice(0, 150)}`);
    } finally {
      await explainer.end();
    }

    const baseline = rows[0].p50;
    write(`\nreturns queue page, ${ORDERS} orders / returns in one store; beside it today's page (its operation replayed)`);
    write(`  ${'request'.padEnd(36)}${'p50 ms'.padStart(9)}${'p95 ms'.padStart(9)}${'n'.padStart(5)}  p50 / today's`);
    for (const row of rows) {
      if (row.error) {
        write(`  ${row.label.padEnd(36)}  FAILED: ${row.error}`);
        continue;
      }
      const ratio = baseline ? (row.p50! / baseline).toFixed(2) : '-';
      write(`  ${row.label.padEnd(36)}${row.p50!.toFixed(1).padStart(9)}${row.p95!.toFixed(1).padStart(9)}${String(row.n).padStart(5)}  ${ratio}`);
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
