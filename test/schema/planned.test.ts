// The planned path for reads (src/schema/planned.ts): for a fixed data set, the REST returns
// page's document and the same page as a v3 query answer byte for byte what graphql-js
// answers (pages after a cursor, the last page, filters, another store's returns never seen),
// a caller missing a scope gets the ordinary path's very error, and an operation the planner
// cannot serve runs the ordinary way and is counted as such, on /metrics too. The /v3/rest
// returns page (SOFA's document, a variable on Return.items) and the warehouse door's list are
// planned and answer the same; a caller a type's rule refuses pays the double read only once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOperationNodeForField } from '@graphql-tools/utils';
import { execute, Kind, OperationTypeNode, parse, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { SCOPES } from '../../src/auth/scopes.ts';
import { COMPAT_RETURN_LIST } from '../../src/compat/routes/returns.ts';
import { upsertCustomer } from '../../src/domain/customers.ts';
import { newId } from '../../src/domain/ids.ts';
import { RETURNS_PAGE } from '../../src/rest/routes/returns.ts';
import { sofaRouter } from '../../src/rest/sofa.ts';
import { schema } from '../../src/schema/index.ts';
import { createReadPlanner } from '../../src/schema/planned.ts';
import type { ReadPath } from '../../src/schema/readPlanner.ts';
import { statementsDuring } from '../support/counts.ts';
import { plannedRuns } from '../support/plannedRuns.ts';
import { createTestOrder, insertTestReturn, setReturnTimes } from '../support/returnFixtures.ts';
import { addApiClient, call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

// A v3 client's page: aliases, __typename, edges with cursors, both page ends.
const V3_RETURNS = `
  query Page($first: Int, $after: String, $status: [ReturnStatus!]) {
    page: returns(first: $first, after: $after, status: $status) {
      __typename
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { __typename id state: status createdAt tags total: totalRefund { amount currency }
        items { id quantity outcome sku unitPrice { amount } product { id } orderLineItem { id title price { amount currency } } }
        order { id name totalPrice { amount } lineItems { id quantity } } notes { id content createdAt } } }
    }
  }`;

let server: TestServer;
let store: TestStore;
let other: TestStore;
const ids: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db, { scopes: ['returns_read', 'returns_write', 'orders_read'] });
  other = await createTestStore(server.db, { scopes: ['returns_read'], name: 'Other store' });
  const statuses = ['open', 'complete', 'open', 'rejected', 'open'] as const;
  for (const [index, status] of statuses.entries()) {
    const order = await createTestOrder(server.db, store.storeId, {
      lines: [{ title: 'Trail Tee', sku: 'TEE-1', price: '25.10', quantity: 2, discount: '1.05' }, { title: 'Cap', price: '10', sku: null }],
      totalTax: '3.333',
      subtotalPrice: '60.20',
      totalPrice: index % 2 === 0 ? '63.53' : null,
      customerEmail: index === 1 ? null : 'shopper@example.com',
    });
    const created = await insertTestReturn(server.db, store.storeId, order, {
      status,
      items: index === 3 ? [{ lineIndex: 0, quantity: 2, outcome: 'credit' }] : [{ lineIndex: 0 }, { lineIndex: 1, outcome: 'exchange' }],
    });
    await setReturnTimes(server.db, created.id, { updatedAt: new Date(Date.UTC(2026, 0, 10 + index, 8, 30, 15, 123)) });
    if (index % 2 === 0) {
      await server.db.prisma.returnNote.create({ data: { id: newId('returnNote'), returnId: created.id, content: `Note "${index}" \u00e9\n` } });
    }
    ids.push(created.id);
  }
  const otherOrder = await createTestOrder(server.db, other.storeId);
  await insertTestReturn(server.db, other.storeId, otherOrder);
});
afterAll(async () => server?.close());

const { contextOf, bothWays: run } = plannedRuns(() => server.db, 'rest', 'planned-test');
const bothWays = (document: DocumentNode, variables: Record<string, unknown>, secret = store.secret, against: GraphQLSchema = schema) => run(document, variables, secret, against);

/** The document and schema of the /v3/rest returns route, built as SOFA's router builds them (sofa-api's createQueryRoute). */
function sofaReturnsRoute(): { document: DocumentNode; schema: GraphQLSchema } {
  const { generated, links } = sofaRouter({ basePath: '/v3/rest' });
  const operation = buildOperationNodeForField({
    kind: OperationTypeNode.QUERY,
    schema: generated,
    field: 'returns',
    models: [...links.models.keys()],
    ignore: links.subjects,
    circularReferenceDepth: 1,
  });
  return { document: { kind: Kind.DOCUMENT, definitions: [operation] }, schema: generated };
}

describe('the planned path', () => {
  const rest = RETURNS_PAGE.document;
  const v3 = parse(V3_RETURNS);

  it('answers the REST returns page byte for byte as graphql-js, page after page, and only with the store\'s returns', async () => {
    let after: string | null = null;
    const seen: string[] = [];
    let pages = 0;
    do {
      const { planned, ordinary, paths, result } = await bothWays(rest, { first: 2, after });
      expect(paths).toEqual(['planned']);
      expect(planned).toBe(ordinary);
      const page = (result.data as { returns: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: { id: string }[] } }).returns;
      seen.push(...page.nodes.map((node) => node.id));
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
      pages++;
    } while (after !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
  });

  it('answers filters byte for byte', async () => {
    for (const variables of [
      { first: 20, status: ['OPEN'] },
      { first: 20, status: ['REJECTED', 'COMPLETE'], updatedAtMin: '2026-01-11T00:00:00.000Z' },
      { first: 20, orderName: '#1' },
      { first: 20, updatedAtMax: '2026-01-01T00:00:00.000Z' },
    ]) {
      const { planned, ordinary, paths } = await bothWays(rest, variables);
      expect(paths).toEqual(['planned']);
      expect(planned).toBe(ordinary);
    }
  });

  it('answers a v3 page with aliases, __typename and edges byte for byte, and the other store sees only its own', async () => {
    const first = await bothWays(v3, { first: 3 });
    expect(first.paths).toEqual(['planned']);
    expect(first.planned).toBe(first.ordinary);
    const endCursor = (first.result.data as { page: { pageInfo: { endCursor: string } } }).page.pageInfo.endCursor;
    const last = await bothWays(v3, { first: 3, after: endCursor });
    expect(last.planned).toBe(last.ordinary);
    expect((last.result.data as { page: { pageInfo: { hasNextPage: boolean } } }).page.pageInfo.hasNextPage).toBe(false);
    const theirs = await bothWays(v3, { first: 10 }, other.secret);
    expect(theirs.planned).toBe(theirs.ordinary);
    const edges = (theirs.result.data as { page: { edges: { node: { id: string } }[] } }).page.edges;
    expect(edges).toHaveLength(1);
    expect(edges.some((edge) => ids.includes(edge.node.id))).toBe(false);
  });

  it('sends a caller missing a scope down the ordinary path, with its very error', async () => {
    const { secret } = await addApiClient(server.db, store.storeId, ['orders_read']);
    const { planned, ordinary, paths, result } = await bothWays(rest, { first: 2 }, secret);
    expect(paths).toEqual(['fallback']);
    expect(planned).toBe(ordinary);
    expect(result.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });

  it('runs variables the schema refuses the ordinary way, with their errors', async () => {
    for (const variables of [{ first: 'two' }, { first: 2, status: ['NOPE'] }]) {
      const { planned, ordinary, paths } = await bothWays(rest, variables);
      expect(paths).toEqual(['fallback']);
      expect(planned).toBe(ordinary);
    }
  });

  it("answers its root read's own refusal (a bad cursor) as graphql-js does, without reading again", async () => {
    const { planned, ordinary, paths, result } = await bothWays(rest, { first: 2, after: 'not-a-cursor' });
    expect(paths).toEqual(['planned']);
    expect(planned).toBe(ordinary);
    expect(result.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('answers the /v3/rest returns page (a variable on a nested field) byte for byte, planned, page after page', async () => {
    const route = sofaReturnsRoute();
    const { secret } = await addApiClient(server.db, store.storeId, [...SCOPES]);
    let after: string | null = null;
    let pages = 0;
    do {
      const { planned, ordinary, paths, result } = await bothWays(route.document, { first: 2, after }, secret, route.schema);
      expect(paths).toEqual(['planned']);
      expect(result.errors).toBeUndefined();
      expect(planned).toBe(ordinary);
      const page = (result.data as { returns: { pageInfo: { hasNextPage: boolean; endCursor: string | null } } }).returns;
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
      pages++;
    } while (after !== null);
    expect(pages).toBe(3);
    for (const variables of [{ first: 20, includeRemoved: true }, { first: 20, status: ['OPEN'], reverse: true }]) {
      const { planned, ordinary, paths } = await bothWays(route.document, variables, secret, route.schema);
      expect(paths).toEqual(['planned']);
      expect(planned).toBe(ordinary);
    }
  });

  it("answers the warehouse door's return list byte for byte, planned, both page ends and filters", async () => {
    const list = COMPAT_RETURN_LIST.document;
    for (const variables of [{ first: 2 }, { first: 100 }, { last: 2 }, { first: 100, status: ['OPEN'], sortKey: 'CREATED_AT' }]) {
      const { planned, ordinary, paths, result } = await bothWays(list, variables);
      expect(paths).toEqual(['planned']);
      expect(result.errors).toBeUndefined();
      expect(planned).toBe(ordinary);
    }
  });

  it("reads twice at most once for a caller a type's rule refuses, then sends its scope set the ordinary way", async () => {
    // A store of its own, whose return's order has a customer: returns_read lets the root read run,
    // and the Customer type's rule wants a customer scope, which this caller lacks.
    const shop = await createTestStore(server.db, { scopes: ['returns_read', 'customers_read'], name: 'Customer store' });
    const { customer } = await upsertCustomer(server.db.prisma, shop.storeId, { email: 'known@example.com', firstName: 'Kim' });
    const order = await createTestOrder(server.db, shop.storeId, { customerEmail: 'known@example.com' });
    await server.db.prisma.order.update({ where: { id: order.id }, data: { customerId: customer.id } });
    await insertTestReturn(server.db, shop.storeId, order);
    const { secret } = await addApiClient(server.db, shop.storeId, ['returns_read']);
    const withCustomers = parse(`query ReturnCustomers($first: Int) { returns(first: $first) { nodes { id order { id customer { id } } } } }`);
    const paths: ReadPath[] = [];
    const planner = createReadPlanner((path) => paths.push(path));
    const variables = { first: 2 };
    const plannedRun = async () => {
      let result: ExecutionResult | undefined;
      const statements = await statementsDuring(server.db, async () => {
        result = (await planner.execute({ schema, document: withCustomers, variableValues: variables, contextValue: await contextOf(secret) }, execute)) as ExecutionResult;
      });
      return { statements: statements.length, answer: JSON.stringify(result) };
    };
    let ordinaryAnswer = '';
    const ordinaryStatements = (
      await statementsDuring(server.db, async () => {
        ordinaryAnswer = JSON.stringify(await execute({ schema, document: withCustomers, variableValues: variables, contextValue: await contextOf(secret) }));
      })
    ).length;
    const first = await plannedRun();
    const second = await plannedRun();
    const third = await plannedRun();
    expect(paths).toEqual(['fallback', 'fallback', 'fallback']);
    expect(first.answer).toBe(ordinaryAnswer);
    expect(second.answer).toBe(ordinaryAnswer);
    expect(third.answer).toBe(ordinaryAnswer);
    expect(first.statements).toBeGreaterThan(ordinaryStatements);
    expect(second.statements).toBe(ordinaryStatements);
    expect(third.statements).toBe(ordinaryStatements);
    expect(ordinaryAnswer).toContain('FORBIDDEN');
    // Another scope set is not held back by it: the store's own client, which may read customers, is still planned.
    const { planned, ordinary, paths: others } = await bothWays(withCustomers, variables, shop.secret);
    expect(others).toEqual(['planned']);
    expect(planned).toBe(ordinary);
  });

  it('runs what it cannot plan the ordinary way and counts it', async () => {
    const document = parse(`query Counts { returnStatusCounts { status count } returns(first: 1) { nodes { id } } }`);
    const { planned, ordinary, paths } = await bothWays(document, {});
    expect(paths).toEqual(['fallback']);
    expect(planned).toBe(ordinary);
  });

  it('runs the response key __proto__ the ordinary way, which answers it as a key', async () => {
    const document = parse(`query Proto { returns(first: 1) { nodes { __proto__: id number } } }`);
    const { planned, ordinary, paths } = await bothWays(document, {});
    expect(paths).toEqual(['fallback']);
    expect(planned).toBe(ordinary);
    expect(planned).toContain('"__proto__":"');
  });

  it('serves both doors planned and counts each path on /metrics', async () => {
    const restAnswer = await call(server, 'GET', `/v2.2/stores/${store.storeId}/returns?page-size=2`, { secret: store.secret });
    expect(restAnswer.status).toBe(200);
    const v3Answer = await call(server, 'POST', '/v3/graphql', { secret: store.secret, body: { query: V3_RETURNS, variables: { first: 2 } } });
    const ordinary = (await execute({ schema, document: v3, variableValues: { first: 2 }, contextValue: await contextOf(store.secret) })) as ExecutionResult;
    expect(v3Answer.text).toBe(JSON.stringify({ data: ordinary.data }));
    await graphql(server, store.secret, '{ returnStatusCounts { status count } }');
    const metrics = (await call(server, 'GET', '/metrics')).text;
    expect(metrics).toMatch(/graphql_operations_total\{path="planned",operation="RestReturns"\} [1-9]/);
    expect(metrics).toMatch(/graphql_operations_total\{path="planned",operation="Page"\} [1-9]/);
    expect(metrics).toMatch(/graphql_operations_total\{path="fallback",operation="\(anonymous\)"\} [1-9]/);
  });
});
