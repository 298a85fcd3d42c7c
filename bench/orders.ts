// `npm run bench -- orders`: order creation at flash-sale rate (REST POST /v2.2/stores/{id}/orders,
// three lines that commit stock, a customer), 16 clients in a load process of their own, on one
// store and spread over 8 stores, against
//   - the service, in a process of its own (src/main.ts, NODE_ENV=production) on a scratch
//     PostgreSQL database, and
//   - its floor (bench/ordersFloor.mjs: node:http + pg, one statement an order writing the same
//     rows, events and audit entries), in a process of its own on the same database (stores of
//     its own), measured in the same interleaved rounds;
// each with orders/s, p50/p99 and the CPU time of its process per order (/proc/<pid>/stat). The
// machine's load average is printed beside the rounds: other work on it moves every figure.
//
// BENCH_ORDERS_SECONDS (30) sets the seconds of load a variant gets; 0 leaves the load out.
// Then the bulk import of BENCH_IMPORT_ORDERS (100,000; 0 leaves it out) historical orders through POST
// /v2.2/stores/{id}/orders/bulk, 1,000 a request: orders/s and the service's peak RSS.
//
// Then statements per order as PostgreSQL counts them (pg_stat_statements, top-level statements,
// sorted into BEGIN/COMMIT, a statement of its own naming the audit context and the others), when BENCH_STATEMENTS_URL names a server that loads it
// (shared_preload_libraries=pg_stat_statements; README, Benchmarks): for this code and, with
// BENCH_ORDERS_BEFORE=<a checkout with its node_modules>, for that code, whose own seed and
// in-process server (bench/writeLoads.ts, same names there) make the orders.
import os from 'node:os';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { openDatabase } from '../src/db/client.ts';
import type { Database } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { exited, heapFlags, residentMb, startService, type Service } from '../test/support/service.ts';
import { cpuMsOf, databaseCpuMeter, measureLoad, type LoadRequest, type Variant } from './load.ts';
import { dropOnInterrupt, scratchDatabase } from './scratchDatabase.ts';
import { orderCreateLoad, stockedStore, type StockedStore } from './writeLoads.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FLOOR = fileURLToPath(new URL('./ordersFloor.mjs', import.meta.url));
const CONNECTIONS = 16;
const STORES = 8;
const SECONDS = Number(process.env.BENCH_ORDERS_SECONDS ?? 30);
const ROUNDS = 3;
const IMPORT_ORDERS = Number(process.env.BENCH_IMPORT_ORDERS ?? 100_000);
const IMPORT_REQUEST = 1000;
const COUNTED_ORDERS = 200;

const write = (line: string) => process.stdout.write(`${line}\n`);
const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

/** The floor server on `databaseUrl`, once it listens. */
function startFloor(databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...heapFlags, FLOOR], { env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /listening on (http:\/\/\S+)/.exec(output);
      if (listening) resolve({ child, url: listening[1] });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the floor exited (${code}) before listening:\n${output}`)));
  });
}

/** Order creation on the first of `stores`, sent in turn to each of them. */
function ordersOn(base: string, stores: StockedStore[]): LoadRequest {
  const [first, ...others] = stores.map((store) => orderCreateLoad({ base, ...store }));
  return { ...first, spread: others.map((other) => ({ path: new URL(other.url).pathname, headers: other.headers! })) };
}

/** Rows of each kind per order the stores hold, so that the floor is seen writing what the service writes. */
async function rowsPerOrder(url: string, stores: StockedStore[]): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const ids = stores.map((s) => s.storeId);
    const { rows } = await client.query<Record<string, number>>(
      `SELECT (SELECT count(*) FROM "Order" WHERE "storeId" = ANY($1))::float AS orders,
        (SELECT count(*) FROM "OrderLineItem" l JOIN "Order" o ON o.id = l."orderId" WHERE o."storeId" = ANY($1))::float AS lines,
        (SELECT count(*) FROM "FulfillmentGroup" g JOIN "Order" o ON o.id = g."orderId" WHERE o."storeId" = ANY($1))::float AS groups,
        (SELECT count(*) FROM "InventoryAdjustment" a JOIN "InventoryLevel" v ON v.id = a."levelId" WHERE v."storeId" = ANY($1))::float AS ledger,
        (SELECT count(*) FROM "Event" WHERE "storeId" = ANY($1))::float AS events,
        (SELECT count(*) FROM "AuditEntry" WHERE "storeId" = ANY($1) AND (action = 'UPDATE' OR "objectKind" IN ('Order', 'OrderLineItem', 'FulfillmentGroup')))::float AS audit`,
      [ids],
    );
    const { orders, ...rest } = rows[0];
    return `${orders} orders; per order ${Object.entries(rest).map(([kind, n]) => `${kind} ${(n / orders).toFixed(2)}`).join(', ')}`;
  } finally {
    await client.end();
  }
}

async function throughput(url: string, db: Database): Promise<void> {
  const stores = { service: [] as StockedStore[], floor: [] as StockedStore[] };
  for (let i = 0; i < STORES; i++) {
    stores.service.push(await stockedStore(db, `Orders bench ${i}`));
    stores.floor.push(await stockedStore(db, `Orders floor ${i}`));
  }
  let service: Service | undefined;
  let floor: { child: ChildProcess; url: string } | undefined;
  try {
    service = await startService(url, { NODE_ENV: 'production', MIGRATE_ON_START: 'false', LOG_LEVEL: 'warn', WEBHOOK_DISPATCHER: 'false', RATE_LIMIT_REST_PER_MINUTE: '1000000' });
    floor = await startFloor(url);
    const servicePid = service.child.pid;
    const floorPid = floor.child.pid;
    // Service and floor share the database, one variant at a time: its backends' time in a slice is that variant's.
    const databaseCpuMs = databaseCpuMeter(new URL(url).pathname.slice(1));
    const variants: Variant[] = [
      { name: 'service, 1 store', request: ordersOn(service.url, stores.service.slice(0, 1)), cpuMs: () => cpuMsOf(servicePid), databaseCpuMs },
      { name: 'floor, 1 store', request: ordersOn(floor.url, stores.floor.slice(0, 1)), cpuMs: () => cpuMsOf(floorPid), databaseCpuMs },
      { name: `service, ${STORES} stores`, request: ordersOn(service.url, stores.service), cpuMs: () => cpuMsOf(servicePid), databaseCpuMs },
      { name: `floor, ${STORES} stores`, request: ordersOn(floor.url, stores.floor), cpuMs: () => cpuMsOf(floorPid), databaseCpuMs },
    ];
    write(`${CONNECTIONS} clients, ${SECONDS} s a variant in ${ROUNDS} interleaved rounds; load average before: ${loadAverage()} (${os.cpus().length} cores)`);
    const measured = await measureLoad(variants, { connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, warmupSeconds: 3 });
    write(`load average after: ${loadAverage()}`);
    const cores = os.cpus().length;
    write(
      `\n  ${'variant'.padEnd(20)}${'orders/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'CPU ms/order'.padStart(14)}${'DB CPU ms/order'.padStart(17)}${'of floor'.padStart(10)}${'CPU bound/s'.padStart(13)}${'wait ms at bound'.padStart(18)}`,
    );
    for (const m of measured) {
      const floorOf = measured.find((f) => f.name === m.name.replace('service', 'floor'))!;
      const databaseCpu = m.databaseCpuMsPerRequest ?? Number.NaN;
      // The most orders a second the machine's cores could serve at this CPU cost (the load
      // generator's own left out), and what 16 clients then wait on average (Little's law:
      // clients = rate x time in the system): a lower bound on the p50 no queueing rule beats.
      const bound = (cores * 1000) / (m.cpuMsPerRequest + databaseCpu);
      write(
        `  ${m.name.padEnd(20)}${m.rps.toFixed(0).padStart(10)}${m.p50.toFixed(0).padStart(9)}${m.p99.toFixed(0).padStart(9)}${m.cpuMsPerRequest.toFixed(2).padStart(14)}` +
          `${databaseCpu.toFixed(2).padStart(17)}${(m.rps / floorOf.rps).toFixed(2).padStart(10)}${bound.toFixed(0).padStart(13)}${((CONNECTIONS / bound) * 1000).toFixed(0).padStart(18)}`,
      );
    }
    write(`  targets: at least 0.5 of the floor, p99 under 100 ms`);
    write(`  DB CPU: the PostgreSQL backends of the bench's database; CPU bound: ${cores} cores over service (or floor) and DB CPU per order`);
    write(`\n  rows the service wrote: ${await rowsPerOrder(url, stores.service)}`);
    write(`  rows the floor wrote:   ${await rowsPerOrder(url, stores.floor)}`);
  } finally {
    for (const child of [service?.child, floor?.child]) {
      if (!child) continue;
      child.kill('SIGTERM');
      await exited(child);
    }
  }
}

/** Historical orders, IMPORT_REQUEST a request, sent one request after another; the service's RSS sampled every 100 ms. */
async function bulkImport(url: string, db: Database): Promise<void> {
  const store = await stockedStore(db, 'Import bench');
  const service = await startService(url, { NODE_ENV: 'production', MIGRATE_ON_START: 'false', LOG_LEVEL: 'warn', WEBHOOK_DISPATCHER: 'false', RATE_LIMIT_REST_PER_MINUTE: '1000000' });
  const pid = service.child.pid!;
  let peak = residentMb(pid) ?? 0;
  const sampler = setInterval(() => (peak = Math.max(peak, residentMb(pid) ?? 0)), 100);
  try {
    const startRss = peak;
    const cpuBefore = cpuMsOf(pid);
    const started = performance.now();
    for (let start = 0; start < IMPORT_ORDERS; start += IMPORT_REQUEST) {
      const orders = Array.from({ length: Math.min(IMPORT_REQUEST, IMPORT_ORDERS - start) }, (_, i) => ({
        orderId: `import-${start + i}`,
        createdAt: '2025-06-01T10:00:00Z',
        customer: { email: `shopper-${i % 50}@example.com`, firstName: 'Import', lastName: 'Shopper' },
        lineItems: [0, 1, 2].map((n) => ({ id: `line-${n}`, productId: `p-${n}`, sku: `BENCH-${(i * 3 + n) % 30}`, title: `Product ${n}`, quantity: 2, price: 12.5 })),
        totalPrice: 75,
        currency: 'USD',
      }));
      const response = await fetch(`${service.url}/v2.2/stores/${store.storeId}/orders/bulk`, { method: 'POST', headers: store.headers, body: JSON.stringify({ orders }) });
      const body = (await response.json()) as { processedCount?: number };
      if (response.status !== 200 || body.processedCount !== orders.length) throw new Error(`import request at ${start}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
    }
    const seconds = (performance.now() - started) / 1000;
    write(
      `\nbulk import of ${IMPORT_ORDERS} orders (${IMPORT_REQUEST} a request, one request at a time): ${(IMPORT_ORDERS / seconds).toFixed(0)} orders/s (${seconds.toFixed(1)} s), ` +
        `service CPU ${((cpuMsOf(pid) - cpuBefore) / IMPORT_ORDERS).toFixed(2)} ms/order, RSS ${startRss.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB; load average ${loadAverage()}`,
    );
  } finally {
    clearInterval(sampler);
    service.child.kill('SIGTERM');
    await exited(service.child);
  }
}

interface CheckoutModules {
  client: typeof import('../src/db/client.ts');
  migrate: typeof import('../src/db/migrate.ts');
  writeLoads: typeof import('./writeLoads.ts');
}

/**
 * Top-level statements per order that PostgreSQL counted (pg_stat_statements) while the code of
 * the checkout at `root` created COUNTED_ORDERS orders one after another on a scratch database of
 * `adminUrl`'s server, after as many unmeasured ones.
 */
async function statementsPerOrder(root: string, adminUrl: string): Promise<string> {
  const load = (file: string) => import(pathToFileURL(path.join(root, file)).href);
  const modules: CheckoutModules = { client: await load('src/db/client.ts'), migrate: await load('src/db/migrate.ts'), writeLoads: await load('bench/writeLoads.ts') };
  const scratch = await scratchDatabase('orders_statements', adminUrl);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const db = await modules.client.openDatabase(scratch.url, { poolSize: 2 });
  try {
    await modules.migrate.applyMigrations(db);
    const served = await modules.writeLoads.serveWrites(db, 'Statements');
    try {
      const request = modules.writeLoads.orderCreateLoad(served);
      let n = 0;
      const send = async (count: number) => {
        for (let i = 0; i < count; i++, n++) {
          const response = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.bodies![n % request.bodies!.length].replaceAll('{{unique}}', `count-${n}`) });
          if (!response.ok) throw new Error(`order ${n}: ${response.status} ${await response.text()}`);
        }
      };
      await send(COUNTED_ORDERS);
      const { rows: database } = await admin.query<{ oid: number }>('SELECT oid FROM pg_database WHERE datname = $1', [new URL(scratch.url).pathname.slice(1)]);
      await admin.query('SELECT pg_stat_statements_reset()');
      await send(COUNTED_ORDERS);
      const { rows } = await admin.query<{ kind: string; calls: number }>(
        `SELECT CASE WHEN query ~* '^\\s*(BEGIN|COMMIT|ROLLBACK)' THEN 'BEGIN/COMMIT' WHEN query ~* '^\\s*SELECT set_config' THEN 'audit context' ELSE 'other' END AS kind, sum(calls)::int AS calls
         FROM pg_stat_statements WHERE dbid = $1 GROUP BY 1 ORDER BY 1`,
        [database[0].oid],
      );
      const total = rows.reduce((sum, r) => sum + r.calls, 0);
      const kinds = rows.map((r) => `${r.kind} ${(r.calls / COUNTED_ORDERS).toFixed(2)}`).join(', ');
      // Plans made and the time spent planning against running (kept only with pg_stat_statements.track_planning = on).
      const { rows: planning } = await admin.query<{ plans: number; calls: number; plan_ms: number; exec_ms: number }>(
        `SELECT sum(plans)::int AS plans, sum(calls)::int AS calls, sum(total_plan_time)::float AS plan_ms, sum(total_exec_time)::float AS exec_ms
         FROM pg_stat_statements WHERE dbid = $1 AND query !~* '^\\s*(BEGIN|COMMIT|ROLLBACK)'`,
        [database[0].oid],
      );
      const { plans, calls, plan_ms: planMs, exec_ms: execMs } = planning[0];
      const { rows: tracking } = await admin.query<{ on: boolean }>(`SELECT current_setting('pg_stat_statements.track_planning') = 'on' AS on`);
      const planned = tracking[0].on ? `; ${(plans / COUNTED_ORDERS).toFixed(2)} plans made of ${(calls / COUNTED_ORDERS).toFixed(2)} statements, planning ${(planMs / COUNTED_ORDERS).toFixed(2)} ms and running ${(execMs / COUNTED_ORDERS).toFixed(2)} ms an order` : '; plans not counted (pg_stat_statements.track_planning is off)';
      return `${(total / COUNTED_ORDERS).toFixed(2)} statements (${kinds})${planned}`;
    } finally {
      await new Promise<void>((resolve) => served.app.server.close(() => resolve()));
    }
  } finally {
    await db.close();
    await admin.end();
    await scratch.drop();
  }
}

export async function run(): Promise<void> {
  const scratch = await scratchDatabase('orders');
  const stopWatching = dropOnInterrupt(scratch, () => undefined);
  try {
    const db = await openDatabase(scratch.url, { poolSize: 2 });
    try {
      await applyMigrations(db);
      if (SECONDS > 0) await throughput(scratch.url, db);
      if (IMPORT_ORDERS > 0) await bulkImport(scratch.url, db);
    } finally {
      await db.close();
    }
  } finally {
    await scratch.drop();
    stopWatching();
  }
  const statementsUrl = process.env.BENCH_STATEMENTS_URL;
  if (!statementsUrl) {
    write('\nstatements per order: set BENCH_STATEMENTS_URL to a server with pg_stat_statements loaded to count them');
    return;
  }
  write(`\nstatements per order that PostgreSQL counted (pg_stat_statements, ${COUNTED_ORDERS} orders one at a time):`);
  write(`  this code:   ${await statementsPerOrder(ROOT, statementsUrl)}`);
  const before = process.env.BENCH_ORDERS_BEFORE;
  if (before) write(`  ${before}: ${await statementsPerOrder(before, statementsUrl)}`);
}
