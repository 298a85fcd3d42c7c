// The returns connection sorted by TOTAL (the queue's total column): largest first or, reversed,
// smallest first, ties by id, in the order the nodes' own total shows; keyset pages that neither
// skip nor repeat a return while returns are added before the cursor; a cursor of another sort refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;

interface Node {
  id: string;
  total: { amount: string };
}
interface Page {
  nodes: Node[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

const PRICES = ['10.10', '10.01', '9.99', '25.00', '25.00', '100.00', '0.50', '1000.00'];

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db, { name: 'By total' });
  for (const price of PRICES) await insertTestReturn(server.db, store.storeId, await createTestOrder(server.db, store.storeId, { lines: [{ price }] }));
});
afterAll(async () => server?.close());

async function page(args: string): Promise<Page> {
  const res = await graphql(server, store.secret, `{ returns(${args}) { nodes { id total { amount } } pageInfo { hasNextPage endCursor } } }`);
  expect(res.errors).toBeUndefined();
  return (res.data as { returns: Page }).returns;
}

async function walk(args: string, size: number, between: (pageNumber: number) => Promise<void> = async () => {}): Promise<Node[]> {
  const seen: Node[] = [];
  let after: string | null = null;
  for (let pageNumber = 0; ; pageNumber++) {
    const current = await page(`${args}, first: ${size}${after ? `, after: "${after}"` : ''}`);
    seen.push(...current.nodes);
    if (!current.pageInfo.hasNextPage) return seen;
    after = current.pageInfo.endCursor;
    await between(pageNumber);
  }
}

const byTotalThenId = (direction: 1 | -1) => (a: Node, b: Node) =>
  direction * (Number(a.total.amount) - Number(b.total.amount)) || direction * (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

describe('returns sorted by TOTAL', () => {
  it('lists the largest total first, ties by id, and the smallest first when reversed, a page at a time', async () => {
    const all = (await page('first: 50, sortKey: TOTAL')).nodes;
    expect(all.map((n) => n.total.amount)).toEqual(['1000.00', '100.00', '25.00', '25.00', '10.10', '10.01', '9.99', '0.50']);
    expect(all).toEqual([...all].sort(byTotalThenId(-1)));
    expect(await walk('sortKey: TOTAL', 3)).toEqual(all);
    const reversed = await walk('sortKey: TOTAL, reverse: true', 3);
    expect(reversed).toEqual([...all].sort(byTotalThenId(1)));
  });

  it('neither skips nor repeats a return when larger ones are added while it is walked', async () => {
    const before = (await page('first: 50, sortKey: TOTAL')).nodes.map((n) => n.id);
    const added: string[] = [];
    const walked = await walk('sortKey: TOTAL', 2, async () => {
      added.push((await insertTestReturn(server.db, store.storeId, await createTestOrder(server.db, store.storeId, { lines: [{ price: '5000.00' }] }))).id);
    });
    expect(walked.map((n) => n.id)).toEqual(before);
    expect(added.length).toBeGreaterThan(1);
  });

  it('refuses a cursor made in another order', async () => {
    const byUpdate = await page('first: 1');
    const res = await graphql(server, store.secret, `{ returns(first: 1, sortKey: TOTAL, after: "${byUpdate.pageInfo.endCursor}") { nodes { id } } }`);
    expect(res.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
  });
});
