// The dashboard lists' Export links: each list page links to its export keeping the search (and
// the returns queue's tab and sort), and the download holds exactly the rows the list pages through
// for that search, read as the signed-in merchant: another store's rows never appear.
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertBulkReturns } from '../support/bulkReturns.ts';
import { createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { signedIn, type WebClient } from './helpers.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
let web: WebClient;

const RETURNS = 450;

const decode = (text: string) =>
  text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))).replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
const exportLinks = (page: string) => [...page.matchAll(/<a href="(\/admin\/exports\/[^"]+)" download>/g)].map((m) => decode(m[1]));

/** The ids the v3 returns list answers for these arguments, page after page. */
async function returnIds(variables: Record<string, unknown>): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  do {
    const res = await graphql(server, store.secret, `query($after: String, $query: String, $status: [ReturnStatus!], $sortKey: ReturnSortKey, $reverse: Boolean) {
      returns(first: 100, after: $after, query: $query, status: $status, sortKey: $sortKey, reverse: $reverse) { nodes { id } pageInfo { hasNextPage endCursor } } }`, { ...variables, after });
    const connection = res.data!.returns as { nodes: { id: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
    ids.push(...connection.nodes.map((n) => n.id));
    after = connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null;
  } while (after);
  return ids;
}

const csvIds = (text: string, column: string) => {
  const [header, ...rows] = parse(text) as string[][];
  return rows.map((row) => row[header.indexOf(column)]);
};

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db, { name: 'Export Outfitters' });
  other = await createTestStore(server.db, { name: 'Neighbour' });
  const from = new Date('2026-11-01T09:00:00Z');
  // Few distinct times: runs of ties across the export's page boundaries.
  await insertBulkReturns(server.db.sql, store.storeId, { count: RETURNS, items: 2, from, stepMs: 60_000, distinctTimes: 7, statuses: ['open', 'flagged', 'complete', 'deleted'], batch: 'mine' });
  await insertBulkReturns(server.db.sql, other.storeId, { count: 30, items: 1, from, stepMs: 60_000, statuses: ['open'], batch: 'theirs' });
  web = await signedIn(server, store.storeId);
}, 120_000);
afterAll(async () => server?.close());

describe('export links on the list pages', () => {
  it('keep the search typed', async () => {
    for (const list of ['orders', 'customers', 'products']) {
      const page = await web.get(`/admin/${list}?q=${encodeURIComponent('shopper1 -"x y"')}`);
      expect(page.status).toBe(200);
      expect(exportLinks(page.text)).toEqual([`/admin/exports/${list}.csv?q=shopper1+-%22x+y%22`, `/admin/exports/${list}.jsonl?q=shopper1+-%22x+y%22`]);
      expect(page.text).toContain('>Export CSV</a>');
    }
    // A search the service refuses has nothing to export.
    expect(exportLinks((await web.get('/admin/orders?q=total:>abc')).text)).toEqual([]);
  });
});

describe('a dashboard export', () => {
  it("holds the returns queue's tab, sort and search, over several pages", async () => {
    const all = await web.get('/admin/exports/returns.csv');
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(all.headers.get('content-disposition')).toMatch(/^attachment; filename="returns-\d{4}-\d{2}-\d{2}\.csv"$/);
    // The queue's "All" tab: every status but deleted (every fourth return seeded).
    const ids = csvIds(all.text, 'Return ID');
    expect(ids).toEqual(await returnIds({ query: '-status:deleted' }));
    expect(ids).toHaveLength(RETURNS - Math.floor(RETURNS / 4));

    const tab = await web.get('/admin/exports/returns.jsonl?status=OPEN&sort=age-desc&q=shopper1');
    expect(tab.status).toBe(200);
    const opened = tab.text.trimEnd().split('\n').map((line) => (JSON.parse(line) as { return_id: string }).return_id);
    expect(opened).toEqual(await returnIds({ status: ['OPEN'], sortKey: 'CREATED_AT', reverse: true, query: 'shopper1' }));
    expect(opened.length).toBeGreaterThan(10);
  });

  it("never holds another store's rows", async () => {
    const answer = await graphql(server, other.secret, '{ orders(first: 100) { nodes { id } } }');
    const theirs = new Set((answer.data!.orders as { nodes: { id: string }[] }).nodes.map((n) => n.id));
    expect(theirs.size).toBe(30);
    const orders = csvIds((await web.get('/admin/exports/orders.csv')).text, 'Order ID');
    expect(orders).toHaveLength(RETURNS);
    expect(orders.filter((id) => theirs.has(id))).toEqual([]);
  });

  it('a refused search is a page saying why; an unknown list or format, not found', async () => {
    const refused = await web.get('/admin/exports/orders.csv?q=total:>abc');
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
    expect(refused.text).toContain('Nothing was exported');
    expect((await web.get('/admin/exports/webhooks.csv')).status).toBe(404);
    expect((await web.get('/admin/exports/orders.pdf')).status).toBe(404);
  });

  it('needs a signed-in merchant', async () => {
    const res = await fetch(`${server.url}/admin/exports/orders.csv`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/admin\/login/);
  });
});
