// What the audit trail costs the two hottest writes (issue 36: at most 10% of their rate):
// the customer upsert and the order creation (bench/writeLoads.ts), each measured from outside
// (bench/load.ts: autocannon in its own process, interleaved rounds) against two servers that differ only in whether the audit triggers record:
//   audit   the service as it runs
//   off     `audit.disabled = on` on every connection of its database handle, the switch the
//           triggers check first: they return before reading a row. The application is the same,
//           so `off` still names the actor to the database (one set_config per transaction, or a
//           parameter of the upsert's one statement); that statement's cost is measured apart.
// PGlite: two in-memory databases, one of them with the setting for its one session.
// PostgreSQL: one scratch database (dropped after), two pools, one of them with the setting in
// its connections' options.
import { openDatabase } from '../src/db/client.ts';
import type { Database } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { measureLoad, type LoadRequest, type Measured } from './load.ts';
import { scratchDatabase } from './scratchDatabase.ts';
import { customerUpsertLoad, orderCreateLoad, serveWrites } from './writeLoads.ts';

/** Seconds of load per variant in each pair. */
const SECONDS = Number(process.env.BENCH_AUDIT_SECONDS ?? 3);
const PAIRS = 8;
const CONCURRENCY = 16;
const SET_CONFIG_CALLS = 2_000;

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
  const on = await serveWrites(audited, 'Audit bench');
  const off = await serveWrites(unaudited, 'Audit bench');
  try {
    for (const [operation, request] of [['customer upsert', customerUpsertLoad], ['order create', orderCreateLoad]] as const) {
      await measure(label, operation, request(on), request(off));
    }
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
