// What keeping the overview's rollups (migration overview_rollups) costs the order creation
// (issue 43: per-day rollups are hot rows), measured as bench/audit.ts measures the audit trail:
// POST /v2.2/stores/{id}/orders (bench/writeLoads.ts: three lines, every order of the run placed
// on one day and naming 3 of the same 30 SKUs, so every order adds to the same few rollup rows),
// from outside (autocannon in its own process), against three servers on PostgreSQL scratch
// databases that differ only in how the rollups are kept:
//   rollups   as the migration keeps them: each transaction adds rows of its own (transactionId)
//   one row   the same triggers writing one shared row per (store, figure, day, key): the design
//             the migration avoids, where each order waits for the orders before it to commit
//   off       the rollup triggers disabled: the floor
// Interleaved rounds (the machine is shared): each variant's figure is the median over the rounds.
import { openDatabase } from '../src/db/client.ts';
import type { Database } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { measureLoad, type Measured } from './load.ts';
import { scratchDatabase } from './scratchDatabase.ts';
import { orderCreateLoad, serveWrites, type ServedWrites } from './writeLoads.ts';

const SECONDS = Number(process.env.BENCH_OVERVIEW_WRITES_SECONDS ?? 3);
const ROUNDS = 6;
const CONCURRENCY = 16;
const VARIANTS = ['rollups', 'one row', 'off'] as const;
type VariantName = (typeof VARIANTS)[number];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

/** Rewrites the function every rollup row is added by to add them all to transactionId 0: one row per key for every writer. */
async function shareOneRow(db: Database): Promise<void> {
  const [{ definition }] = await db.sql.query<{ definition: string }>(`SELECT pg_get_functiondef('overview_add'::regproc) AS definition`);
  if (!definition.includes('txid_current()')) throw new Error('overview_add no longer names txid_current()');
  await db.sql.exec(definition.replaceAll('txid_current()', '0::bigint'));
}

async function disableRollupTriggers(db: Database): Promise<void> {
  const triggers = await db.sql.query<{ table: string; trigger: string }>(
    `SELECT c.relname AS "table", t.tgname AS "trigger" FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal AND t.tgname LIKE '%\\_overview\\_%'`,
  );
  if (triggers.length === 0) throw new Error('no rollup triggers found');
  for (const { table, trigger } of triggers) await db.sql.exec(`ALTER TABLE "${table}" DISABLE TRIGGER "${trigger}"`);
}

export async function run(): Promise<void> {
  const opened: { name: VariantName; scratch: Awaited<ReturnType<typeof scratchDatabase>>; db: Database; served?: ServedWrites }[] = [];
  try {
    for (const name of VARIANTS) {
      const scratch = await scratchDatabase(`overview_writes_${name.replace(' ', '_')}`);
      const db = await openDatabase(scratch.url, { poolSize: CONCURRENCY });
      opened.push({ name, scratch, db });
      await applyMigrations(db);
      if (name === 'one row') await shareOneRow(db);
      if (name === 'off') await disableRollupTriggers(db);
    }
    for (const variant of opened) variant.served = await serveWrites(variant.db, 'Overview writes bench');
    const rounds: Measured[][] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const variants = opened.map((v) => ({ name: v.name, request: orderCreateLoad(v.served!) }));
      // Each round starts with another variant, so a change of the machine's load weighs on all alike.
      const order = [...variants.slice(round % variants.length), ...variants.slice(0, round % variants.length)];
      rounds.push(await measureLoad(order, { connections: CONCURRENCY, seconds: SECONDS, rounds: 1, warmupSeconds: round === 0 ? 2 : 0.5 }));
    }
    const line = (cells: string[]) => `  ${cells[0].padEnd(9)}${cells.slice(1).map((c) => c.padStart(10)).join('')}`;
    process.stdout.write(
      `PostgreSQL: order create (${CONCURRENCY} connections, ${ROUNDS} rounds of ${SECONDS} s per variant; medians over the rounds)\n${line(['variant', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'vs off'])}\n`,
    );
    const rate = (name: VariantName) => median(rounds.map((r) => r.find((m) => m.name === name)!.rps));
    for (const name of VARIANTS) {
      const rows = rounds.map((r) => r.find((m) => m.name === name)!);
      const requests = rows.reduce((sum, r) => sum + r.requests, 0);
      const cost = (1 - rate(name) / rate('off')) * 100;
      process.stdout.write(
        `${line([name, String(requests), rate(name).toFixed(0), median(rows.map((r) => r.p50)).toFixed(1), median(rows.map((r) => r.p99)).toFixed(1), name === 'off' ? 'floor' : `-${cost.toFixed(1)}%`])}\n`,
      );
    }
    for (const variant of opened.filter((v) => v.name !== 'off')) {
      const [{ rows, orders }] = await variant.db.sql.query<{ rows: number; orders: number }>(
        `SELECT (SELECT count(*)::int FROM "ReturnsOverviewRollup") AS "rows", (SELECT count(*)::int FROM "Order") AS "orders"`,
      );
      process.stdout.write(`  ${variant.name}: ${orders} orders made ${rows} rollup rows (unfolded: the background work does not run here)\n`);
    }
  } finally {
    for (const variant of opened) {
      await variant.served?.app.shutdown(1_000);
      await variant.db.close();
      await variant.scratch.drop();
    }
  }
}
