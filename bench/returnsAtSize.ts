// The database the benches of the merchant's pages at size read (bench/overview.ts, bench/returnsQueue.ts):
// 1,000,000 orders (3,000,000 lines) and 1,000,000 returns in one store (bench/searchSeed.ts, as
// `npm run bench -- search` seeds them, search documents aside) beside a small second store, with
// what those pages read beyond the search seed: each return's history (its creation, and its
// completion for the 45% complete), its processing fee on the store's monthly invoices, its stored
// total, and the overview's rollups counted from every row. Each store has an API client with
// every scope; the first a merchant user signed in.
//
// A scratch database per run by default. BENCH_KEEP_DATABASE=1 keeps it under a name of its size
// instead, and a later run with the same size finds it seeded, applies only the migrations added
// since and signs in again: the seed takes most of a run at a million.
// Sizes: BENCH_SEARCH_ORDERS (1000000; returns alike).
import pg from 'pg';
import { SCOPES } from '../src/auth/scopes.ts';
import { startSession } from '../src/auth/merchantUsers.ts';
import { openDatabase } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createMerchantUser } from '../src/domain/merchantUsers.ts';
import { createApiClient, createStore } from '../src/domain/stores.ts';
import { keptDatabase, scratchDatabase } from './scratchDatabase.ts';
import { seedStore, type SeedSize } from './searchSeed.ts';

export const envInt = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${process.env[name]}`);
  return value;
};

export const ORDERS = envInt('BENCH_SEARCH_ORDERS', 1_000_000);
const SIZE: SeedSize = { orders: ORDERS, customers: Math.max(100, Math.round(ORDERS / 10)), products: Math.max(100, Math.round(ORDERS / 20)) };
const OTHER: SeedSize = { orders: Math.max(200, Math.round(ORDERS / 50)), customers: 100, products: 100 };
const FEE = '0.75';
const STORE_NAMES = ['Returns at size', 'Returns at size, other store'];
const USER = { email: 'bench@example.com', password: 'returns-bench-password' };

export const write = (line = ''): void => void process.stdout.write(`${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export async function timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await fn();
  write(`  ${what.padEnd(52)} ${seconds(performance.now() - started).padStart(9)}`);
  return result;
}

export interface ReturnsAtSize {
  url: string;
  main: { storeId: string; secret: string };
  other: { storeId: string; secret: string };
  /** The merchant session cookie's value, for the main store. */
  session: string;
  /** Drops a scratch database (a kept one stays). */
  drop(): Promise<void>;
}

/** Tables the seed fills by the million: their secondary indexes are made after the rows. */
const BULK_TABLES = ['Customer', 'Product', 'Order', 'OrderLineItem', 'Return', 'ReturnItem'];

/**
 * The stores' rows as bench/search.ts seeds them, without what only search reads: the search
 * documents are not rebuilt and their trigram (GIN) indexes not made again (most of that
 * bench's seeding time; these pages read neither).
 */
async function seed(client: pg.Client, stores: { storeId: string; tag: string; size: SeedSize; label: string }[]): Promise<void> {
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
 * What the search seed leaves out and these pages read: every return's creation in its history,
 * a complete one's completion (at its updatedAt, 1 hour to 10 days after opening), its
 * processing fee on the invoice of its month and its total; then the overview's rollups.
 */
async function seedHistoryFeesAndTotals(client: pg.Client, storeIds: string[]): Promise<void> {
  await client.query(`SET work_mem = '256MB'`);
  await client.query('SET synchronous_commit = off');
  // As the rest of the seed: the rollups are counted once below, not a statement at a time.
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
  // Each return's total as the migration return_total backfills it.
  await timed('Return.total of every return (return_total)', () => client.query(`UPDATE "Return" SET total = return_total(id)`));
  await client.query('RESET session_replication_role');
  await timed("overview rollups from every row (the migration's backfill)", () => client.query('SELECT overview_rebuild()'));
  await timed('VACUUM ANALYZE', () => client.query('VACUUM ANALYZE'));
  await client.query('RESET ALL');
}

export async function returnsAtSize(label: string): Promise<ReturnsAtSize> {
  const keep = process.env.BENCH_KEEP_DATABASE === '1';
  const database = keep ? await keptDatabase(`returns_${ORDERS}`) : { ...(await scratchDatabase(label)), fresh: true };
  write(`${keep ? 'kept' : 'scratch'} database ${new URL(database.url).pathname.slice(1)}; ${SIZE.orders} orders and returns`);
  const db = await openDatabase(database.url, { poolSize: 2 });
  let stores: { storeId: string; secret: string }[];
  let session: string;
  let seeded: boolean;
  try {
    await timed('migrations', () => applyMigrations(db));
    const found = await db.prisma.store.findMany({ where: { name: { in: STORE_NAMES } }, select: { id: true, name: true } });
    // The rollups are the seed's last rows: a kept database without them holds a seed stopped midway.
    seeded = found.length === STORE_NAMES.length && (await db.prisma.returnOverviewFact.count({ where: { storeId: { in: found.map((store) => store.id) } }, take: 1 })) > 0;
    if (!seeded && !database.fresh) throw new Error(`${new URL(database.url).pathname.slice(1)} holds a seed that did not finish: drop it`);
    stores = [];
    for (const name of STORE_NAMES) {
      const storeId = found.find((store) => store.name === name)?.id ?? (await createStore(db.prisma, { name })).id;
      const { secret } = await createApiClient(db.prisma, { storeId, name: `${label} bench`, scopes: SCOPES });
      stores.push({ storeId, secret });
    }
    const user =
      (await db.prisma.merchantUser.findFirst({ where: { storeId: stores[0].storeId }, select: { id: true } })) ??
      (await createMerchantUser(db.prisma, { storeId: stores[0].storeId, ...USER }));
    session = await startSession(db.prisma, user.id);
  } finally {
    await db.close();
  }
  const [main, other] = stores;
  if (!seeded) {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await seed(client, [
        { storeId: main.storeId, tag: 'a', size: SIZE, label: 'store' },
        { storeId: other.storeId, tag: 'b', size: OTHER, label: 'other store' },
      ]);
      await seedHistoryFeesAndTotals(client, [main.storeId, other.storeId]);
    } finally {
      await client.end();
    }
  }
  return { url: database.url, main, other, session, drop: database.drop };
}
