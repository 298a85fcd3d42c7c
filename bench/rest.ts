// The cost of the REST doors, measured from outside: every request is made by a load
// generator in its own process (bench/load.ts: autocannon, CONCURRENCY connections,
// interleaved rounds), never in the server's event loop. The servers run in this process.
// Two operations, customer upsert and one page (20) of the returns list, each against:
//   rest   the door: PUT /v2.2/stores/{id}/customers, GET /v2.2/stores/{id}/returns
//   v3     the same GraphQL operation the REST route runs, posted to /v3/graphql
//   v3rest the service's own SOFA door, /v3/rest/... (auth, rate limit, problem+json;
//          SOFA's generated selection, so the returns page selects more than `v3`)
//   sofa   the schema field served by a SOFA router (sofa-api), SOFA's own operation
//   table  SOFA's very operation run by a route table + adapter, as the door's routes are
//   raw    a hand-written node:http route calling the domain function directly
//   sql    the floor: a node:http route doing the least SQL the operation needs, with no
//          ORM: the API-client lookup, then for the upsert one statement (customer upsert
//          and outbox event, one transaction), for the page one query returning each return
//          as JSON, shaped as the door shapes it; its body must equal the door's (checked)
//   memory the door itself with every read answered from memory (bench/readsInMemory.ts):
//          no statement runs, so memory/sql bounds what rest/sql any change to how the
//          data is read could reach (the real request does the same work plus the reads)
//   pgl4   on PostgreSQL, PostGraphile 4.14.1 over the same tables, asked for the data the
//          page selects (bench/peer.ts), in a process of its own
//   pgl5   the same with PostGraphile 5.1.5 (v4 preset, so the same query; on Node 22)
// Each variant's CPU time per request is printed beside its throughput: this process's, or the
// peer's own process's; less swayed by other work on the machine than throughput is.
// On PostgreSQL each page's statements are also counted by the server itself
// (pg_stat_statements, where the server preloads it: BENCH_POSTGRES_URL may name a scratch
// cluster that does), for the door and for each peer.
// Then the other hot reads (GET order, GET customer, a page of inventory levels, the
// warehouse door's return list, the /v3/rest returns page), each beside its floor
// `replay`: the door's own statements, captured from one request, run by a bare node:http
// route after the API-client lookup, answering their rows as JSON.
// Every variant authenticates the bearer secret and counts the rate limit as the
// door does, so what differs is the layer between HTTP and the domain. `sofa` vs
// `table` isolates SOFA's route handling (both execute the same document); a third
// run does that on the cheapest operation (the store lookup) without per-request
// authentication, where routing weighs most.
// Run on in-memory PGlite and on a scratch PostgreSQL database (dropped after).
// BENCH_REST_ONLY names the parts to measure, comma-separated: `returns` the returns page,
// `warehouse` the warehouse door's return list beside its replay, `v3rest` the /v3/rest returns
// page beside its replay (e.g. returns,warehouse).
// BENCH_PROFILE=rest,memory writes a CPU profile of this process while those variants
// are under load (bench/profiles/), with a summary.
import http from 'node:http';
import os from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { execute, print, type DocumentNode, type ExecutionArgs } from 'graphql';
import { authenticate, isAuthFailure, readSecret, type AuthContext } from '../src/auth/authenticate.ts';
import { createRateLimiter } from '../src/auth/rateLimit.ts';
import { SCOPES } from '../src/auth/scopes.ts';
import { hashSecret } from '../src/auth/secrets.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import type { Database } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { foldStoreChanges } from '../src/db/storeChanges.ts';
import { upsertCustomer, type CustomerUpsertInput } from '../src/domain/customers.ts';
import { newId } from '../src/domain/ids.ts';
import { listReturns } from '../src/domain/returns/lists.ts';
import { seedOrdersWithReturns } from './returnsSeed.ts';
import { createApiClient, createStore } from '../src/domain/stores.ts';
import { createLogger } from '../src/observability/logger.ts';
import { REST_ORDER_FRAGMENT, REST_RETURN_FRAGMENT, restReturnList, type RestOrderNode, type RestReturnNode } from '../src/formats/restReturn.ts';
import { formatAmount } from '../src/domain/money.ts';
import type { DoorResponse } from '../src/http/door.ts';
import { RouteTable } from '../src/http/routeTable.ts';
import { contextFactory, type GraphQLContext } from '../src/schema/context.ts';
import { contextServices } from '../src/process/contextServices.ts';
import type { CursorSigner } from '../src/schema/cursors.ts';
import { defineOperation, runOperation, type Operation } from '../src/schema/execute.ts';
import { createApp } from '../src/process/server.ts';
import { sofaRouter as serviceSofaRouter } from '../src/rest/sofa.ts';
import { cpuMsOf, measureLoad, type LoadRequest, type Measured, type Variant } from './load.ts';
import { POSTGRAPHILE_RETURNS_PAGE, startPostGraphile, startPostGraphile5, type Peer } from './peer.ts';
import { withReadsInMemory } from './readsInMemory.ts';
import { statementsWithParamsDuring } from '../test/support/counts.ts';

/** Seconds of load per variant (over ROUNDS rounds); the whole bench stays within a few minutes. */
const SECONDS = Number(process.env.BENCH_REST_SECONDS ?? 4);
const ROUNDS = 2;
const CONCURRENCY = 16;
const WARMUP_SECONDS = 1;
const PROFILED = (process.env.BENCH_PROFILE ?? '').split(',').filter(Boolean);
const PROFILE_DIR = fileURLToPath(new URL('./profiles', import.meta.url));
const ONLY = (process.env.BENCH_REST_ONLY ?? '').split(',').filter(Boolean);
/** Whether this run measures `part`: every part when BENCH_REST_ONLY names none. */
const measures = (part: 'returns' | 'warehouse' | 'v3rest') => ONLY.length === 0 || ONLY.includes(part);
const PAGE = 20;
const RETURNS = 40;
const EMAILS = 50;
const LEVELS = 30;
// Connections of one variant sit idle while the others run; a server closing them meanwhile races the client's reuse.
const KEEP_ALIVE_MS = 120_000;
const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

// The operations of the REST routes (src/rest/routes/customers.ts, returns.ts), sent as-is to /v3/graphql.
const UPSERT_QUERY = `mutation RestUpsertCustomer($input: CustomerUpsertInput!) {
  customerUpsert(input: $input) { created customer { id email } }
}`;
const RETURNS_QUERY = `query RestReturns($first: Int!, $after: String) {
  returns(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { ...RestReturn order { ...RestOrder } } }
}
${REST_RETURN_FRAGMENT}
${REST_ORDER_FRAGMENT}`;

// What the door's returns route loads, as one Prisma query through the domain's list function.
const RAW_RETURN_INCLUDE = {
  include: {
    order: { include: { lineItems: { orderBy: { position: 'asc' as const } } } },
    items: { include: { orderLineItem: true } },
    destinationLocation: true,
    notes: { orderBy: { createdAt: 'asc' as const } },
  },
};

interface Fixture {
  storeId: string;
  secret: string;
  orderId: string;
  customerEmail: string;
}

async function seed(db: Database): Promise<Fixture> {
  const { id: storeId } = await createStore(db.prisma, { name: 'Bench store' });
  const { secret } = await createApiClient(db.prisma, { storeId, name: 'bench', scopes: SCOPES });
  await seedOrdersWithReturns(db, storeId, RETURNS / 2, 'bench');
  // A customer with custom fields and a phone number, and a page of stock levels.
  const customerEmail = 'regular@example.com';
  await upsertCustomer(db.prisma, storeId, { ...customerBody('seed', 0), email: customerEmail, phoneNumber: '+14155550100' });
  const { defaultLocationId } = await db.prisma.store.findUniqueOrThrow({ where: { id: storeId } });
  const products = Array.from({ length: LEVELS }, (_, i) => ({ id: newId('product'), storeId, title: `Stocked ${i}`, sku: `STK-${i}` }));
  await db.prisma.product.createMany({ data: products });
  await db.prisma.inventoryLevel.createMany({
    data: products.map((p, i) => ({ id: newId('inventoryLevel'), storeId, productId: p.id, locationId: defaultLocationId!, quantity: 100 + i, committed: i % 3 })),
  });
  const order = await db.prisma.order.findFirstOrThrow({ where: { storeId }, orderBy: { createdAt: 'desc' } });
  return { storeId, secret, orderId: order.id, customerEmail };
}

function customerBody(tag: string, i: number): CustomerUpsertInput {
  return {
    email: `${tag}-${i % EMAILS}@example.com`,
    firstName: 'Ada',
    lastName: `Bench ${i}`,
    customFields: { tier: i % 2 === 0 ? 'gold' : 'silver', visits: i },
  };
}

const benchLimiter = createRateLimiter({ limits: { rest: 1_000_000, compat: 1_000_000 } });

async function authorize(db: Database, header: string | undefined): Promise<AuthContext | undefined> {
  const auth = await authenticate(db.prisma, readSecret(header));
  if (isAuthFailure(auth)) return undefined;
  await benchLimiter.consume(auth.client.id, 'rest');
  return auth;
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined));
    req.on('error', reject);
  });
}

// The floor of each operation, in plain SQL over the database's own channel.
const SQL_CLIENT = `SELECT c.id, c."storeId" FROM "ApiClient" c WHERE c."secretHash" = $1 AND c."revokedAt" IS NULL`;
const SQL_UPSERT = `
WITH saved AS (
  INSERT INTO "Customer" (id, "storeId", email, "firstName", "lastName", name, "phoneNumbers", "createdAt", "updatedAt")
  VALUES ($1, $2, $3, $4, $5, $4 || ' ' || $5, '{}', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC')
  ON CONFLICT ("storeId", email) DO UPDATE SET "firstName" = excluded."firstName", "lastName" = excluded."lastName", name = excluded.name, "updatedAt" = excluded."updatedAt"
  RETURNING id, email, "firstName", "lastName", (xmax = 0) AS created
), event AS (
  INSERT INTO "Event" (id, "storeId", topic, "subjectId", data, "createdAt")
  SELECT $6, $2, CASE WHEN created THEN 'customer.created' ELSE 'customer.updated' END, id, to_jsonb(saved), now() AT TIME ZONE 'UTC' FROM saved
)
SELECT id, email, created FROM saved`;
// The page as the door serves it (return-read and order-read of the reference), built from one
// query: PostgreSQL assembles each return with its order, items and notes as JSON; the amounts
// are formatted and the reference shape applied in JavaScript (src/formats/restReturn.ts, which the door
// runs too). Written for the returns the bench seeds (ordered returns); the bench checks that
// its body equals the door's before it measures.
const SQL_RETURNS_PAGE = `
SELECT r.id, to_char(r."updatedAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt", json_build_object(
  'id', r.id, 'status', upper(r.status::text), 'type', upper(r.type::text), 'currency', r.currency,
  'createdAt', to_char(r."createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'updatedAt', to_char(r."updatedAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'carrier', r.carrier, 'trackingNumber', r."trackingNumber", 'trackingUrl', r."trackingUrl", 'labelStatus', r."labelStatus",
  'labelUrl', r."labelUrl", 'tags', coalesce(r.tags, '{}'), 'customerEmail', r."customerEmail", 'customerFirstName', r."customerFirstName",
  'customerLastName', r."customerLastName", 'originAddress', r."originAddress",
  'totalRefund', r."totalRefund"::text, 'totalStoreCredit', r."totalStoreCredit"::text,
  'destination', CASE WHEN d.id IS NOT NULL THEN json_build_object('line1', d.street1, 'line2', d.street2, 'city', d.city,
    'state', d."stateCode", 'postalCode', d."postalCode", 'country', d."countryCode") ELSE r."destinationAddress"::json END,
  'order', (SELECT json_build_object('id', o.id, 'name', o.name, 'externalId', o."externalId", 'currency', o.currency,
      'customer', json_build_object('externalId', o."customerExternalId", 'email', o."customerEmail", 'phoneNumber', o."customerPhone",
        'name', o."customerName", 'firstName', o."customerFirstName", 'lastName', o."customerLastName"),
      'shippingAddress', o."shippingAddress", 'totalDiscount', o."totalDiscount"::text, 'subtotalPrice', o."subtotalPrice"::text,
      'shippingCost', o."shippingCost"::text, 'totalTax', o."totalTax"::text, 'totalPrice', o."totalPrice"::text,
      'lineItems', (SELECT coalesce(json_agg(json_build_object('id', l.id, 'externalId', l."externalId", 'title', l.title,
          'quantity', l.quantity, 'price', l.price::text, 'locationId', g."locationId") ORDER BY l.position), '[]'::json)
        FROM "OrderLineItem" l LEFT JOIN "FulfillmentGroup" g ON g.id = l."fulfillmentGroupId" WHERE l."orderId" = o.id))
    FROM "Order" o WHERE o.id = r."orderId"),
  'items', (SELECT coalesce(json_agg(json_build_object('id', i.id, 'quantity', i.quantity, 'reason', i.reason, 'reasonCode', i."reasonCode",
        'customerComment', i."customerComment", 'outcome', upper(i.outcome::text), 'sku', l.sku, 'unitPrice', coalesce(l.price, 0)::text,
        'orderLineItem', json_build_object('id', l.id, 'externalId', l."externalId", 'externalProductId', l."externalProductId"))
        ORDER BY l.position, i.position, i.id), '[]'::json)
    FROM "ReturnItem" i JOIN "OrderLineItem" l ON l.id = i."orderLineItemId" WHERE i."returnId" = r.id AND i."removedAt" IS NULL),
  'notes', (SELECT coalesce(json_agg(json_build_object('id', n.id, 'content', n.content,
        'createdAt', to_char(n."createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY n."createdAt", n.id), '[]'::json)
    FROM "ReturnNote" n WHERE n."returnId" = r.id)
) AS node
FROM "Return" r LEFT JOIN "Location" d ON d.id = r."destinationLocationId"
WHERE r."storeId" = $1 ORDER BY r."updatedAt" DESC, r.id DESC LIMIT $2`;

interface SqlOrder {
  id: string;
  name: string;
  externalId: string;
  currency: string;
  customer: Record<'externalId' | 'email' | 'phoneNumber' | 'name' | 'firstName' | 'lastName', string | null>;
  shippingAddress: RestReturnNode['order'] extends infer O ? (O extends { shippingAddress: infer A } ? A : never) : never;
  totalDiscount: string | null;
  subtotalPrice: string | null;
  shippingCost: string | null;
  totalTax: string | null;
  totalPrice: string | null;
  lineItems: { id: string; externalId: string; title: string; quantity: number; price: string | null; locationId: string | null }[];
}

type SqlReturn = Omit<RestReturnNode, 'order' | 'items' | 'totalRefund' | 'totalStoreCredit'> & {
  order: SqlOrder | null;
  items: (Omit<RestReturnNode['items'][number], 'unitPrice' | 'product'> & { unitPrice: string })[];
  totalRefund: string;
  totalStoreCredit: string;
};

/** One return of the query as the GraphQL selection of the door reads it: amounts as Money, the submitted customer or null. */
function sqlReturnNode(row: SqlReturn): RestReturnNode & { order: RestOrderNode | null } {
  const amount = (value: string | null, currency: string) => (value === null ? null : { amount: formatAmount(value, currency), currency });
  const order = row.order;
  const customer = order && Object.values(order.customer).some((value) => value !== null) ? order.customer : null;
  return {
    ...row,
    order: order && {
      id: order.id,
      name: order.name,
      externalId: order.externalId,
      currency: order.currency,
      submittedCustomer: customer,
      shippingAddress: order.shippingAddress,
      lineItems: order.lineItems.map((line) => ({
        id: line.id,
        externalId: line.externalId,
        title: line.title,
        quantity: line.quantity,
        price: amount(line.price, order.currency),
        fulfillmentLocation: line.locationId === null ? null : { id: line.locationId },
      })),
      totalDiscount: amount(order.totalDiscount, order.currency),
      subtotalPrice: amount(order.subtotalPrice, order.currency),
      shippingCost: amount(order.shippingCost, order.currency),
      totalTax: amount(order.totalTax, order.currency),
      totalPrice: amount(order.totalPrice, order.currency),
    },
    items: row.items.map((item) => ({ ...item, unitPrice: amount(item.unitPrice, row.currency)!, product: null })),
    totalRefund: amount(row.totalRefund, row.currency)!,
    totalStoreCredit: amount(row.totalStoreCredit, row.currency)!,
  };
}

/** Marks a bench request whose client was authenticated once up front. */
const PREAUTHORIZED = 'preauthorized';

/** Resolves each SOFA request to a GraphQL context; every database's bench server binds it in turn. */
const sofaBinding: { context?: (url: string, authorization: string | undefined) => Promise<GraphQLContext> } = {};
/** SOFA's generated operations, by operation name, as its router executes them. */
const captured = new Map<string, DocumentNode>();
let sofaRouter: ReturnType<typeof serviceSofaRouter>['router'] | undefined;

/** SOFA builds a route for every field of the schema up front (~5 s here), so one router serves both databases. */
function sharedSofaRouter() {
  // What the service's own SOFA door generates (src/rest/sofa.ts).
  sofaRouter ??= serviceSofaRouter({
    basePath: '/sofa',
    execute: ((args: ExecutionArgs) => {
      if (args.operationName && !captured.has(args.operationName)) captured.set(args.operationName, args.document);
      return execute(args);
    }) as typeof execute,
    context: ({ request }) => sofaBinding.context!(request.url, request.headers.get('authorization') ?? undefined),
  }).router;
  return sofaRouter;
}

/**
 * The bench-only server: `/raw/...` hand-written routes on the domain, `/sofa/...` the
 * SOFA router, `/table/...` a route table running the operations SOFA generated.
 */
async function startBenchServer(db: Database, fixture: Fixture) {
  const logger = createLogger('silent');
  const services = contextServices(loadConfig({}));
  const newContext = contextFactory({ db, logger, services });
  const contextOf = (auth: AuthContext): GraphQLContext => newContext({ auth, door: 'rest', requestId: 'bench' });

  // Without authentication (the client resolved once, here) the route handling weighs most.
  const preauthorized = await authorize(db, `Bearer ${fixture.secret}`);
  if (!preauthorized) throw new Error('bench client refused');
  const authOf = async (url: URL, authorization: string | undefined) =>
    url.searchParams.has(PREAUTHORIZED) ? preauthorized : authorize(db, authorization);
  const sofa = sharedSofaRouter();
  sofaBinding.context = async (url, authorization) => {
    const auth = await authOf(new URL(url), authorization);
    if (!auth) throw new Error('bench client refused');
    return contextOf(auth);
  };

  // Filled from SOFA's first calls below, before any measured request reaches the table.
  const sofaOperations = new Map<string, Operation>();
  const runSofaOperation = async (name: string, field: string, variables: Record<string, unknown>, ctx: GraphQLContext): Promise<DoorResponse> => {
    const outcome = await runOperation<Record<string, unknown>>(sofaOperations.get(name)!, variables, ctx);
    return { status: outcome.ok ? 200 : 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify(outcome.ok ? outcome.data[field] : outcome.error) };
  };
  const table = new RouteTable([
    { method: 'GET', path: '/store', scopes: [], handle: ({ ctx }) => runSofaOperation('store_query', 'store', {}, ctx) },
    {
      method: 'POST',
      path: '/customer-upsert',
      scopes: [],
      handle: ({ body, ctx }) => runSofaOperation('customerUpsert_mutation', 'customerUpsert', { input: (body as { input: unknown }).input }, ctx),
    },
    {
      method: 'GET',
      path: '/returns',
      scopes: [],
      handle: ({ query, ctx }) => runSofaOperation('returns_query', 'returns', { first: Number(query.get('first')) }, ctx),
    },
  ]);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://bench');
    const fail = (error: unknown) => send(res, 500, { error: String((error as Error).stack ?? error) });
    if (url.pathname.startsWith('/sofa/')) {
      sofa.requestListener(req, res);
      return;
    }
    (async () => {
      const body = await readBody(req);
      if (url.pathname.startsWith('/sql/')) return await sqlRoute(db, services.cursors, url, req, body, res);
      if (url.pathname.startsWith('/replay/')) return await replayRoute(db, decodeURIComponent(url.pathname.slice('/replay/'.length)), req, res);
      const auth = await authOf(url, req.headers.authorization);
      if (!auth) return send(res, 401, { error: 'unauthorized' });
      if (url.pathname === `/raw/stores/${fixture.storeId}/customers` && req.method === 'PUT') {
        const { customer, created } = await upsertCustomer(db.prisma, auth.store.id, body as CustomerUpsertInput);
        return send(res, created ? 201 : 200, { id: customer.id, email: customer.email, created });
      }
      if (url.pathname === `/raw/stores/${fixture.storeId}/returns` && req.method === 'GET') {
        const page = { where: {}, orderBy: [{ updatedAt: 'desc' as const }, { id: 'desc' as const }], take: PAGE + 1 };
        const rows = await listReturns(db.reads, auth.store.id, {}, page, RAW_RETURN_INCLUDE);
        const last = rows[PAGE - 1];
        const next = rows.length > PAGE ? { 'x-page-next': services.cursors.encode('returns:updatedAt:desc', last.updatedAt, last.id) } : undefined;
        return send(res, 200, { returns: rows.slice(0, PAGE) }, next);
      }
      const matched = table.match(req.method ?? 'GET', url.pathname.slice('/table'.length));
      if (!matched || !('route' in matched)) return send(res, 404, { error: 'no route' });
      const response = await matched.route.handle({
        request: { method: req.method ?? 'GET', url, headers: req.headers, body: Buffer.alloc(0), requestId: 'bench' },
        params: matched.params,
        query: url.searchParams,
        body,
        ctx: contextOf(auth),
        instance: url.pathname,
      });
      res.writeHead(response.status, response.headers);
      res.end(response.body);
    })().catch(fail);
  });
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // One call each through SOFA yields the operations it generated; the route table then runs exactly those.
  const headers = { authorization: `Bearer ${fixture.secret}`, 'content-type': 'application/json' };
  await fetch(`${base}/sofa/customer-upsert`, { method: 'POST', headers, body: JSON.stringify({ input: customerBody('probe', 0) }) }).then((r) => r.text());
  await fetch(`${base}/sofa/returns?first=${PAGE}`, { headers }).then((r) => r.text());
  await fetch(`${base}/sofa/store`, { headers }).then((r) => r.text());
  for (const name of ['customerUpsert_mutation', 'returns_query', 'store_query']) {
    const document = captured.get(name);
    if (!document) throw new Error(`SOFA did not run ${name} (captured: ${[...captured.keys()].join(', ')})`);
    sofaOperations.set(name, defineOperation(print(document)));
  }
  return {
    base,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The `sql` variant: what the operation costs with nothing between HTTP and the database. */
async function sqlRoute(db: Database, cursors: CursorSigner, url: URL, req: http.IncomingMessage, body: unknown, res: http.ServerResponse): Promise<void> {
  const secret = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
  const [client] = await db.sql.query<{ id: string; storeId: string }>(SQL_CLIENT, [hashSecret(secret)]);
  if (!client) return send(res, 401, { error: 'unauthorized' });
  if (url.pathname === '/sql/customers' && req.method === 'PUT') {
    const input = body as CustomerUpsertInput;
    // One statement is one transaction: the customer and its event commit together.
    const [row] = await db.sql.query<{ id: string; email: string; created: boolean }>(SQL_UPSERT, [
      newId('customer'),
      client.storeId,
      input.email,
      input.firstName,
      input.lastName,
      newId('event'),
    ]);
    return send(res, row.created ? 201 : 200, row);
  }
  if (url.pathname === '/sql/returns' && req.method === 'GET') {
    const rows = await db.sql.query<{ id: string; updatedAt: string; node: SqlReturn }>(SQL_RETURNS_PAGE, [client.storeId, PAGE + 1]);
    const nodes = rows.slice(0, PAGE).map((row) => sqlReturnNode(row.node));
    const last = rows[PAGE - 1];
    const next = rows.length > PAGE ? { 'x-page-next': cursors.encode('returns:updatedAt:desc', last.updatedAt, last.id) } : undefined;
    return send(res, 200, restReturnList(nodes), next);
  }
  return send(res, 404, { error: 'no route' });
}

/** The statements each of the other reads ran, by read (benchOtherReads records them before measuring). */
const replays = new Map<string, { sql: string; params: unknown[] }[]>();

/** The `replay` floor of a read: the client lookup, then the door's own statements, their rows as JSON. */
async function replayRoute(db: Database, name: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const secret = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
  const [client] = await db.sql.query<{ id: string; storeId: string }>(SQL_CLIENT, [hashSecret(secret)]);
  if (!client) return send(res, 401, { error: 'unauthorized' });
  const statements = replays.get(name);
  if (!statements) return send(res, 404, { error: 'no such read' });
  const answers: unknown[] = [];
  for (const { sql, params } of statements) answers.push(await db.sql.query(sql, params));
  return send(res, 200, answers);
}

/** A variant measures the door's work only if it serves what the door serves: the same body and the same next-page cursor. */
async function sameReturnsPage(variant: string, door: Promise<Response>, other: Promise<Response>): Promise<void> {
  const [a, b] = await Promise.all([door, other]);
  const [doorBody, otherBody] = await Promise.all([a.json(), b.json()]);
  if (!isDeepStrictEqual(doorBody, otherBody)) {
    throw new Error(`the ${variant} returns page differs from the door's:\n${JSON.stringify(otherBody).slice(0, 2000)}\n${JSON.stringify(doorBody).slice(0, 2000)}`);
  }
  if (a.headers.get('x-page-next') !== b.headers.get('x-page-next')) throw new Error(`the ${variant} returns page names another next page than the door`);
}

/** The statements the database ran for one request, transaction control aside. */
function statementsOf(db: Database, request: () => Promise<Response>): Promise<{ sql: string; params: unknown[] }[]> {
  return statementsWithParamsDuring(db, async () => {
    const response = await request();
    await response.text();
    if (!response.ok) throw new Error(`${response.url} answered ${response.status}`);
  });
}

function printTable(title: string, rows: Measured[], ratios: [string, string][]) {
  const line = (cells: string[]) => `  ${cells[0].padEnd(8)}${cells.slice(1).map((c) => c.padStart(10)).join('')}`;
  process.stdout.write(`${title}\n${line(['variant', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'cpu ms'])}\n`);
  for (const r of rows) process.stdout.write(`${line([r.name, String(r.requests), r.rps.toFixed(0), r.p50.toFixed(1), r.p99.toFixed(1), r.cpuMsPerRequest.toFixed(2)])}\n`);
  const by = Object.fromEntries(rows.map((r) => [r.name, r]));
  const text = ratios
    .filter(([a, b]) => by[a] && by[b])
    .map(([a, b]) => `${a}/${b} ${(by[a].rps / by[b].rps).toFixed(2)}`)
    .join(', ');
  process.stdout.write(`  throughput ratios: ${text}\n`);
}

type Results = Record<'upsert' | 'returns', Measured[]>;

const PAGE_RATIOS: [string, string][] = [
  ['rest', 'sql'],
  ['rest', 'pgl5'],
  ['v3', 'pgl5'],
  ['rest', 'pgl4'],
  ['v3', 'pgl4'],
  ['pgl5', 'pgl4'],
  ['memory', 'sql'],
  ['pgl5', 'sql'],
  ['pgl4', 'sql'],
  ['rest', 'raw'],
  ['rest', 'v3'],
  ['v3rest', 'v3'],
  ['v3', 'raw'],
  ['sofa', 'table'],
  ['rest', 'sofa'],
];

/** Counts, on the server, the statements `request` makes it run (undefined where pg_stat_statements is not loaded). */
type ServerStatementCount = (request: () => Promise<unknown>) => Promise<number | undefined>;

async function benchDatabase(label: string, db: Database, peers: Peer[], serverStatements?: ServerStatementCount): Promise<Results> {
  const started = performance.now();
  await applyMigrations(db);
  const fixture = await seed(db);
  process.stdout.write(`${label}: migrated and seeded in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  const config = { ...loadConfig({ LOG_LEVEL: 'silent' }), rateLimits: { rest: 1_000_000, compat: 1_000_000 } };
  const app = createApp({ db, config, logger: createLogger('silent') });
  // The same door with every read answered from memory: the bound of any data-layer work.
  const memoryDb = withReadsInMemory(db);
  const memoryApp = createApp({ db: memoryDb, config, logger: createLogger('silent') });
  const listen = async (server: http.Server) => {
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const appBase = await listen(app.server);
  const memoryBase = await listen(memoryApp.server);
  const bench = await startBenchServer(db, fixture);
  const store = `/stores/${fixture.storeId}`;
  const headers = { authorization: `Bearer ${fixture.secret}`, 'content-type': 'application/json' };
  const get = (url: string): LoadRequest => ({ url, headers });
  const send = (method: string, url: string, bodies: unknown[]): LoadRequest => ({ url, method, headers, bodies: bodies.map((b) => JSON.stringify(b)) });
  const emails = (tag: string) => Array.from({ length: EMAILS }, (_, i) => customerBody(tag, i));
  const profile = (part: string) => (PROFILED.length > 0 ? { variants: PROFILED, dir: PROFILE_DIR, label: `${label.split(' ')[0]}-${part}`.toLowerCase() } : undefined);
  const load = (part: string) => ({ connections: CONCURRENCY, seconds: SECONDS, rounds: ROUNDS, warmupSeconds: WARMUP_SECONDS, profile: profile(part) });
  try {
    const upsert: Variant[] = [
      { name: 'rest', request: send('PUT', `${appBase}/v2.2${store}/customers`, emails('rest')) },
      { name: 'v3', request: send('POST', `${appBase}/v3/graphql`, emails('v3').map((input) => ({ query: UPSERT_QUERY, variables: { input } }))) },
      { name: 'v3rest', request: send('POST', `${appBase}/v3/rest/customer-upsert`, emails('v3rest').map((input) => ({ input }))) },
      { name: 'sofa', request: send('POST', `${bench.base}/sofa/customer-upsert`, emails('sofa').map((input) => ({ input }))) },
      { name: 'table', request: send('POST', `${bench.base}/table/customer-upsert`, emails('table').map((input) => ({ input }))) },
      { name: 'raw', request: send('PUT', `${bench.base}/raw${store}/customers`, emails('raw')) },
      { name: 'sql', request: send('PUT', `${bench.base}/sql/customers`, emails('sql')) },
    ];
    const returns: Variant[] = [
      { name: 'rest', request: get(`${appBase}/v2.2${store}/returns?page-size=${PAGE}`) },
      { name: 'v3', request: send('POST', `${appBase}/v3/graphql`, [{ query: RETURNS_QUERY, variables: { first: PAGE } }]) },
      { name: 'v3rest', request: get(`${appBase}/v3/rest/returns?first=${PAGE}`) },
      { name: 'sofa', request: get(`${bench.base}/sofa/returns?first=${PAGE}`) },
      { name: 'table', request: get(`${bench.base}/table/returns?first=${PAGE}`) },
      { name: 'raw', request: get(`${bench.base}/raw${store}/returns`) },
      { name: 'sql', request: get(`${bench.base}/sql/returns`) },
      { name: 'memory', request: get(`${memoryBase}/v2.2${store}/returns?page-size=${PAGE}`) },
      ...peers.map((peer) => ({
        name: peerVariant(peer),
        request: { url: peer.url, method: 'POST', headers: { 'content-type': 'application/json' }, bodies: [peerPageBody(fixture)] },
        cpuMs: () => cpuMsOf(peer.pid),
      })),
    ];
    const lookup: Variant[] = [
      { name: 'sofa', request: get(`${bench.base}/sofa/store?${PREAUTHORIZED}`) },
      { name: 'table', request: get(`${bench.base}/table/store?${PREAUTHORIZED}`) },
    ];
    const upsertOnce = () => fetch(`${appBase}/v2.2${store}/customers`, { method: 'PUT', headers, body: JSON.stringify(customerBody('statements', 0)) });
    await (await upsertOnce()).text();
    const upsertStatements = (await statementsOf(db, upsertOnce)).length;
    const pageStatements = (await statementsOf(db, () => fetch(`${appBase}/v2.2${store}/returns?page-size=${PAGE}`, { headers }))).length;
    await sameReturnsPage('sql', fetch(`${appBase}/v2.2${store}/returns?page-size=${PAGE}`, { headers }), fetch(`${bench.base}/sql/returns`, { headers }));
    await sameReturnsPage('memory', fetch(`${appBase}/v2.2${store}/returns?page-size=${PAGE}`, { headers }), fetch(`${memoryBase}/v2.2${store}/returns?page-size=${PAGE}`, { headers }));
    const memoryPageStatements = (await statementsOf(memoryDb, () => fetch(`${memoryBase}/v2.2${store}/returns?page-size=${PAGE}`, { headers }))).length;
    if (memoryPageStatements !== 0) throw new Error(`the memory variant ran ${memoryPageStatements} statements for a page`);
    for (const peer of peers) await checkPeerPage(peer, fixture, `${appBase}/v2.2${store}/returns?page-size=${PAGE}`, headers);
    process.stdout.write(`${label}: statements per REST request (BEGIN/COMMIT aside): upsert of an existing customer ${upsertStatements} (sql variant: 2), returns page ${pageStatements} (sql variant: 2)\n`);
    if (serverStatements) {
      const pages: [string, () => Promise<unknown>][] = [
        ['REST page', () => fetch(`${appBase}/v2.2${store}/returns?page-size=${PAGE}`, { headers }).then((r) => r.text())],
        ['REST page, unchanged poll (If-None-Match)', async () => {
          const tag = (await fetch(`${appBase}/v2.2${store}/returns?page-size=${PAGE}`, { headers })).headers.get('etag') ?? '';
          return fetch(`${appBase}/v2.2${store}/returns?page-size=${PAGE}`, { headers: { ...headers, 'if-none-match': tag } }).then((r) => r.text());
        }],
        ['v3 page', () => fetch(`${appBase}/v3/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: RETURNS_QUERY, variables: { first: PAGE } }) }).then((r) => r.text())],
        ['/v3/rest page', () => fetch(`${appBase}/v3/rest/returns?first=${PAGE}`, { headers }).then((r) => r.text())],
        ...peers.map((peer): [string, () => Promise<unknown>] => [peer.name, () => fetch(peer.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: peerPageBody(fixture) }).then((r) => r.text())]),
      ];
      const counted: string[] = [];
      for (const [name, request] of pages) {
        await request();
        counted.push(`${name} ${await serverStatements(request)}`);
      }
      process.stdout.write(`${label}: statements per page counted by the server (pg_stat_statements; the poll counts its first request too): ${counted.join(', ')}\n`);
    }
    const results: Partial<Results> = {};
    if (ONLY.length === 0) {
      const upsertRows = await measureLoad(upsert, load('upsert'));
      printTable(`${label}: customer upsert (${CONCURRENCY} connections, ${SECONDS} s each; ${EMAILS} e-mails, so creates then updates)`, upsertRows, PAGE_RATIOS);
      results.upsert = upsertRows;
      // The service's background work folds the change counters every few seconds (process/background.ts); the bench's
      // app runs none, and every page's validator would otherwise sum the thousands of rows the upserts just added.
      await foldStoreChanges(db.sql);
    }
    if (measures('returns')) {
      const loadBefore = os.loadavg();
      const returnRows = await measureLoad(returns, load('returns'));
      printTable(
        `${label}: returns list, one page of ${PAGE} (${CONCURRENCY} connections, ${SECONDS} s each${peers.length ? `; peers: ${peers.map((p) => p.name).join(', ')}` : ''}; load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} after)`,
        returnRows,
        PAGE_RATIOS,
      );
      results.returns = returnRows;
    }
    if (ONLY.length === 0) {
      printTable(`${label}: the store lookup, the cheapest operation, client authenticated once: SOFA's route handling against a route table's`, await measureLoad(lookup, load('lookup')), PAGE_RATIOS);
    }
    if (measures('warehouse') || measures('v3rest')) await benchOtherReads(label, db, `${appBase}`, bench.base, fixture, headers, load('reads'));
    return results as Results;
  } finally {
    await bench.close();
    await app.shutdown(1_000);
    await memoryApp.shutdown(1_000);
  }
}

const peerVariant = (peer: Peer) => (peer.name.includes(' 5.') ? 'pgl5' : 'pgl4');
const peerPageBody = (fixture: Fixture) => JSON.stringify({ query: POSTGRAPHILE_RETURNS_PAGE, variables: { storeId: fixture.storeId, first: PAGE } });

/** The peer answers the same returns, in the same order, as the door's page. */
async function checkPeerPage(peer: Peer, fixture: Fixture, doorUrl: string, headers: Record<string, string>): Promise<void> {
  const door = (await (await fetch(doorUrl, { headers })).json()) as { returns: { id: string }[] };
  const response = await fetch(peer.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: peerPageBody(fixture),
  });
  const answer = (await response.json()) as { data?: { allReturns: { nodes: { id: string }[] } }; errors?: unknown };
  const ids = answer.data?.allReturns.nodes.map((n) => n.id);
  if (!isDeepStrictEqual(ids, door.returns.map((r) => r.id))) throw new Error(`${peer.name}'s page names other returns than the door's: ${JSON.stringify(answer).slice(0, 500)}`);
}

/**
 * The other reads users poll, each beside `replay`: the statements the door ran for it,
 * run again behind a bare node:http route (after the API-client lookup the floor always pays).
 */
async function benchOtherReads(
  label: string,
  db: Database,
  appBase: string,
  benchBase: string,
  fixture: Fixture,
  headers: Record<string, string>,
  options: Parameters<typeof measureLoad>[1],
): Promise<void> {
  const store = `/stores/${fixture.storeId}`;
  /** `profileName` names the read's CPU profile file, so that each read's profile is a file of its own. */
  type Read = { name: string; path: string; profileName: string };
  const warehouse: Read = { name: `warehouse return list (${RETURNS} returns)`, path: '/api/v1/warehouse/return/list', profileName: 'warehouse' };
  const v3rest: Read = { name: `/v3/rest returns, page of ${PAGE}`, path: `/v3/rest/returns?first=${PAGE}`, profileName: 'v3rest' };
  const reads: Read[] = ONLY.length > 0 ? [...(measures('warehouse') ? [warehouse] : []), ...(measures('v3rest') ? [v3rest] : [])] : [
    { name: 'GET order', path: `/v2.2${store}/orders/${fixture.orderId}`, profileName: 'order' },
    { name: 'GET customer', path: `/v2.2${store}/customers?email=${encodeURIComponent(fixture.customerEmail)}`, profileName: 'customer' },
    { name: `inventory levels, page of ${PAGE}`, path: `/v2.2${store}/inventory-levels?page-size=${PAGE}`, profileName: 'levels' },
    warehouse,
    v3rest,
  ];
  for (const { name, path, profileName } of reads) {
    await fetch(`${appBase}${path}`, { headers }).then((r) => r.text());
    const statements = await statementsOf(db, () => fetch(`${appBase}${path}`, { headers }));
    replays.set(name, statements);
    const loadBefore = os.loadavg();
    const rows = await measureLoad(
      [
        { name: 'door', request: { url: `${appBase}${path}`, headers } },
        { name: 'replay', request: { url: `${benchBase}/replay/${encodeURIComponent(name)}`, headers } },
      ],
      { ...options, profile: options.profile && { ...options.profile, label: `${options.profile.label}-${profileName}` } },
    );
    const loads = [loadBefore, os.loadavg()].map((l) => l.map((v) => v.toFixed(1)).join(' '));
    printTable(`${label}: ${name} (${path.replace(fixture.storeId, '{id}')}): ${statements.length} statement(s); load average ${loads[0]} before, ${loads[1]} after`, rows, [['door', 'replay']]);
  }
}

/** The pool lets its connections go shortly after close(); forcing them out would fail its idle clients loudly. */
async function dropWhenReleased(admin: pg.Client, name: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '55006') throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

/** Where the server preloads pg_stat_statements: the statements `request` made it run in database `name`. */
async function statementCounter(admin: pg.Client, name: string): Promise<ServerStatementCount | undefined> {
  try {
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await admin.query('SELECT count(*) FROM pg_stat_statements');
  } catch {
    process.stdout.write('pg_stat_statements is not loaded on this server: statements are counted by the service only\n');
    return undefined;
  }
  const REQUESTS = 10;
  const total = async () => {
    const { rows } = await admin.query<{ calls: string }>(
      `SELECT coalesce(sum(calls), 0)::text AS calls FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
       WHERE d.datname = $1 AND s.query !~* '^\\s*(BEGIN|COMMIT|ROLLBACK)'`,
      [name],
    );
    return Number(rows[0].calls);
  };
  return async (request) => {
    const before = await total();
    for (let i = 0; i < REQUESTS; i++) await request();
    return (await total() - before) / REQUESTS;
  };
}

async function withScratchPostgres(fn: (db: Database, url: string, serverStatements?: ServerStatementCount) => Promise<void>): Promise<boolean> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  try {
    await admin.connect();
  } catch (error) {
    process.stdout.write(`PostgreSQL at ${POSTGRES_ADMIN_URL} unreachable (${(error as Error).message}); skipped\n`);
    return false;
  }
  const name = `bench_rest_${process.pid}_${Date.now().toString(36)}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  const db = await openDatabase(url.toString(), { poolSize: CONCURRENCY });
  try {
    await fn(db, url.toString(), await statementCounter(admin, name));
  } finally {
    await db.close();
    await dropWhenReleased(admin, name);
    await admin.end();
  }
  return true;
}

export async function run(): Promise<void> {
  const started = performance.now();
  const pglite = await openDatabase('pglite:memory:');
  let embedded: Results;
  try {
    embedded = await benchDatabase('PGlite (in memory)', pglite, []);
  } finally {
    await pglite.close();
  }
  let server: Results | undefined;
  await withScratchPostgres(async (db, url, serverStatements) => {
    // The peers read the same scratch database (they start once the door has migrated it).
    await applyMigrations(db);
    const peers = (await Promise.all([startPostGraphile(url), startPostGraphile5(url)])).filter((peer) => peer !== undefined);
    try {
      server = await benchDatabase('PostgreSQL', db, peers, serverStatements);
    } finally {
      await Promise.all(peers.map((peer) => peer.close()));
    }
  });
  if (server && ONLY.length === 0) {
    const rps = (rows: Measured[], name: string) => rows.find((r) => r.name === name)!.rps;
    for (const operation of ['upsert', 'returns'] as const) {
      const ratios = ['rest', 'sql'].map((name) => `${name} ${(rps(embedded[operation], name) / rps(server![operation], name)).toFixed(2)}`);
      process.stdout.write(`PGlite / PostgreSQL throughput, ${operation}: ${ratios.join(', ')}\n`);
    }
  }
  process.stdout.write(`rest bench took ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
}
