// What the audit trail costs the two hottest writes (issue 36: at most 10% of their rate):
// the customer upsert (PUT /v2.2/stores/{id}/customers, 50 e-mails with custom fields: creates,
// then updates that each change the last name) and the order creation (POST /v2.2/stores/{id}/orders, three lines that commit
// stock, a customer), each measured from outside (bench/load.ts: autocannon in its own process,
// interleaved rounds) against two servers that differ only in whether the audit triggers record:
//   audit   the service as it runs
//   off     `audit.disabled = on` on every connection of its database handle, the switch the
//           triggers check first: they return before reading a row. The application is the same,
//           so `off` still names the actor to the database (one set_config per transaction, or a
//           parameter of the upsert's one statement); that statement's cost is measured apart.
// PGlite: two in-memory databases, one of them with the setting for its one session.
// PostgreSQL: one scratch database (dropped after), two pools, one of them with the setting in
// its connections' options.
import type { AddressInfo } from 'node:net';
import { SCOPES } from '../src/auth/scopes.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import type { Database } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { newId } from '../src/domain/ids.ts';
import { createApiClient, createStore } from '../src/domain/stores.ts';
import { createLogger } from '../src/logger.ts';
import { createApp, type App } from '../src/server.ts';
import { measureLoad, type LoadRequest, type Measured } from './load.ts';
import { scratchDatabase } from './scratchDatabase.ts';

/** Seconds of load per variant in each pair. */
const SECONDS = Number(process.env.BENCH_AUDIT_SECONDS ?? 3);
const PAIRS = 8;
const CONCURRENCY = 16;
const EMAILS = 50;
const PRODUCTS = 30;
/** Orders differ in the products they name, so concurrent orders do not all wait on the same three levels. */
const ORDER_SHAPES = 10;
const SET_CONFIG_CALLS = 2_000;

interface Served {
  app: App;
  base: string;
  storeId: string;
  headers: Record<string, string>;
}

/** A migrated database's store, all-scope client, and stocked products; the server on a free port. */
async function serve(db: Database): Promise<Served> {
  const { id: storeId } = await createStore(db.prisma, { name: 'Audit bench' });
  const { secret } = await createApiClient(db.prisma, { storeId, name: 'bench', scopes: SCOPES });
  const { defaultLocationId } = await db.prisma.store.findUniqueOrThrow({ where: { id: storeId } });
  const products = Array.from({ length: PRODUCTS }, (_, i) => ({ id: newId('product'), storeId, title: `Stocked ${i}`, sku: `AUD-${i}` }));
  await db.prisma.product.createMany({ data: products });
  await db.prisma.inventoryLevel.createMany({ data: products.map((p) => ({ id: newId('inventoryLevel'), storeId, productId: p.id, locationId: defaultLocationId!, quantity: 1_000_000 })) });
  const config = { ...loadConfig({ LOG_LEVEL: 'silent', WEBHOOK_DISPATCHER: 'false' }), rateLimits: { rest: 1_000_000, compat: 1_000_000 } };
  const app = createApp({ db, config, logger: createLogger('silent') });
  app.server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return { app, base, storeId, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' } };
}

function upsert(s: Served): LoadRequest {
  return {
    url: `${s.base}/v2.2/stores/${s.storeId}/customers`,
    method: 'PUT',
    headers: s.headers,
    bodies: Array.from({ length: EMAILS }, (_, i) =>
      // Every upsert changes the customer (a new last name), so every one records an entry.
      JSON.stringify({ email: `customer-${i}@example.com`, firstName: 'Ada', lastName: 'Bench {{unique}}', customFields: { tier: i % 2 ? 'gold' : 'silver', visits: i } }),
    ),
  };
}

function orderCreate(s: Served): LoadRequest {
  return {
    url: `${s.base}/v2.2/stores/${s.storeId}/orders`,
    method: 'POST',
    headers: s.headers,
    bodies: Array.from({ length: ORDER_SHAPES }, (_, shape) =>
      JSON.stringify({
        orderId: 'audit-bench-{{unique}}',
        createdAt: '2026-03-01T10:00:00Z',
        customer: { email: `shopper-${shape}@example.com`, firstName: 'Bench', lastName: 'Shopper' },
        lineItems: [0, 1, 2].map((n) => ({ id: `line-${n}`, productId: `p-${n}`, sku: `AUD-${(shape * 3 + n) % PRODUCTS}`, title: `Product ${n}`, quantity: 2, price: 12.5 })),
        totalPrice: 75,
        currency: 'USD',
      }),
    ),
  };
}

/** Microseconds one `set_config` of the audit context takes from the application (what `off` still pays per transaction). */
async function setConfigMicros(db: Database): Promise<number> {
  const context = JSON.stringify({ actorKind: 'API_CLIENT', actorId: 'apc_bench', actorName: 'bench', storeId: 'str_bench', door: 'rest', operation: 'orderCreate', requestId: crypto.randomUUID() });
  const started = performance.now();
  for (let i = 0; i < SET_CONFIG_CALLS; i++) await db.prisma.$executeRawUnsafe(`SELECT set_config('audit.context', $1, true)`, context);
  return ((performance.now() - started) * 1000) / SET_CONFIG_CALLS;
}

/** The middle value (the lower middle of an even count). */
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

/**
 * `PAIRS` short measurements of both servers back to back, in alternating order, so that a change
 * of the machine's load during the run (other processes share it) weighs on both variants of a
 * pair alike; the cost is the median over the pairs. This process's CPU per request is shown
 * too: on PGlite that is the server and its database, which share one thread.
 */
async function measure(label: string, operation: string, on: LoadRequest, off: LoadRequest): Promise<void> {
  const load = { connections: CONCURRENCY, seconds: SECONDS, rounds: 1, warmupSeconds: 1 };
  const pairs: { on: Measured; off: Measured }[] = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    const variants = [
      { name: 'audit', request: on },
      { name: 'off', request: off },
    ];
    const rows = await measureLoad(pair % 2 === 0 ? variants : variants.reverse(), load);
    pairs.push({ on: rows.find((r) => r.name === 'audit')!, off: rows.find((r) => r.name === 'off')! });
  }
  const total = (pick: (p: (typeof pairs)[number]) => Measured) => {
    const rows = pairs.map(pick);
    const requests = rows.reduce((sum, r) => sum + r.requests, 0);
    return { requests, rps: median(rows.map((r) => r.rps)), p50: median(rows.map((r) => r.p50)), p99: median(rows.map((r) => r.p99)), cpu: median(rows.map((r) => r.cpuMsPerRequest)) };
  };
  const line = (cells: string[]) => `  ${cells[0].padEnd(8)}${cells.slice(1).map((c) => c.padStart(10)).join('')}`;
  process.stdout.write(`${label}: ${operation} (${CONCURRENCY} connections, ${PAIRS} pairs of ${SECONDS} s; medians over the pairs)\n${line(['variant', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'cpu ms'])}\n`);
  for (const [name, t] of [['audit', total((p) => p.on)], ['off', total((p) => p.off)]] as const) {
    process.stdout.write(`${line([name, String(t.requests), t.rps.toFixed(0), t.p50.toFixed(1), t.p99.toFixed(1), t.cpu.toFixed(2)])}\n`);
  }
  const costs = pairs.map((p) => (1 - p.on.rps / p.off.rps) * 100);
  const cpu = median(pairs.map((p) => (p.on.cpuMsPerRequest / p.off.cpuMsPerRequest - 1) * 100));
  process.stdout.write(
    `  the audit trail costs ${median(costs).toFixed(1)}% of the rate (median of the pairs: ${costs.map((c) => c.toFixed(1)).join(', ')}; budget 10%); ` +
      `this process's CPU per request +${cpu.toFixed(1)}%\n`,
  );
}

async function compare(label: string, audited: Database, unaudited: Database): Promise<void> {
  const on = await serve(audited);
  const off = await serve(unaudited);
  try {
    for (const [operation, request] of [['customer upsert', upsert], ['order create', orderCreate]] as const) await measure(label, operation, request(on), request(off));
    const [{ entries }] = await audited.sql.query<{ entries: number }>('SELECT count(*)::int AS entries FROM "AuditEntry"');
    const [{ none }] = await unaudited.sql.query<{ none: number }>(`SELECT count(*)::int AS none FROM "AuditEntry" WHERE "storeId" = $1`, [off.storeId]);
    if (none !== 0) throw new Error(`the unaudited server recorded ${none} entries: the switch did not hold`);
    process.stdout.write(`${label}: ${entries} audit entries recorded by the audited server; set_config of the context: ${(await setConfigMicros(audited)).toFixed(0)} µs a call\n`);
  } finally {
    await on.app.shutdown(1_000);
    await off.app.shutdown(1_000);
  }
}

async function pglite(): Promise<void> {
  const audited = await openDatabase('pglite:memory:');
  const unaudited = await openDatabase('pglite:memory:');
  try {
    await applyMigrations(audited);
    await applyMigrations(unaudited);
    // PGlite has one session: the setting holds for every statement of this handle.
    await unaudited.sql.exec(`SET audit.disabled = 'on'`);
    await compare('PGlite (in memory)', audited, unaudited);
  } finally {
    await audited.close();
    await unaudited.close();
  }
}

async function postgres(): Promise<void> {
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  try {
    scratch = await scratchDatabase('audit');
  } catch (error) {
    process.stdout.write(`PostgreSQL unreachable (${(error as Error).message}); skipped\n`);
    return;
  }
  const audited = await openDatabase(scratch.url, { poolSize: CONCURRENCY });
  const off = new URL(scratch.url);
  off.searchParams.set('options', '-c audit.disabled=on');
  const unaudited = await openDatabase(off.toString(), { poolSize: CONCURRENCY });
  try {
    await applyMigrations(audited);
    await compare('PostgreSQL', audited, unaudited);
  } finally {
    await audited.close();
    await unaudited.close();
    await scratch.drop();
  }
}

export async function run(): Promise<void> {
  await pglite();
  await postgres();
}
