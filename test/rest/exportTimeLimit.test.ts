// An export never ends short: a page after its first that runs past the search time limit is not
// cut off (the search was accepted on its first page; the file's head is out by then, and a cut
// would leave a short file). Forced here: the service runs with a 200 ms limit (SEARCH_TIME_LIMIT_MS
// through its configuration), and once the first page has arrived another transaction holds the
// returns table locked for well past that limit, so the next page's statement waits on the lock.
// PostgreSQL only: PGlite runs a statement in the service's own thread and cannot cancel one, so
// it has no search time limit to pass.
import { parse } from 'csv-parse/sync';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { insertBulkReturns } from '../support/bulkReturns.ts';
import { createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

const RETURNS = 4_000;
const TIME_LIMIT_MS = 200;
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

let server: TestServer;
let store: TestStore;

beforeAll(async () => {
  if (!onPostgres) return;
  server = await startTestServer({ searchTimeLimitMs: TIME_LIMIT_MS });
  store = await createTestStore(server.db);
  await insertBulkReturns(server.db.sql, store.storeId, { count: RETURNS, items: 1, from: new Date('2026-10-01T00:00:00Z'), stepMs: 60_000, batch: 'limit' });
}, 300_000);
afterAll(async () => server?.close());

it.skipIf(!onPostgres)('writes every record of a search though a later page waits past the search time limit', async () => {
  const res = await fetch(`${server.url}/v3/rest/exports/returns.csv?query=small`, { headers: { authorization: `Bearer ${store.secret}` } });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const first = await reader.read();
  text += decoder.decode(first.value, { stream: true });

  const locker = new pg.Client({ connectionString: server.db.url });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE "Return" IN ACCESS EXCLUSIVE MODE');
    // The pages read from now on wait for the lock, five times the limit.
    await new Promise((resolve) => setTimeout(resolve, 5 * TIME_LIMIT_MS));
    await locker.query('COMMIT');
  } finally {
    await locker.end();
  }

  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
  text += decoder.decode();
  const rows = parse(text, { columns: true }) as Record<string, string>[];
  expect(rows).toHaveLength(RETURNS);
  expect(new Set(rows.map((row) => Object.values(row)[0])).size).toBe(RETURNS);
}, 300_000);
