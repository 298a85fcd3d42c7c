// Answers whose size the client decides, streamed: the unpaginated return list and the
// ASN report read page by page and written as they are read. They must answer exactly what
// reading them whole did (the list: the paginated pages end to end; the ASN: v3's
// returnAsnRows, which the report used to answer whole), as valid JSON, across page
// boundaries falling inside runs of equal timestamps; a failure before the first byte is
// still the platform's error answer, one after it cuts the connection; a client that
// leaves mid-answer stops the reading.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ASN_ROW_FIELDS, compatAsnRow, type AsnRowNode } from '../../src/formats/compatReturn.ts';
import { WHOLE_LIST_PAGE_SIZE } from '../../src/compat/routes/returns.ts';
import { WHOLE_CONNECTION_PAGE_SIZE } from '../../src/schema/connectionPages.ts';
import { insertBulkReturns } from '../support/bulkReturns.ts';
import { createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { WAREHOUSE, warehouse } from './helpers.ts';

let server: TestServer;
let store: TestStore;

const HOUR = 60 * 60 * 1000;
// Seven distinct creation times for 900 returns: every page boundary falls inside a run of ties.
const MIXED = { from: new Date('2026-05-04T10:00:00Z'), count: 900 };
const MIXED_WINDOW = `from=${MIXED.from.toISOString()}&to=${new Date(MIXED.from.getTime() + HOUR).toISOString()}`;
// Enough open returns for a dozen pages of the list.
const MANY = { from: new Date('2026-05-06T10:00:00Z'), count: 12 * WHOLE_LIST_PAGE_SIZE };
const MANY_PATH = `/return/list?from=${MANY.from.toISOString()}&to=${new Date(MANY.from.getTime() + HOUR).toISOString()}`;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db, { scopes: ['returns_read', 'returns_write'] });
  await insertBulkReturns(server.db.sql, store.storeId, {
    count: MIXED.count,
    items: 2,
    from: MIXED.from,
    stepMs: 1,
    distinctTimes: 7,
    statuses: ['open', 'complete', 'rejected', 'flagged', 'deleted', 'in_transit'],
    batch: 'mixed',
  });
  // Some items removed: the ASN leaves them out.
  await server.db.sql.query(`UPDATE "ReturnItem" SET "removedAt" = now() WHERE "id" ~ '^rli_mixed_[0-9]*5_2$'`);
  await insertBulkReturns(server.db.sql, store.storeId, { count: MANY.count, items: 1, from: MANY.from, stepMs: 10, batch: 'many' });
});
afterAll(async () => server?.close());

type Listed = { id: number; created_at: string };

async function pagedList(query: string): Promise<Listed[]> {
  const all: Listed[] = [];
  let url: string | null = `${server.url}${WAREHOUSE}/return/list?${query}&paginate=true&pageSize=100`;
  while (url) {
    const res: Response = await fetch(url, { headers: { authorization: `Bearer ${store.secret}` } });
    expect(res.status).toBe(200);
    const page = (await res.json()) as { returns: Listed[]; nextPageUrl: string | null };
    all.push(...page.returns);
    url = page.nextPageUrl;
  }
  return all;
}

describe('the unpaginated list', () => {
  it('streams the JSON array the paginated pages hold end to end, element for element', async () => {
    const res = await warehouse(server, store.secret, 'GET', `/return/list?${MIXED_WINDOW}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-length')).toBeNull();
    const streamed = JSON.parse(res.text) as Listed[];
    // open, in_transit, complete and rejected of the six statuses: 600 returns, six pages as the list is read.
    expect(streamed).toHaveLength(600);
    expect(streamed.length).toBeGreaterThan(2 * WHOLE_LIST_PAGE_SIZE);
    expect(streamed).toEqual(await pagedList(MIXED_WINDOW));
    expect(new Set(streamed.map((r) => r.id)).size).toBe(streamed.length);
  });

  it('answers an empty window as []', async () => {
    const res = await warehouse(server, store.secret, 'GET', '/return/list?from=2020-01-01&to=2020-01-02');
    expect(res.status).toBe(200);
    expect(res.text).toBe('[]');
  });
});

describe('the ASN report', () => {
  it("streams v3's returnAsnRows in the platform's shape, oldest first and ties by number, across pages", async () => {
    const res = await warehouse(server, store.secret, 'GET', `/reporting/asn?${MIXED_WINDOW}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const streamed = JSON.parse(res.text) as ReturnType<typeof compatAsnRow>[];
    const whole = await graphql(server, store.secret, `query($from: DateTime!, $to: DateTime!) { returnAsnRows(from: $from, to: $to) { ${ASN_ROW_FIELDS} } }`, {
      from: MIXED.from.toISOString(),
      to: new Date(MIXED.from.getTime() + HOUR).toISOString(),
    });
    const rows = (whole.data!.returnAsnRows as AsnRowNode[]).map(compatAsnRow);
    // Every status but deleted: 750 returns (four pages as the report is read), two items each less the removed ones.
    const returns = new Set(rows.map((r) => r.id)).size;
    expect(returns).toBe(750);
    expect(returns).toBeGreaterThan(2 * WHOLE_CONNECTION_PAGE_SIZE);
    expect(streamed).toEqual(rows);
    const keys = streamed.map((r) => [r.created_at, r.id] as const);
    const sorted = [...keys].sort(([a, m], [b, n]) => a.localeCompare(b) || m - n);
    expect(keys).toEqual(sorted);
  });
});

describe('failures and departures', () => {
  /** Makes the `failing`-th read of returns (1-based) from now on fail as a lost database would. */
  function failReturnRead(failing: number) {
    const delegate = server.db.reads.return;
    const original = delegate.findMany;
    let calls = 0;
    return vi.spyOn(delegate, 'findMany').mockImplementation(((args: Parameters<typeof original>[0]) =>
      ++calls === failing ? Promise.reject(new Error('the database went away')) : original.call(delegate, args)) as typeof original);
  }

  it('answers a failure on the first page with the platform error, as before streaming', async () => {
    const spy = failReturnRead(1);
    try {
      const res = await warehouse(server, store.secret, 'GET', MANY_PATH);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: { code: 'INTERNAL_SERVER_ERROR', http_code: 500, message: 'internal error' } });
    } finally {
      spy.mockRestore();
    }
  });

  it('cuts the connection when a later page fails, so no client takes a cut-off array for a whole one', async () => {
    const spy = failReturnRead(2);
    try {
      const res = await fetch(`${server.url}${WAREHOUSE}${MANY_PATH}`, { headers: { authorization: `Bearer ${store.secret}` } });
      expect(res.status).toBe(200);
      await expect(res.text()).rejects.toThrow();
    } finally {
      spy.mockRestore();
    }
    expect((await warehouse(server, store.secret, 'GET', '/return/list?paginate=true&pageSize=1')).status).toBe(200);
  });

  it('answers a request made while a big answer is being written before that answer ends', async () => {
    const events: string[] = [];
    await new Promise<void>((resolve, reject) => {
      http
        .get(`${server.url}${WAREHOUSE}${MANY_PATH}`, { agent: false, headers: { authorization: `Bearer ${store.secret}` } }, (res) => {
          res.once('data', () => {
            fetch(`${server.url}/readyz`).then((ready) => events.push(`readyz ${ready.status}`), reject);
          });
          res.on('end', () => {
            events.push('list ended');
            resolve();
          });
          res.resume();
        })
        .on('error', reject);
    });
    expect(events).toEqual(['readyz 200', 'list ended']);
  });

  it('stops reading pages once the client has left mid-answer, and serves the next request', async () => {
    // Each keyset page of the list is one findMany on returns.
    const pageReads = vi.spyOn(server.db.reads.return, 'findMany');
    try {
      await new Promise<void>((resolve, reject) => {
        const request = http.get(`${server.url}${WAREHOUSE}${MANY_PATH}`, { agent: false, headers: { authorization: `Bearer ${store.secret}` } }, (res) => {
          expect(res.statusCode).toBe(200);
          res.once('data', () => {
            request.destroy();
            resolve();
          });
        });
        request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
      });
      // The read in flight when the client left may finish; none starts after it.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const afterLeaving = pageReads.mock.calls.length;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(pageReads.mock.calls.length).toBe(afterLeaving);
      expect(afterLeaving).toBeLessThan(MANY.count / WHOLE_LIST_PAGE_SIZE);
    } finally {
      pageReads.mockRestore();
    }
    const next = await warehouse(server, store.secret, 'GET', `${MANY_PATH}&paginate=true&pageSize=3`);
    expect(next.status).toBe(200);
    expect((next.body as { returns: unknown[] }).returns).toHaveLength(3);
  });
});
