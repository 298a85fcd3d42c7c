// What one /v3/graphql request may ask for (issue 11): each limit refuses with its own
// extensions.code and a message naming the limit, nothing is executed, and the queries
// that clients really send (README, tests) pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_GRAPHQL_LIMITS } from '../../src/config.ts';
import { call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
});
afterAll(async () => server?.close());

const SHIPMENT_ITEMS = 'inboundShipments(first: 100) { nodes { id items(first: 100) { nodes { id product { id } } } } }';

async function refused(query: string, variables: Record<string, unknown> = {}) {
  const res = await call(server, 'POST', '/v3/graphql', { secret: store.secret, body: { query, variables } });
  const body = res.body as { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] };
  expect(body.data ?? null).toBeNull();
  return { errors: body.errors ?? [] };
}

describe('GraphQL request limits', () => {
  it('refuses the reported attack: 300 aliases of a nested connection in 30 KB', async () => {
    const query = `{ ${Array.from({ length: 300 }, (_, i) => `a${i}: ${SHIPMENT_ITEMS}`).join(' ')} }`;
    expect(query.length).toBeGreaterThan(25_000);
    const { errors } = await refused(query);
    // The parser meets the token limit before validation can count the aliases.
    expect(errors[0].extensions?.code).toBe('TOO_MANY_TOKENS');
  });

  it('refuses more aliases than the limit', async () => {
    const query = `{ ${Array.from({ length: DEFAULT_GRAPHQL_LIMITS.maxAliases + 1 }, (_, i) => `a${i}: store { id }`).join(' ')} }`;
    const { errors } = await refused(query);
    expect(errors[0].extensions?.code).toBe('TOO_MANY_ALIASES');
    expect(errors[0].message).toMatch(/alias/i);
  });

  it('refuses a query deeper than the depth limit', async () => {
    let selection = 'id';
    for (let i = 0; i < DEFAULT_GRAPHQL_LIMITS.maxDepth; i++) selection = `productFamily { products(first: 1) { nodes { ${selection} } } }`;
    const { errors } = await refused(`{ products(first: 1) { nodes { ${selection} } } }`);
    expect(errors[0].extensions?.code).toBe('QUERY_TOO_DEEP');
    expect(errors[0].message).toMatch(/depth/i);
  });

  it('refuses a document with more tokens than the limit before validating it', async () => {
    const fields = Array.from({ length: DEFAULT_GRAPHQL_LIMITS.maxTokens }, () => 'id').join(' ');
    const { errors } = await refused(`{ inboundShipments(first: 1) { nodes { ${fields} } } }`);
    expect(errors[0].extensions?.code).toBe('TOO_MANY_TOKENS');
  });

  it('refuses more directives than the limit', async () => {
    const directives = Array.from({ length: DEFAULT_GRAPHQL_LIMITS.maxDirectives + 1 }, () => '@include(if: true)').join(' ');
    const { errors } = await refused(`{ inboundShipments(first: 1) { nodes { id ${directives} } } }`);
    expect(errors[0].extensions?.code).toBe('TOO_MANY_DIRECTIVES');
  });

  it('counts a connection as its page size times what each node selects, variables included', async () => {
    // One such selection may return 1 + 100 x (1 + 1 + 100 x (1 + 1 + 1)) = 20,201 objects: allowed.
    const one = await graphql(server, store.secret, `{ ${SHIPMENT_ITEMS} }`);
    expect(one.errors, JSON.stringify(one.errors)).toBeUndefined();
    // Three are 60,603, above the 50,000 default.
    const three = await refused(`{ a: ${SHIPMENT_ITEMS} b: ${SHIPMENT_ITEMS} c: ${SHIPMENT_ITEMS} }`);
    expect(three.errors[0].extensions?.code).toBe('QUERY_TOO_COSTLY');
    expect(three.errors[0].message).toMatch(/60603 objects, above the limit of 50000/);
    // The page size given through a variable counts the same as a literal.
    const byVariable = `query($n: Int) { a: inboundShipments(first: $n) { nodes { items(first: $n) { nodes { product { id } } } } }
      b: inboundShipments(first: $n) { nodes { items(first: $n) { nodes { product { id } } } } }
      c: inboundShipments(first: $n) { nodes { items(first: $n) { nodes { product { id } } } } } }`;
    expect((await refused(byVariable, { n: 100 })).errors[0].extensions?.code).toBe('QUERY_TOO_COSTLY');
    expect((await graphql(server, store.secret, byVariable, { n: 10 })).errors).toBeUndefined();
  });

  it('counts every search term of every alias, and refuses 10 aliases of 30 terms before a statement runs', async () => {
    const terms = Array.from({ length: 30 }, () => 'ab').join(' ');
    const one = await graphql(server, store.secret, `{ inventoryLevels(query: "${terms}") { nodes { id } } }`);
    expect(one.errors?.[0]?.extensions?.code).not.toBe('QUERY_TOO_COSTLY');
    const statements: string[] = [];
    const stop = server.db.onStatement(({ sql }) => statements.push(sql));
    try {
      const aliases = Array.from({ length: 10 }, (_, i) => `a${i}: inventoryLevels(query: "${terms}") { nodes { id } }`).join(' ');
      const { errors } = await refused(`{ ${aliases} }`);
      expect(errors[0].extensions?.code).toBe('QUERY_TOO_COSTLY');
      expect(errors[0].message).toMatch(/300 search terms/);
    } finally {
      stop();
    }
    expect(statements.filter((sql) => /InventoryLevel|searchText/.test(sql))).toEqual([]);
  });

  it('counts fragments like the fields they stand for', async () => {
    const query = `fragment Items on InboundShipment { items(first: 100) { nodes { product { id } } } }
      { a: inboundShipments(first: 100) { nodes { ...Items } } b: inboundShipments(first: 100) { nodes { ...Items } }
        c: inboundShipments(first: 100) { nodes { ... on InboundShipment { ...Items } } } }`;
    expect((await refused(query)).errors[0].extensions?.code).toBe('QUERY_TOO_COSTLY');
  });

  it('lets the README query and a deep inventory query through', async () => {
    const readme = await graphql(server, store.secret, '{ inboundShipments(first: 5) { nodes { id status carrier } } }');
    expect(readme.errors).toBeUndefined();
    const deep = await graphql(
      server,
      store.secret,
      `{ inboundShipments(first: 100) { edges { cursor node { id status location { id name }
          items(first: 10) { nodes { id quantity receivedQuantity product { id title sku inventoryLevels(first: 10) { nodes { id available location { id } } } } } }
          purchaseOrders(first: 10) { nodes { id name } } } } pageInfo { hasNextPage endCursor } } }`,
    );
    expect(deep.errors).toBeUndefined();
  });

  it('applies the limits configured for the instance', async () => {
    const strict = await startTestServer({}, { GRAPHQL_MAX_ALIASES: '1', GRAPHQL_MAX_COST: '10' });
    try {
      const strictStore = await createTestStore(strict.db);
      const aliases = await graphql(strict, strictStore.secret, '{ a: inboundShipments(first: 1) { nodes { id } } b: inboundShipments(first: 1) { nodes { id } } }');
      expect(aliases.errors?.[0].extensions?.code).toBe('TOO_MANY_ALIASES');
      const cost = await graphql(strict, strictStore.secret, '{ inboundShipments(first: 20) { nodes { id location { id } } } }');
      expect(cost.errors?.[0].extensions?.code).toBe('QUERY_TOO_COSTLY');
    } finally {
      await strict.close();
    }
  });
});
