// What the overview's triggers (migrations overview_rollups, overview_statement_triggers) cost a
// bulk write: the tests' set-based seed of 100,000 returns (test/support/bulkReturns.ts: an order
// per return, its lines, the returns, their items, one INSERT ... SELECT each), timed statement by
// statement on PostgreSQL scratch databases that differ only in the triggers:
//   triggers  as the migrations keep the rollups: once per statement, the rows handed over as
//             transition tables, each return recounted once
//   off       the rollup triggers disabled, the rollups then counted from every row as the
//             migration's backfill does (overview_rebuild, timed apart): the floor
// Interleaved rounds (the machine may be shared); each figure is the median over the rounds.
// BENCH_OVERVIEW_BULK_RETURNS (100000), BENCH_OVERVIEW_BULK_ITEMS (3 lines and items per return), BENCH_OVERVIEW_BULK_ROUNDS (2).
import os from 'node:os';
import { openDatabase } from '../src/db/client.ts';
import type { Database } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import type { SqlChannel } from '../src/db/sqlChannel.ts';
import { createStore } from '../src/domain/stores.ts';
import { insertBulkReturns } from '../test/support/bulkReturns.ts';
import { envInt, write } from './returnsAtSize.ts';
import { scratchDatabase } from './scratchDatabase.ts';

const RETURNS = envInt('BENCH_OVERVIEW_BULK_RETURNS', 100_000);
const ITEMS = envInt('BENCH_OVERVIEW_BULK_ITEMS', 3);
const ROUNDS = envInt('BENCH_OVERVIEW_BULK_ROUNDS', 2);
const VARIANTS = ['triggers', 'off'] as const;
const STATEMENTS = ['Order', 'OrderLineItem', 'Return', 'ReturnItem'] as const;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

/** The channel, timing each statement by the table it inserts into. */
function timing(sql: SqlChannel, times: Map<string, number>): SqlChannel {
  return {
    exec: (script) => sql.exec(script),
    async query<T>(text: string, params?: unknown[]) {
      const table = /INSERT INTO "(\w+)"/.exec(text)?.[1] ?? 'other';
      const started = performance.now();
      const rows = await sql.query<T>(text, params);
      times.set(table, (times.get(table) ?? 0) + performance.now() - started);
      return rows;
    },
  };
}

async function disableRollupTriggers(db: Database): Promise<void> {
  const triggers = await db.sql.query<{ table: string; trigger: string }>(
    `SELECT c.relname AS "table", t.tgname AS "trigger" FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal AND t.tgname LIKE '%\\_overview\\_%'`,
  );
  if (triggers.length === 0) throw new Error('no rollup triggers found');
  for (const { table, trigger } of triggers) await db.sql.exec(`ALTER TABLE "${table}" DISABLE TRIGGER "${trigger}"`);
}

/** One seed of the returns into a fresh database: each statement's time, and the rebuild's when the triggers are off. */
async function once(variant: (typeof VARIANTS)[number]): Promise<Map<string, number>> {
  const scratch = await scratchDatabase(`overview_bulk_${variant}`);
  const db = await openDatabase(scratch.url, { poolSize: 2 });
  try {
    await applyMigrations(db);
    if (variant === 'off') await disableRollupTriggers(db);
    const { id: storeId } = await createStore(db.prisma, { name: 'Bulk returns bench' });
    const times = new Map<string, number>();
    await insertBulkReturns(timing(db.sql, times), storeId, { count: RETURNS, items: ITEMS, from: new Date(Date.now() - 86_400_000), stepMs: 800, batch: 'bulk' });
    if (variant === 'off') {
      const started = performance.now();
      await db.sql.query('SELECT overview_rebuild()');
      times.set('overview_rebuild', performance.now() - started);
    }
    return times;
  } finally {
    await db.close();
    await scratch.drop();
  }
}

export async function run(): Promise<void> {
  write(`${RETURNS} returns, ${ITEMS} lines and items each, ${ROUNDS} rounds; ${os.cpus().length} cores`);
  const results: Record<string, Map<string, number>[]> = { triggers: [], off: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
      const times = await once(variant);
      results[variant].push(times);
      const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
      write(`  round ${round + 1}, ${variant.padEnd(8)} ${[...times].map(([table, ms]) => `${table} ${(ms / 1000).toFixed(1)} s`).join(', ')}  (load average ${load})`);
    }
  }
  write(`\nmedian seconds per statement`);
  write(`  ${'variant'.padEnd(10)}${[...STATEMENTS, 'overview_rebuild', 'total'].map((s) => s.padStart(18)).join('')}`);
  for (const variant of VARIANTS) {
    const cell = (table: string) => {
      const values = results[variant].map((times) => times.get(table) ?? 0);
      return (median(values) / 1000).toFixed(1);
    };
    const total = median(results[variant].map((times) => [...times.values()].reduce((a, b) => a + b, 0))) / 1000;
    write(`  ${variant.padEnd(10)}${[...STATEMENTS, 'overview_rebuild'].map((s) => cell(s).padStart(18)).join('')}${total.toFixed(1).padStart(18)}`);
  }
}
