// The inbound-shipment graph on the planned path (src/schema/planned.ts, issue 45): for a fixed
// data set, the v3 graph bench/graphql.ts measures (shipments, their items' products with their
// stock levels and locations, their purchase orders) answers byte for byte what graphql-js
// answers, page after page and with nested pages cut short; another store's shipments never
// appear; a caller missing a scope some nested field asks for gets the ordinary path's very
// error; and a selection the planner cannot serve (skuCount's grouped loader) runs the ordinary way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, parse, type DocumentNode, type ExecutionResult } from 'graphql';
import { schema } from '../../src/schema/index.ts';
import { plannedRuns } from '../support/plannedRuns.ts';
import { seedLevel, seedLocation, seedProduct, seedShipment } from '../support/inventoryFixtures.ts';
import { addApiClient, call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

// bench/graphql.ts's query, with the page's ends and the ids a client pages by.
const GRAPH = `
  query Graph($n: Int!, $after: String) {
    inboundShipments(first: $n, after: $after) {
      pageInfo { hasNextPage endCursor }
      nodes {
        id status carrier createdAt
        items(first: 10) { nodes { quantity product { title inventoryLevels(first: 10) { nodes { available location { name } } } } } }
        purchaseOrders(first: 10) { nodes { name } }
      }
    }
  }`;

// Nested pages shorter than what the rows hold, walked by edges with cursors.
const SHORT_PAGES = `
  query ShortPages {
    inboundShipments(first: 5, reverse: true) {
      edges { cursor node { __typename id
        items(first: 2) { pageInfo { hasNextPage endCursor } edges { cursor node { id product { title inventoryLevels(first: 1) { pageInfo { hasNextPage } nodes { quantity } } } } } }
        purchaseOrders(first: 1) { pageInfo { hasNextPage } edges { cursor node { name } } }
      } }
    }
  }`;

let server: TestServer;
let store: TestStore;
let other: TestStore;
const shipmentIds: string[] = [];
let otherShipmentId: string;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db, { scopes: ['inventory_read', 'products_read', 'locations_read'] });
  other = await createTestStore(server.db, { scopes: ['inventory_read', 'products_read', 'locations_read'], name: 'Other store' });
  const locations = [await seedLocation(server.db, store.storeId, 'North "dock"'), await seedLocation(server.db, store.storeId, 'Süd')];
  const products: string[] = [];
  for (let p = 0; p < 4; p++) {
    const productId = await seedProduct(server.db, store.storeId, { title: `Tee ${p} \u00e9\n`, sku: `TEE-${p}` });
    products.push(productId);
    // The first product is stocked nowhere; the others at one or both locations, one oversold.
    for (const [index, locationId] of locations.entries()) {
      if (p === 0 || (p === 1 && index === 1)) continue;
      await seedLevel(server.db, { storeId: store.storeId, productId, locationId, quantity: 10 * p, committed: p === 3 ? 40 : 1, reserved: index, updatedAt: new Date(Date.UTC(2026, 0, p, index)) });
    }
  }
  for (let s = 0; s < 5; s++) {
    const { id } = await seedShipment(server.db, {
      storeId: store.storeId,
      locationId: locations[s % 2],
      status: s === 4 ? 'PENDING' : 'IN_TRANSIT',
      carrier: s === 2 ? undefined : 'Freight & Co',
      createdAt: new Date(Date.UTC(2026, 1, 1 + s, 9, 30, 0, 250)),
      // A shipment with no items, one with every product, others with some.
      items: s === 3 ? [] : products.slice(0, s === 1 ? 4 : 3).map((productId, i) => ({ productId, quantity: 5 + i })),
      purchaseOrderNames: s === 0 ? [] : Array.from({ length: s }, (_, i) => `PO-${s}-${String.fromCharCode(90 - i)}`),
    });
    shipmentIds.push(id);
  }
  const otherLocation = await seedLocation(server.db, other.storeId, 'Elsewhere');
  const otherProduct = await seedProduct(server.db, other.storeId, { title: 'Not yours' });
  await seedLevel(server.db, { storeId: other.storeId, productId: otherProduct, locationId: otherLocation, quantity: 3 });
  otherShipmentId = (await seedShipment(server.db, { storeId: other.storeId, locationId: otherLocation, items: [{ productId: otherProduct, quantity: 1 }], purchaseOrderNames: ['PO-OTHER'] })).id;
});
afterAll(async () => server?.close());

const { contextOf, bothWays: run } = plannedRuns(() => server.db, 'v3', 'planned-inbound-test');
const bothWays = (document: DocumentNode, variables: Record<string, unknown>, secret = store.secret) => run(document, variables, secret);

interface GraphPage {
  inboundShipments: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: { id: string }[] };
}

describe('the inbound-shipment graph on the planned path', () => {
  const graph = parse(GRAPH);

  it('answers byte for byte as graphql-js, page after page, with only the store\'s shipments', async () => {
    let after: string | null = null;
    const seen: string[] = [];
    let pages = 0;
    do {
      const { planned, ordinary, paths, result } = await bothWays(graph, { n: 2, after });
      expect(paths).toEqual(['planned']);
      expect(planned).toBe(ordinary);
      const page = (result.data as unknown as GraphPage).inboundShipments;
      seen.push(...page.nodes.map((node) => node.id));
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
      pages++;
    } while (after !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual([...shipmentIds].reverse());
    expect(seen).not.toContain(otherShipmentId);
  });

  it('answers nested pages cut short, with edges and cursors, byte for byte', async () => {
    const { planned, ordinary, paths, result } = await bothWays(parse(SHORT_PAGES), {});
    expect(paths).toEqual(['planned']);
    expect(planned).toBe(ordinary);
    expect(planned).toContain('"hasNextPage":true');
    expect(result.errors).toBeUndefined();
  });

  it('shows another store only its own shipment', async () => {
    const { planned, ordinary, paths, result } = await bothWays(graph, { n: 100 }, other.secret);
    expect(paths).toEqual(['planned']);
    expect(planned).toBe(ordinary);
    expect((result.data as unknown as GraphPage).inboundShipments.nodes.map((node) => node.id)).toEqual([otherShipmentId]);
  });

  it('sends a caller missing a nested field\'s scope down the ordinary path, with its very error', async () => {
    for (const scopes of [['inventory_read', 'locations_read'], ['inventory_read', 'products_read'], ['products_read', 'locations_read']]) {
      const { secret } = await addApiClient(server.db, store.storeId, scopes);
      const { planned, ordinary, paths, result } = await bothWays(graph, { n: 3 }, secret);
      expect(paths).toEqual(['fallback']);
      expect(planned).toBe(ordinary);
      expect(result.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    }
  });

  it('answers a bad cursor as graphql-js does', async () => {
    const { planned, ordinary, paths, result } = await bothWays(graph, { n: 2, after: 'not-a-cursor' });
    expect(paths).toEqual(['planned']);
    expect(planned).toBe(ordinary);
    expect(result.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('runs a selection it cannot serve (a directive) the ordinary way', async () => {
    const { planned, ordinary, paths } = await bothWays(parse('query Skipped { inboundShipments(first: 3) { nodes { id carrier @skip(if: true) items(first: 1) { nodes { quantity } } } } }'), {});
    expect(paths).toEqual(['fallback']);
    expect(planned).toBe(ordinary);
  });

  it('builds in its one statement only what the selection and the access checks read', async () => {
    const statements: { sql: string; params: unknown[] }[] = [];
    // The statement carries each row as the array of its values; the read it answers names their keys.
    const shipmentReads = server.db.reads.inboundShipment as unknown as { findMany(args?: object): Promise<unknown[]> };
    const findMany = shipmentReads.findMany;
    const asked: object[] = [];
    shipmentReads.findMany = (args) => {
      if (args) asked.push(args);
      return findMany(args);
    };
    const stop = server.db.onStatement((statement) => statements.push(statement));
    try {
      await call(server, 'POST', '/v3/graphql', { secret: store.secret, body: { query: GRAPH, variables: { n: 100 } } });
    } finally {
      stop();
      shipmentReads.findMany = findMany;
    }
    const graphReads = statements.filter((statement) => statement.sql.includes('"InboundShipment"'));
    expect(graphReads).toHaveLength(1);
    expect(asked).toHaveLength(1);
    type Built = { [key: string]: Built & Built[] };
    const shipments = (await findMany(asked[0])) as Built[];
    const keys = (objects: Built[]) => [...new Set(objects.flatMap((object) => Object.keys(object)))].sort();
    const items = shipments.flatMap((shipment) => shipment.items);
    const products = items.map((item) => item.product);
    const levels = products.flatMap((product) => product.inventoryLevels);
    expect(levels.length).toBeGreaterThan(0);
    // The shipment's id and createdAt are asked for (and its page's cursor); below it, no id nor store nobody reads.
    expect(keys(items)).toEqual(['product', 'quantity']);
    expect(keys(products)).toEqual(['inventoryLevels', 'title']);
    // `available` is computed by the statement: one number per level, not the three columns it is made of.
    expect(keys(levels)).toEqual(['available', 'location']);
    expect(keys(levels.map((level) => level.location))).toEqual(['name']);
    expect(keys(shipments.flatMap((shipment) => shipment.purchaseOrders).map((link) => link.purchaseOrder))).toEqual(['name']);
  });

  it('serves /v3/graphql planned with the bytes graphql-js gives', async () => {
    const answer = await call(server, 'POST', '/v3/graphql', { secret: store.secret, body: { query: GRAPH, variables: { n: 100 } } });
    const ordinary = (await execute({ schema, document: graph, variableValues: { n: 100 }, contextValue: await contextOf(store.secret) })) as ExecutionResult;
    expect(answer.text).toBe(JSON.stringify({ data: ordinary.data }));
    const metrics = (await call(server, 'GET', '/metrics')).text;
    expect(metrics).toMatch(/graphql_operations_total\{path="planned",operation="Graph"\} [1-9]/);
  });
});
