// The unpaginated return list over 100,000 returns, from the real service in a child process
// (its own resident memory, /proc/<pid>/status): the answer is streamed, so the service's RSS
// grows by less than 100 MB while it is written, and a request made meanwhile is answered before
// it ends. PostgreSQL only (TEST_DATABASE_URL): on PGlite the 100,000 returns take minutes; the
// behaviour, ordering included, is tested on both in bigAnswers.test.ts.
//
// The service runs with its heap capped at 512 MB. Left to its default (a quarter of the machine's
// memory, up to 4 GB), V8 lets the garbage a long answer makes build up to about four times the
// live heap before collecting it (measured: +200 MB RSS, the same at 30,000 and 100,000 returns);
// the cap makes it collect early (+41 MB). Without streaming the list needs over 2 GB, so under
// this cap it could not be answered at all.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { insertBulkReturns } from '../support/bulkReturns.ts';
import { createTestDatabase } from '../support/db.ts';
import { createTestStore, type TestStore } from '../support/server.ts';
import { exited, residentMb, startService, type Service } from '../support/service.ts';
import { WAREHOUSE } from './helpers.ts';

const RETURNS = 100_000;
const DAY = 24 * 60 * 60 * 1000;
const to = new Date();
const from = new Date(to.getTime() - DAY);

let db: Database;
let store: TestStore;
let service: Service;

describe.skipIf(!process.env.TEST_DATABASE_URL)('the unpaginated list of 100,000 returns', () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    store = await createTestStore(db, { scopes: ['returns_read'] });
    await insertBulkReturns(db.sql, store.storeId, { count: RETURNS, items: 3, from, stepMs: Math.floor(DAY / RETURNS), batch: 'bounds' });
    await db.sql.query('ANALYZE');
    service = await startService(db.url, { NODE_OPTIONS: '--max-old-space-size=512' });
  }, 600_000);
  afterAll(async () => {
    if (service) {
      service.child.kill('SIGTERM');
      await exited(service.child);
    }
    await db?.close();
  });

  it('is written with less than 100 MB of RSS growth, and a request made meanwhile is answered first', async () => {
    const pid = service.child.pid!;
    const headers = { authorization: `Bearer ${store.secret}` };
    const path = (a: Date, b: Date) => `${service.url}${WAREHOUSE}/return/list?from=${a.toISOString()}&to=${b.toISOString()}`;
    // Warm: the code path has run once, so its first-use allocations are not counted as growth.
    expect((await fetch(path(new Date(to.getTime() - 60_000), to), { headers }).then(async (r) => [r.status, await r.text()]))[0]).toBe(200);

    const before = residentMb(pid)!;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, residentMb(pid) ?? peak);
    }, 20);
    const events: string[] = [];
    let listed = 0;
    let last = '';
    try {
      await new Promise<void>((resolve, reject) => {
        http
          .get(path(from, to), { headers, agent: false }, (res) => {
            expect(res.statusCode).toBe(200);
            res.setEncoding('utf8');
            // Counts the returns as they arrive (a key split between two chunks is found in the joint), keeping none.
            let tail = '';
            res.on('data', (chunk: string) => {
              const text = tail + chunk;
              listed += text.split('"svc_id":').length - 1;
              tail = text.slice(-8);
              last = chunk.at(-1)!;
            });
            res.once('data', () => {
              fetch(`${service.url}/readyz`).then((ready) => events.push(`readyz ${ready.status}`), reject);
            });
            res.on('end', () => {
              events.push('list ended');
              resolve();
            });
            res.on('error', reject);
          })
          .on('error', reject);
      });
    } finally {
      clearInterval(sampler);
    }
    expect(listed).toBe(RETURNS);
    expect(last).toBe(']');
    expect(events).toEqual(['readyz 200', 'list ended']);
    expect(peak - before).toBeLessThan(100);
  }, 600_000);
});
