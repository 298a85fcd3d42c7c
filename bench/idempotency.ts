// What an Idempotency-Key costs a write (src/idempotentRequests.ts), measured from outside
// (bench/load.ts: autocannon in its own process, interleaved rounds, so each figure stands
// beside its peer from the same run), on an in-memory PGlite and on a scratch PostgreSQL
// database (dropped after). For the customer upsert and the order creation (bench/writeLoads.ts):
//   no key     the write as clients without the header send it: its own transaction(s)
//   new key    a key no request sent before: the advisory lock on the key, the request's
//              transaction holding every statement, and the answer stored in it
//   replayed   the same key and body again: the stored answer, nothing written
// and this process's CPU per request (on PGlite that is the server and its database).
// BENCH_PROFILE="new key" writes a CPU profile of this process (the service) while those
// variants are under load (bench/profiles/), with a summary.
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../src/db/client.ts';
import type { Database } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { measureLoad, type LoadRequest, type Measured } from './load.ts';
import { scratchDatabase } from './scratchDatabase.ts';
import { customerUpsertLoad, orderCreateLoad, serveWrites, type ServedWrites } from './writeLoads.ts';

const SECONDS = Number(process.env.BENCH_IDEMPOTENCY_SECONDS ?? 12);
const ROUNDS = 4;
const CONCURRENCY = 16;
const PROFILED = (process.env.BENCH_PROFILE ?? '').split(',').filter(Boolean);
const PROFILE_DIR = fileURLToPath(new URL('./profiles', import.meta.url));

function printTable(title: string, rows: Measured[]): void {
  const base = rows[0].rps;
  process.stdout.write(`${title}\n`);
  for (const row of rows) {
    process.stdout.write(
      `  ${row.name.padEnd(10)} ${row.rps.toFixed(0).padStart(6)} req/s  ${(row.rps / base).toFixed(2)}x  p50 ${row.p50} ms  p99 ${row.p99} ms  ${row.cpuMsPerRequest.toFixed(2)} ms CPU/request\n`,
    );
  }
}

/** The load of one body sent again and again under one key: every request after the first is a replay. */
function replayed(load: LoadRequest, key: string): LoadRequest {
  const body = load.bodies![0].replaceAll('{{unique}}', 'replayed');
  return { ...load, headers: { ...load.headers, 'idempotency-key': key }, bodies: [body] };
}

async function compare(label: string, db: Database): Promise<void> {
  const served: ServedWrites = await serveWrites(db, 'Idempotency bench');
  try {
    const loads = [
      ['customer upsert', customerUpsertLoad],
      ['order create', orderCreateLoad],
    ] as const;
    for (const [operation, load] of loads) {
      const rows = await measureLoad(
        [
          { name: 'no key', request: load(served) },
          { name: 'new key', request: load(served, { 'idempotency-key': `bench-${operation.replace(' ', '-')}-{{unique}}` }) },
          { name: 'replayed', request: replayed(load(served), `bench-replayed-${operation.replace(' ', '-')}`) },
        ],
        {
          connections: CONCURRENCY,
          seconds: SECONDS,
          rounds: ROUNDS,
          warmupSeconds: 1,
          profile: PROFILED.length > 0 ? { variants: PROFILED, dir: PROFILE_DIR, label: `idempotency-${label.split(' ')[0]}-${operation.replace(' ', '-')}`.toLowerCase() } : undefined,
        },
      );
      printTable(`${label}: ${operation} (${CONCURRENCY} connections, ${ROUNDS} interleaved rounds, ${SECONDS} s each)`, rows);
    }
    const [{ kept }] = await db.sql.query<{ kept: number }>('SELECT count(*)::int AS kept FROM "IdempotentRequest"');
    process.stdout.write(`${label}: ${kept} answers kept under their keys\n`);
  } finally {
    await served.app.shutdown(1_000);
  }
}

async function pglite(): Promise<void> {
  const db = await openDatabase('pglite:memory:');
  try {
    await applyMigrations(db);
    await compare('PGlite (in memory)', db);
  } finally {
    await db.close();
  }
}

async function postgres(): Promise<void> {
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  try {
    scratch = await scratchDatabase('idempotency');
  } catch (error) {
    process.stdout.write(`PostgreSQL unreachable (${(error as Error).message}); skipped\n`);
    return;
  }
  const db = await openDatabase(scratch.url, { poolSize: CONCURRENCY });
  try {
    await applyMigrations(db);
    await compare('PostgreSQL', db);
  } finally {
    await db.close();
    await scratch.drop();
  }
}

export async function run(): Promise<void> {
  await pglite();
  await postgres();
}
