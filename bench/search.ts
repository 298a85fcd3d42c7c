// Search at size (issue 33), on PostgreSQL: the first page (first: 25) of every kind of
// lookup and search a merchant runs, over 1,000,000 orders (3,000,000 lines), 1,000,000
// returns (and their items), 100,000 customers and 50,000 products in one store, beside a
// second, small store seeded alike (same e-mails, SKUs, order names: the store must narrow
// every plan).
//
// Measured: the service runs as a child process (NODE_ENV=production, from source through
// tsx, or its build with BENCH_SEARCH_CODE=build) on a scratch database; a client process of
// its own (bench/sequentialClient.mjs) makes one request after another over loopback HTTP,
// WARMUP first, then REQUESTS timed (start to last byte), each checked (HTTP 200, no GraphQL
// `errors`), after a round warming up every query's code path in the service (V8 compiles a
// path after it ran a while; a cold one costs tens of ms); p50 and p95 are printed beside the
// floor each kind of query must stay under (the machine's load average is printed with them):
//   exact lookups (returns(orderName:), findReturn(orderName:/orderId:), the warehouse door's
//     return details by order_name)                                            p95 <= 10 ms
//   selective searches (an e-mail, a phone as typed, a tracking number, a SKU, a barcode, a
//     piece of a name, an accent-folded first name)                            p95 <= 50 ms
//   unselective searches (a common fragment, a common word, a month of one status)
//                                                                              p95 <= 200 ms
//   searches no index can narrow or that once grew with their terms (issue 42: -mug, zz,
//     sam7 zz, ten 2-letter words, 10/20/30 short terms, ten aliases of a 30-term search), each
//     answered or refused (the refusal's code checked) within                   p95 <= 200 ms
//   a deep page: page 40 of returns(query: "status:complete"), reached by following
//     endCursor, must cost what page 1 costs (keyset pagination: flat, not OFFSET): its p50
//     within 1.5x (or 2 ms) of page 1's
// and, beside the search rows, returns(status: [COMPLETE]) pages 1 and 40: the same list
// through the filter argument that predates search.
// The peer is the database itself: for each query, the statements the service runs for it
// (captured from one request to an in-process app on the same database through
// Database.onStatement; never timed) are run as the service runs them, as named prepared
// statements, five times and then under EXPLAIN (ANALYZE, BUFFERS), so the plan shown is the
// one PostgreSQL's plan cache settles on (a generic plan shows $n in its conditions); the
// index each scan uses, the execution time and a loud warning for a Seq Scan on a big table
// are printed.
//
// Data (bench/searchSeed.ts): INSERT ... SELECT FROM generate_series, one statement per
// table, with session_replication_role = replica (triggers, including foreign-key checks,
// off), the seeded tables' secondary indexes dropped first and made again after (b-tree
// before the search documents are rebuilt, GIN after), then search_documents_rebuild() when
// the schema has it, then VACUUM ANALYZE; each step is timed. The scratch database is dropped
// at the end, also on failure or Ctrl-C. At full size the whole run takes about 11 minutes on
// a 2-core machine (10 of them seeding, most of that the rebuild and the GIN indexes).
// Sizes: BENCH_SEARCH_ORDERS (1000000; returns alike), BENCH_SEARCH_CUSTOMERS (orders / 10),
// BENCH_SEARCH_PRODUCTS (orders / 20), BENCH_SEARCH_OTHER_ORDERS (the small store, orders / 50);
// BENCH_SEARCH_REQUESTS (200 timed per query), BENCH_SEARCH_MAX_SECONDS (20 of timed
// requests per query at most).
import crypto from 'node:crypto';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SCOPES } from '../src/auth/scopes.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import type { Database } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createApiClient, createStore } from '../src/domain/stores.ts';
import { createLogger } from '../src/observability/logger.ts';
import { createApp } from '../src/process/server.ts';
import { exited, startService, type Service, type ServiceCode } from '../test/support/service.ts';
import { waitFor } from '../test/webhooks/support.ts';
import { runClientProcess } from './load.ts';
import { dropOnInterrupt, scratchDatabase } from './scratchDatabase.ts';
import { orderIdOf, seedStore, type SeedSize, type Timed } from './searchSeed.ts';

const envInt = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${process.env[name]}`);
  return value;
};
const ORDERS = envInt('BENCH_SEARCH_ORDERS', 1_000_000);
const SIZE: SeedSize = {
  orders: ORDERS,
  customers: envInt('BENCH_SEARCH_CUSTOMERS', Math.max(100, Math.round(ORDERS / 10))),
  products: envInt('BENCH_SEARCH_PRODUCTS', Math.max(100, Math.round(ORDERS / 20))),
};
const OTHER_ORDERS = envInt('BENCH_SEARCH_OTHER_ORDERS', Math.max(200, Math.round(ORDERS / 50)));
const OTHER_SIZE: SeedSize = { orders: OTHER_ORDERS, customers: Math.max(100, Math.round(OTHER_ORDERS / 10)), products: Math.max(100, Math.round(OTHER_ORDERS / 20)) };
const REQUESTS = envInt('BENCH_SEARCH_REQUESTS', 200);
const WARMUP = 20;
const MAX_SECONDS = envInt('BENCH_SEARCH_MAX_SECONDS', 20);
const CODE: ServiceCode = process.env.BENCH_SEARCH_CODE === 'build' ? 'build' : 'source';
const PAGE = 25;
const DEEP_PAGE = 40;
/** Executions of a prepared statement before the one explained: PostgreSQL's plan cache weighs a generic plan from the sixth on. */
const PLAN_CACHE_RUNS = 5;
/** A Seq Scan on a table with more rows than this is a finding. */
const BIG_TABLE_ROWS = 10_000;
/** Signs cursors alike in the service and the in-process app, so one's cursor is the other's. */
const CURSOR_SECRET = `bench-search-${crypto.randomBytes(16).toString('hex')}`;
const WORKER = fileURLToPath(new URL('./sequentialClient.mjs', import.meta.url));
/** Tables the seed fills by the million: their secondary indexes are made after the rows. */
const BULK_TABLES = ['Customer', 'Product', 'Order', 'OrderLineItem', 'Return', 'ReturnItem'];
const DAY_MS = 86_400_000;
/** The longest one seeding statement may take (the rebuild of 1,000,000 orders and returns took 5 minutes on a loaded 2-core machine). */
const SEED_STATEMENT_TIMEOUT_MIN = 30;

type Kind = 'exact' | 'selective' | 'unselective' | 'bounded' | 'deep';
const TARGET_MS: Record<Exclude<Kind, 'deep'>, number> = { exact: 10, selective: 50, unselective: 200, bounded: 200 };

interface HttpRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface Query {
  label: string;
  kind: Kind;
  /** Needs the `query:` search argument. */
  search: boolean;
  /** Its request, given the cursor of the page to read (deep pages). */
  request: (after?: string) => HttpRequest;
  /** Nodes in an answer, and the next page's cursor. */
  read: (body: unknown) => { nodes: number; hasNext?: boolean; endCursor?: string | null };
  /** For a deep page: the page to read, following endCursor from page 1. */
  page?: number;
  /** For a deep page: the label of its page 1. */
  firstPageOf?: string;
  /** The code of the GraphQL error it may be refused with instead (then timed as refused). */
  refusal?: string;
  /** Refused before a statement of its search runs (the cost limit): checked on the plans' capture. */
  refusedBeforeRunning?: boolean;
}

interface Credentials {
  storeId: string;
  secret: string;
}

interface Targets {
  orderName: string;
  orderId: string;
  email: string;
  phone: string;
  tracking: string;
  freeTracking: string;
  sku: string;
  barcode: string;
  namePart: string;
  monthFrom: string;
  monthTo: string;
}

interface Measured {
  query: Query;
  outcome: 'measured' | 'not available' | 'failed';
  nodes?: string;
  p50?: number;
  p95?: number;
  made?: number;
  note?: string;
}

const write = (line = '') => process.stdout.write(`${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await fn();
  write(`  ${what.padEnd(44)} ${seconds(performance.now() - started).padStart(9)}`);
  return result;
}

// ---------------------------------------------------------------- data

interface IndexDef {
  name: string;
  table: string;
  def: string;
  gin: boolean;
}

/** Drops the secondary indexes of BULK_TABLES (none that backs a constraint) and answers how to make them again. */
async function dropSecondaryIndexes(client: pg.Client): Promise<IndexDef[]> {
  const { rows } = await client.query<{ name: string; table: string; def: string; method: string }>(
    `SELECT ic.relname AS name, t.relname AS table, pg_get_indexdef(i.indexrelid) AS def, am.amname AS method
     FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid JOIN pg_am am ON am.oid = ic.relam
     JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = 'public' AND t.relname = ANY($1) AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
     ORDER BY t.relname, ic.relname`,
    [BULK_TABLES],
  );
  for (const row of rows) await client.query(`DROP INDEX "${row.name}"`);
  return rows.map((row) => ({ name: row.name, table: row.table, def: row.def, gin: row.method === 'gin' }));
}

/** The stores' rows at size, as the search bench and the export bench (bench/export.ts) measure on them. */
export async function seed(client: pg.Client, stores: { store: Credentials; tag: string; size: SeedSize; label: string }[]): Promise<void> {
  const now = new Date();
  const started = performance.now();
  await client.query(`SET work_mem = '256MB'`);
  await client.query(`SET maintenance_work_mem = '1GB'`);
  await client.query('SET synchronous_commit = off');
  // Bounded: a rebuild that finds no index for its lookups fails the run instead of holding it for hours.
  await client.query(`SET statement_timeout = '${SEED_STATEMENT_TIMEOUT_MIN}min'`);
  const indexes = await timed(`drop secondary indexes of ${BULK_TABLES.length} tables`, () => dropSecondaryIndexes(client));
  await client.query('SET session_replication_role = replica');
  for (const { store, tag, size, label } of stores) {
    write(`  ${label}: ${size.orders} orders, ${size.customers} customers, ${size.products} products (triggers off)`);
    await seedStore(client, { storeId: store.storeId, tag, size, now }, ({ table, rows, ms }: Timed) =>
      write(`    ${table.padEnd(30)} ${String(rows).padStart(9)} rows ${seconds(ms).padStart(9)}`),
    );
  }
  await client.query('RESET session_replication_role');
  await timed(`b-tree indexes again (${indexes.filter((i) => !i.gin).length})`, async () => {
    for (const index of indexes.filter((i) => !i.gin)) await client.query(index.def);
  });
  await timed('ANALYZE (for the rebuild)', () => client.query('ANALYZE'));
  const { rows } = await client.query(`SELECT 1 FROM pg_proc WHERE proname = 'search_documents_rebuild'`);
  if (rows.length > 0) await timed('SELECT search_documents_rebuild()', () => client.query('SELECT search_documents_rebuild()'));
  else write('  search_documents_rebuild() does not exist yet: search documents not rebuilt (skipped)');
  const gin = indexes.filter((i) => i.gin);
  if (gin.length > 0) {
    await timed(`GIN indexes again (${gin.map((i) => i.name).join(', ')})`, async () => {
      for (const index of gin) await client.query(index.def);
    });
  }
  await timed('VACUUM ANALYZE', () => client.query('VACUUM ANALYZE'));
  await client.query('RESET ALL');
  write(`  seeded in ${seconds(performance.now() - started)}`);
}

/** The values the queries look for, read back from the seeded store. */
async function pickTargets(client: pg.Client, storeId: string): Promise<Targets> {
  const one = async <T>(sql: string, params: unknown[]): Promise<T> => {
    const { rows } = await client.query(sql, params);
    if (rows.length === 0) throw new Error(`no target for ${sql}`);
    return Object.values(rows[0] as Record<string, unknown>)[0] as T;
  };
  const g = Math.max(1, Math.round(ORDERS * 0.6));
  const orderId = orderIdOf('a', g);
  const email = await one<string>(`SELECT "customerEmail" FROM "Order" WHERE "id" = $1`, [orderId]);
  const phone = await one<string>(
    `SELECT "phoneNumbers"[1] FROM "Customer" WHERE "storeId" = $1 AND "phoneNumbers"[1] LIKE '+1415555%' ORDER BY "phoneNumbers"[1] = '+14155550107' DESC, "id" LIMIT 1`,
    [storeId],
  );
  const upsTracking = (fraction: number) =>
    one<string>(`SELECT "trackingNumber" FROM "Return" WHERE "storeId" = $1 AND "carrier" = 'UPS' AND "orderId" >= $2 ORDER BY "orderId" LIMIT 1`, [
      storeId,
      orderIdOf('a', Math.max(1, Math.round(ORDERS * fraction))),
    ]);
  const lastName = await one<string>(
    `SELECT "lastName" FROM "Customer" WHERE "storeId" = $1 AND "lastName" ~ '^[A-Za-z]{7,}$' ORDER BY "id" OFFSET $2 LIMIT 1`,
    [storeId, Math.floor(SIZE.customers / 3)],
  );
  const now = new Date();
  return {
    orderName: `#${1000 + g}`,
    orderId,
    email,
    phone: `(${phone.slice(2, 5)}) ${phone.slice(5, 8)} ${phone.slice(8)}`,
    tracking: await upsTracking(0.3),
    freeTracking: await upsTracking(0.8),
    sku: await one<string>(`SELECT "sku" FROM "OrderLineItem" WHERE "orderId" = $1 ORDER BY "position" LIMIT 1`, [orderId]),
    barcode: await one<string>(`SELECT "upc" FROM "Product" WHERE "storeId" = $1 ORDER BY "id" OFFSET $2 LIMIT 1`, [storeId, Math.floor(SIZE.products / 2)]),
    namePart: lastName.slice(2, 6).toLowerCase(),
    monthFrom: new Date(now.getTime() - 30 * DAY_MS).toISOString().slice(0, 10),
    monthTo: new Date(now.getTime() + DAY_MS).toISOString().slice(0, 10),
  };
}

// ---------------------------------------------------------------- queries

const RETURN_NODE = 'id status createdAt order { name }';
const NODES: Record<'returns' | 'orders' | 'customers' | 'products', string> = {
  returns: RETURN_NODE,
  orders: 'id name createdAt',
  customers: 'id name email',
  products: 'id title sku',
};

interface GraphQLAnswer {
  data?: Record<string, { nodes?: unknown[]; pageInfo?: { hasNextPage: boolean; endCursor: string | null } } | null>;
  errors?: { message: string; extensions?: { code?: string } }[];
}

function queries(credentials: Credentials, t: Targets): Query[] {
  const graphql = (document: string, variables: Record<string, unknown>): HttpRequest => ({
    method: 'POST',
    path: '/v3/graphql',
    headers: { authorization: `Bearer ${credentials.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: document, variables }),
  });
  const connection = (field: string) => (body: unknown) => {
    const answer = (body as GraphQLAnswer).data?.[field];
    return { nodes: answer?.nodes?.length ?? 0, hasNext: answer?.pageInfo?.hasNextPage, endCursor: answer?.pageInfo?.endCursor };
  };
  const single = () => ({ nodes: 1 });
  const search = (field: keyof typeof NODES, text: string, kind: Kind, extra: Partial<Query> = {}): Query => ({
    label: `${field}(query: ${JSON.stringify(text)})${extra.page ? ` page ${extra.page}` : ''}`,
    kind,
    search: true,
    request: (after) =>
      graphql(
        `query Search($q: String!, $after: String) { ${field}(query: $q, first: ${PAGE}, after: $after) { nodes { ${NODES[field]} } pageInfo { hasNextPage endCursor } } }`,
        { q: text, after: after ?? null },
      ),
    read: connection(field),
    ...extra,
  });
  const statusPage = (page?: number): Query => ({
    label: `returns(status: [COMPLETE]) page ${page ?? 1} (no search)`,
    kind: page ? 'deep' : 'unselective',
    search: false,
    request: (after) =>
      graphql(
        `query Complete($after: String) { returns(status: [COMPLETE], first: ${PAGE}, after: $after) { nodes { ${RETURN_NODE} } pageInfo { hasNextPage endCursor } } }`,
        { after: after ?? null },
      ),
    read: connection('returns'),
    ...(page ? { page, firstPageOf: 'returns(status: [COMPLETE]) page 1 (no search)' } : {}),
  });
  const month = `status:complete created_at:>=${t.monthFrom} created_at:<${t.monthTo}`;
  return [
    {
      label: `returns(orderName: "${t.orderName}")`,
      kind: 'exact',
      search: false,
      request: () =>
        graphql(`query ByOrderName($n: String!) { returns(orderName: $n, first: ${PAGE}) { nodes { ${RETURN_NODE} } pageInfo { hasNextPage endCursor } } }`, {
          n: t.orderName,
        }),
      read: connection('returns'),
    },
    {
      label: `findReturn(orderName: "${t.orderName}")`,
      kind: 'exact',
      search: false,
      request: () => graphql(`query FindByOrderName($n: String!) { findReturn(orderName: $n) { ${RETURN_NODE} } }`, { n: t.orderName }),
      read: single,
    },
    {
      label: `GET warehouse return/details?order_name=${t.orderName}`,
      kind: 'exact',
      search: false,
      request: () => ({
        method: 'GET',
        path: `/api/v1/warehouse/return/details?order_name=${encodeURIComponent(t.orderName)}`,
        headers: { 'x-authorization': credentials.secret },
      }),
      read: single,
    },
    {
      label: `findReturn(orderId: "${t.orderId}")`,
      kind: 'exact',
      search: false,
      request: () => graphql(`query FindByOrderId($id: ID!) { findReturn(orderId: $id) { ${RETURN_NODE} } }`, { id: t.orderId }),
      read: single,
    },
    search('orders', t.email, 'selective'),
    search('orders', t.phone, 'selective'),
    search('returns', `tracking:${t.tracking}`, 'selective'),
    search('returns', t.freeTracking, 'selective'),
    search('orders', `sku:${t.sku}`, 'selective'),
    search('products', t.barcode, 'selective'),
    search('customers', t.namePart, 'selective'),
    search('customers', 'zoe', 'selective'),
    search('orders', 'gmai', 'unselective'),
    search('products', 'tee', 'unselective'),
    search('returns', month, 'unselective'),
    search('returns', 'status:complete', 'unselective'),
    search('returns', 'status:complete', 'deep', { page: DEEP_PAGE, firstPageOf: 'returns(query: "status:complete")' }),
    statusPage(),
    statusPage(DEEP_PAGE),
    ...boundedQueries(t, graphql, search),
  ];
}

/** Two letters apart: `count` different words of 2 letters (ab, ac, ...). */
const twoLetterWords = (count: number) => Array.from({ length: count }, (_, i) => `${String.fromCharCode(97 + Math.floor(i / 25))}${String.fromCharCode(98 + (i % 25))}`);

/** Issue 42's searches: each is answered or refused (BAD_USER_INPUT, or the cost limit's code) within 200 ms. */
function boundedQueries(
  t: Targets,
  graphql: (document: string, variables: Record<string, unknown>) => HttpRequest,
  search: (field: keyof typeof NODES, text: string, kind: Kind, extra?: Partial<Query>) => Query,
): Query[] {
  const refusable = { refusal: 'BAD_USER_INPUT' };
  const levels = (text: string): Query => ({
    label: `inventoryLevels(query: ${JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text)})`,
    kind: 'bounded',
    search: true,
    ...refusable,
    request: () => graphql(`query Levels($q: String!) { inventoryLevels(query: $q, first: ${PAGE}) { nodes { id } } }`, { q: text }),
    read: (body: unknown) => ({ nodes: (body as GraphQLAnswer).data?.inventoryLevels?.nodes?.length ?? 0 }),
  });
  const thirtyAb = Array.from({ length: 30 }, () => 'ab').join(' ');
  const aliases = Array.from({ length: 10 }, (_, i) => `a${i}: inventoryLevels(query: "${thirtyAb}", first: ${PAGE}) { nodes { id } }`).join(' ');
  return [
    search('orders', '-mug', 'bounded', refusable),
    search('orders', 'zz', 'bounded', refusable),
    search('orders', 'sam7 zz', 'bounded', refusable),
    search('customers', twoLetterWords(10).join(' '), 'bounded', refusable),
    ...[10, 20, 30].map((n) => search('orders', [t.email, ...twoLetterWords(n - 1)].join(' '), 'bounded', refusable)),
    ...[10, 20, 30].map((n) => levels(['tee', ...twoLetterWords(n - 1)].join(' '))),
    levels(thirtyAb),
    {
      label: `10 aliases of inventoryLevels(query: "ab ab ... (30 terms)")`,
      kind: 'bounded',
      search: true,
      refusal: 'QUERY_TOO_COSTLY',
      refusedBeforeRunning: true,
      request: () => graphql(`query TenAliases { ${aliases} }`, {}),
      read: () => ({ nodes: 0 }),
    },
  ];
}

// ---------------------------------------------------------------- measuring

const isValidationError = (answer: GraphQLAnswer) =>
  (answer.errors ?? []).some((e) => e.extensions?.code === 'GRAPHQL_VALIDATION_FAILED' || /^(Unknown argument|Cannot query field)/.test(e.message));

async function send(base: string, request: HttpRequest): Promise<{ status: number; body: unknown; text: string }> {
  const response = await fetch(`${base}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body, text };
}

/** The cursor of the query's page (`page` 1 has none), following endCursor from page 1; a string says why not. */
async function cursorOf(base: string, query: Query): Promise<{ after?: string } | string> {
  let after: string | undefined;
  for (let page = 1; page < (query.page ?? 1); page++) {
    const answer = await send(base, query.request(after));
    if (answer.status !== 200 || (answer.body as GraphQLAnswer).errors) return `page ${page}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`;
    const { hasNext, endCursor } = query.read(answer.body);
    if (!hasNext || !endCursor) return `only ${page} pages`;
    after = endCursor;
  }
  return { after };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** REQUESTS sequential requests from a process of its own. */
function measureInWorker(base: string, request: HttpRequest, refusal?: string): Promise<{ latencies: number[] } | { error: string }> {
  const options = { url: `${base}${request.path}`, method: request.method, headers: request.headers, body: request.body, warmup: WARMUP, count: REQUESTS, maxSeconds: MAX_SECONDS, graphql: request.path === '/v3/graphql', refusal };
  return runClientProcess(WORKER, options);
}

interface Prepared {
  query: Query;
  /** The request measured (a deep page's carries its cursor), or why there is none. */
  request?: HttpRequest;
  nodes?: string;
  outcome?: Measured;
}

/** The query's request, its cursor followed, answered once and checked: available, and what it finds. */
async function prepare(base: string, query: Query, cursors: Map<string, string | undefined>): Promise<Prepared> {
  const cursor = await cursorOf(base, query);
  if (typeof cursor === 'string') return { query, outcome: { query, outcome: 'failed', note: `could not reach page ${query.page}: ${cursor}` } };
  cursors.set(query.label, cursor.after);
  const request = query.request(cursor.after);
  const probe = await send(base, request);
  const answer = probe.body as GraphQLAnswer | undefined;
  if (query.search && answer && isValidationError(answer)) return { query, outcome: { query, outcome: 'not available', note: answer.errors![0].message } };
  if (probe.status === 200 && query.refusal && answer?.errors?.every((e) => e.extensions?.code === query.refusal)) {
    write(`  ${query.label}: refused, ${query.refusal}: ${answer.errors[0].message}`);
    return { query, request, nodes: 'refused' };
  }
  if (probe.status !== 200 || answer?.errors) return { query, outcome: { query, outcome: 'failed', note: `HTTP ${probe.status}: ${probe.text.slice(0, 400)}` } };
  const { nodes, hasNext } = query.read(probe.body);
  return { query, request, nodes: `${nodes}${hasNext ? '+' : ''}` };
}

async function measure(base: string, prepared: Prepared): Promise<Measured> {
  const { query, request, nodes } = prepared;
  if (prepared.outcome || !request) return prepared.outcome ?? { query, outcome: 'failed', note: 'no request' };
  const result = await measureInWorker(base, request, query.refusal);
  if ('error' in result) return { query, outcome: 'failed', note: result.error };
  const sorted = [...result.latencies].sort((a, b) => a - b);
  return { query, outcome: 'measured', nodes, p50: percentile(sorted, 50), p95: percentile(sorted, 95), made: sorted.length };
}

// ---------------------------------------------------------------- plans

interface Statement {
  sql: string;
  params: unknown[];
  /** As the in-process app saw it: round trip and rows included. */
  durationMs: number;
}

/** The statements the database ran for one request to the in-process app, BEGIN, COMMIT and ROLLBACK aside. */
async function statementsOf(db: Database, base: string, request: HttpRequest): Promise<{ statements: Statement[]; ms: number }> {
  const seen: Statement[] = [];
  const stop = db.onStatement((statement) => {
    if (!/^\s*(BEGIN|COMMIT|ROLLBACK)\b|^-- Implicit/i.test(statement.sql)) seen.push({ sql: statement.sql, params: statement.params, durationMs: statement.durationMs });
  });
  const started = performance.now();
  try {
    const answer = await send(base, request);
    if (answer.status !== 200) throw new Error(`${request.path} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  } finally {
    stop();
  }
  return { statements: seen, ms: performance.now() - started };
}

/** A parameter as the text of an SQL literal of unknown type (PostgreSQL casts it to the statement's parameter type). */
function literal(client: pg.Client, value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (value instanceof Date) return client.escapeLiteral(value.toISOString());
  if (Array.isArray(value)) {
    const element = (v: unknown) => (v === null ? 'NULL' : `"${String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
    return client.escapeLiteral(`{${value.map(element).join(',')}}`);
  }
  if (typeof value === 'object') return client.escapeLiteral(JSON.stringify(value));
  return client.escapeLiteral(String(value));
}

interface Plan {
  lines: string[];
  error?: string;
}

/**
 * The plan of `statement` as the service's connections run it: a named prepared statement,
 * executed PLAN_CACHE_RUNS times with these parameters, then EXPLAIN (ANALYZE, BUFFERS)
 * EXECUTE of it (the plan cache's choice, generic or custom).
 */
async function planOf(client: pg.Client, statement: Statement, name: string): Promise<Plan> {
  // The service runs a search planned for its parameters (db/sqlChannel.ts: plan_cache_mode = force_custom_plan).
  const searches = SEARCH_STATEMENT.test(statement.sql);
  if (searches) await client.query('SET plan_cache_mode = force_custom_plan');
  try {
    for (let i = 0; i < PLAN_CACHE_RUNS; i++) await client.query({ name, text: statement.sql, values: statement.params });
    const args = statement.params.length > 0 ? `(${statement.params.map((p) => literal(client, p)).join(', ')})` : '';
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE ${name}${args}`);
    return { lines: rows.map((row) => row['QUERY PLAN']) };
  } catch (error) {
    return { lines: [], error: (error as Error).message };
  } finally {
    await client.query(`DEALLOCATE ${name}`).catch(() => undefined);
    if (searches) await client.query('RESET plan_cache_mode');
  }
}

/** A statement that searches text: the search documents or a folded column. */
const SEARCH_STATEMENT = /"searchText"|search_fold\(/;

const compact = (sql: string, max = 110) => {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};

/** The lines of a plan worth reading here: scans (by index, bitmap, whole table) with their conditions, the root's buffers, the times. */
function summarise(plan: Plan, bigTables: Map<string, number>): { lines: string[]; seqScans: string[] } {
  const lines: string[] = [];
  const seqScans: string[] = [];
  let rootBuffers: string | undefined;
  /** Within a scan node: its detail lines (conditions, rows removed) follow until the next node. */
  let inScan = false;
  for (const raw of plan.lines) {
    const text = raw.replace(/\s*\(cost=[^)]*\)/, '').trim().replace(/^->\s*/, '');
    rootBuffers ??= /^\s*Buffers:/.test(raw) ? text : undefined;
    const isNode = raw.includes('->') || /^\S/.test(raw);
    if (isNode) inScan = false;
    if (/(Index Scan|Index Only Scan|Bitmap Index Scan|Bitmap Heap Scan)\b/.test(text)) {
      lines.push(`      ${text}`);
      inScan = true;
    }
    const seq = /Seq Scan on "?([\w]+)"?/.exec(text);
    if (seq) {
      const rows = bigTables.get(seq[1]) ?? 0;
      lines.push(`      ${text}`);
      inScan = true;
      if (rows > BIG_TABLE_ROWS) seqScans.push(`${seq[1]} (~${Math.round(rows)} rows)`);
    }
    if (inScan && !isNode && /^(Index Cond|Recheck Cond|Filter|Rows Removed by (Filter|Index Recheck)|Heap Blocks):/.test(text)) {
      lines.push(`        ${text.length > 220 ? `${text.slice(0, 220)}…` : text}`);
    }
    if (/^(Execution Time|Planning Time):/.test(text)) lines.push(`      ${text}`);
  }
  if (rootBuffers) lines.push(`      root ${rootBuffers}`);
  return { lines, seqScans };
}

async function explainAll(url: string, credentials: Credentials, rows: Measured[], cursors: Map<string, string | undefined>): Promise<string[]> {
  const warnings: string[] = [];
  const db = await openDatabase(url, { poolSize: 2 });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const config = { ...loadConfig({ LOG_LEVEL: 'silent', CURSOR_SECRET }), rateLimits: { rest: 1_000_000, compat: 1_000_000 } };
  const app = createApp({ db, config, logger: createLogger('silent') });
  try {
    await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const { rows: sizes } = await client.query<{ relname: string; reltuples: number }>(
      `SELECT c.relname, c.reltuples FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'`,
    );
    const bigTables = new Map(sizes.map((s) => [s.relname, Number(s.reltuples)]));
    let n = 0;
    /** Statements already explained (text and parameters), by the query that ran them first: the authentication's, mostly. */
    const explained = new Map<string, string>();
    for (const row of rows) {
      if (row.outcome !== 'measured') continue;
      const { statements, ms } = await statementsOf(db, base, row.query.request(cursors.get(row.query.label)));
      write(`  ${row.query.label}: ${statements.length} statements, captured request ${ms.toFixed(1)} ms`);
      if (row.query.refusedBeforeRunning) {
        const ran = statements.filter((statement) => SEARCH_STATEMENT.test(statement.sql)).length;
        write(`    search statements run before the refusal: ${ran}`);
        if (ran > 0) warnings.push(`!!! ${row.query.label} ran ${ran} search statements before it was refused`);
      }
      for (const statement of statements) {
        if (!/^\s*(SELECT|WITH)\b/i.test(statement.sql)) {
          write(`    (not a read, not explained) ${compact(statement.sql)}`);
          continue;
        }
        const key = JSON.stringify([statement.sql, statement.params]);
        const first = explained.get(key);
        if (first) {
          write(`    ${compact(statement.sql, 60)} (as for ${first})`);
          continue;
        }
        explained.set(key, row.query.label);
        const plan = await planOf(client, statement, `bench_search_${++n}`);
        const generic = plan.lines.some((line) => /\$\d/.test(line));
        write(`    ${compact(statement.sql)} (${statement.durationMs.toFixed(1)} ms in the app)`);
        if (plan.error) {
          write(`      EXPLAIN failed: ${plan.error}`);
          continue;
        }
        const { lines, seqScans } = summarise(plan, bigTables);
        if (generic) write('      (generic plan: the conditions show $n)');
        for (const line of lines) write(line);
        for (const table of seqScans) {
          const warning = `!!! SEQ SCAN on big table ${table} for ${row.query.label}`;
          warnings.push(warning);
          write(`      ${warning}`);
        }
      }
    }
  } finally {
    await app.shutdown(1_000).catch(() => undefined);
    await client.end().catch(() => undefined);
    await db.close();
  }
  return warnings;
}

// ---------------------------------------------------------------- report

function verdict(row: Measured, byLabel: Map<string, Measured>): string {
  if (row.p95 === undefined) return '';
  if (row.query.kind === 'deep') {
    const first = byLabel.get(row.query.firstPageOf ?? '');
    if (first?.p50 === undefined || first.p95 === undefined) return 'page 1 not measured';
    // Judged by the medians: a loaded machine's p95 moves by more than a page's cost.
    const flat = row.p50! <= Math.max(1.5 * first.p50, first.p50 + 2);
    return `vs page 1 (p50 ${first.p50.toFixed(1)}, p95 ${first.p95.toFixed(1)} ms): p50 ${(row.p50! / first.p50).toFixed(2)}x, p95 ${(row.p95 / first.p95).toFixed(2)}x ${flat ? 'flat, ok' : 'NOT FLAT'}`;
  }
  const target = TARGET_MS[row.query.kind];
  return `p95 <= ${target} ms: ${row.p95 <= target ? 'ok' : 'MISSED'}`;
}

function printTable(rows: Measured[]) {
  const byLabel = new Map(rows.map((r) => [r.query.label, r]));
  const width = Math.min(90, Math.max(...rows.map((r) => r.query.label.length)) + 2);
  write(`  ${'query'.padEnd(width)}${'kind'.padEnd(12)}${'nodes'.padStart(6)}${'p50 ms'.padStart(9)}${'p95 ms'.padStart(9)}${'n'.padStart(5)}  target`);
  for (const row of rows) {
    const start = `  ${row.query.label.padEnd(width)}${row.query.kind.padEnd(12)}`;
    if (row.outcome === 'measured') {
      write(`${start}${row.nodes!.padStart(6)}${row.p50!.toFixed(1).padStart(9)}${row.p95!.toFixed(1).padStart(9)}${String(row.made).padStart(5)}  ${verdict(row, byLabel)}`);
    } else if (row.outcome === 'not available') {
      write(`${start}  not available (${row.note})`);
    } else {
      write(`${start}  FAILED: ${row.note}`);
    }
  }
}

// ---------------------------------------------------------------- run

export async function run(): Promise<void> {
  const scratch = await scratchDatabase('search');
  let service: Service | undefined;
  let client: pg.Client | undefined;
  // Interrupted (Ctrl-C, a closed pipe's SIGPIPE is not one): the service stopped, the database dropped, then the exit.
  const stopWatching = dropOnInterrupt(scratch, () => service);
  try {
    write(`scratch database ${new URL(scratch.url).pathname.slice(1)}; ${REQUESTS} timed requests per query after ${WARMUP} (at most ${MAX_SECONDS} s), first: ${PAGE}`);
    const db = await openDatabase(scratch.url, { poolSize: 2 });
    let main: Credentials;
    let other: Credentials;
    try {
      await timed('migrations', () => applyMigrations(db));
      const makeStore = async (name: string): Promise<Credentials> => {
        const { id: storeId } = await createStore(db.prisma, { name });
        const { secret } = await createApiClient(db.prisma, { storeId, name: 'search bench', scopes: SCOPES });
        return { storeId, secret };
      };
      main = await makeStore('Search bench');
      other = await makeStore('Search bench, other store');
    } finally {
      await db.close();
    }
    client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    await seed(client, [
      { store: main, tag: 'a', size: SIZE, label: 'store' },
      { store: other, tag: 'b', size: OTHER_SIZE, label: 'other store' },
    ]);
    const targets = await pickTargets(client, main.storeId);
    await client.end();
    client = undefined;

    service = await startService(
      scratch.url,
      {
        NODE_ENV: 'production',
        SEED_WHEN_EMPTY: 'false',
        // Migrated above; a migration edited since then must not stop the start.
        MIGRATE_ON_START: 'false',
        LOG_LEVEL: 'warn',
        WEBHOOK_DISPATCHER: 'false',
        RATE_LIMIT_REST_PER_MINUTE: '1000000',
        RATE_LIMIT_COMPAT_PER_MINUTE: '1000000',
        CURSOR_SECRET,
      },
      CODE,
    );
    const base = service.url;
    await waitFor(async () => (await fetch(`${base}/readyz`).then((r) => r.status).catch(() => 0)) === 200, '/readyz', 120_000, 100);
    write(`service (${CODE === 'build' ? 'build' : 'source through tsx'}, NODE_ENV=production) at ${base}; each query from a client process of its own, one request at a time`);
    const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');
    write(`  load average before: ${load()} (${os.cpus().length} cores)`);
    const rows: Measured[] = [];
    const cursors = new Map<string, string | undefined>();
    const prepared: Prepared[] = [];
    for (const query of queries(main, targets)) prepared.push(await prepare(base, query, cursors));
    // Every code path of the service warmed up (V8 compiles a query's path after some runs) before any is timed.
    const warming = performance.now();
    for (const { request } of prepared) for (let i = 0; request && i < WARMUP; i++) await send(base, request);
    write(`  warmed up: ${WARMUP} of each query, one at a time, in ${seconds(performance.now() - warming)}`);
    for (const one of prepared) {
      const row = await measure(base, one);
      const query = one.query;
      rows.push(row);
      const figures = row.outcome === 'measured' ? `${row.nodes} nodes, p50 ${row.p50!.toFixed(1)} ms, p95 ${row.p95!.toFixed(1)} ms` : `${row.outcome}`;
      write(`  ${query.label}: ${figures}`);
    }
    write(`  load average after: ${load()}`);
    service.child.kill('SIGTERM');
    await exited(service.child);
    service = undefined;

    write('\nplans: each statement of one request, as a named prepared statement after 5 runs, EXPLAIN (ANALYZE, BUFFERS)');
    const warnings = await explainAll(scratch.url, main, rows, cursors);

    write(`\nfirst page (first: ${PAGE}) latency, ${SIZE.orders} orders / returns, ${SIZE.customers} customers, ${SIZE.products} products`);
    printTable(rows);
    for (const warning of warnings) write(`  ${warning}`);
    const failed = rows.filter((r) => r.outcome === 'failed');
    if (failed.length > 0) throw new Error(`${failed.length} queries failed: ${failed.map((r) => r.query.label).join('; ')}`);
  } finally {
    if (service) {
      service.child.kill('SIGTERM');
      await exited(service.child);
    }
    await client?.end().catch(() => undefined);
    await scratch.drop();
    stopWatching();
  }
}
