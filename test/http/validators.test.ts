// Validators and 304 Not Modified (src/conditionalRequests.ts, the store change counters of
// migration store_change_counter): every door's GETs answer a strong ETag, a current one in
// If-None-Match is a 304 with no body, and a write through any door on any instance changes
// the validator of what it changed before its answer is sent. Two instances on one database
// (on PostgreSQL each with its own connection pool, as two processes would be).
import http from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/auth/scopes.ts';
import { parseIfNoneMatch } from '../../src/http/steps/validators.ts';
import { openDatabase } from '../../src/db/client.ts';
import type { Database } from '../../src/db/database.ts';
import { foldStoreChanges, readStoreChanges } from '../../src/db/storeChanges.ts';
import { newId } from '../../src/domain/ids.ts';
import { addReturnNote } from '../../src/domain/returns/operations.ts';
import { createTestOrder, insertTestReturn, type TestReturn } from '../support/returnFixtures.ts';
import { addApiClient, call, createTestStore, graphql, linkFulfillmentService, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** Both instances are asked under one host name, as behind a balancer (an answer's links name the host it was asked under). */
const HOST = 'backoffice.example';

function get(server: TestServer, path: string, secret: string | undefined, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get(server.url + path, { headers: { host: HOST, ...(secret ? { authorization: `Bearer ${secret}` } : {}), ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) answerHeaders.set(name, [value].flat().join(', '));
        resolve({ status: response.statusCode!, headers: answerHeaders, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    request.on('error', reject);
  });
}

const tagOf = (answer: Answer) => answer.headers.get('etag');

describe('If-None-Match', () => {
  it('reads *, lists of tags, weak tags and empty list elements, and ignores a malformed header', () => {
    expect(parseIfNoneMatch('*')).toEqual({ any: true });
    expect(parseIfNoneMatch('"a"')).toEqual({ any: false, tags: new Set(['"a"']) });
    expect(parseIfNoneMatch(' W/"a" ,, "b",')).toEqual({ any: false, tags: new Set(['"a"', '"b"']) });
    expect(parseIfNoneMatch('"a" "b"')).toBeUndefined();
    expect(parseIfNoneMatch('a')).toBeUndefined();
    expect(parseIfNoneMatch('w/"a"')).toBeUndefined();
    expect(parseIfNoneMatch('')).toBeUndefined();
    expect(parseIfNoneMatch(undefined)).toBeUndefined();
  });
});

describe('conditional GETs', () => {
  let first: TestServer;
  let second: TestServer;
  let secondDb: Database;
  let store: TestStore;
  let other: TestStore;
  let ret: TestReturn;
  let orderId: string;
  /** A GET of every door that reads data, in the store of `store`. */
  let reads: { door: string; path: string }[];

  beforeAll(async () => {
    first = await startTestServer();
    secondDb = onPostgres ? await openDatabase(first.db.url) : first.db;
    second = await startTestServer({}, {}, { db: secondDb });
    store = await createTestStore(first.db);
    other = await createTestStore(first.db);
    const order = await createTestOrder(first.db, store.storeId);
    orderId = order.id;
    ret = await insertTestReturn(first.db, store.storeId, order);
    await addReturnNote(first.db.prisma, store.storeId, { id: ret.id }, 'first note');
    const since = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const until = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const v3Query = encodeURIComponent('query Returns($first: Int!) { returns(first: $first) { nodes { id status notes { content } } } }');
    reads = [
      { door: 'rest list', path: `/v2.2/stores/${store.storeId}/returns?page-size=5` },
      { door: 'rest object', path: `/v2.2/stores/${store.storeId}/orders/${orderId}` },
      { door: 'v3rest', path: '/v3/rest/returns?first=5' },
      { door: 'compat details', path: `/api/v1/warehouse/return/details?return_id=${ret.number}` },
      { door: 'compat list', path: `/api/v1/warehouse/return/list?from=${since}&to=${until}&filter=updated_at` },
      { door: 'compat notes', path: `/api/v1/warehouse/return/${ret.number}/notes` },
      { door: 'v3 GET', path: `/v3/graphql?query=${v3Query}&variables=${encodeURIComponent('{"first":5}')}` },
    ];
  });
  afterAll(async () => {
    await second?.close();
    if (onPostgres) await secondDb?.close();
    await first?.close();
  });

  it('answers every door’s GET with a strong validator, and 304 with no body for a current one', async () => {
    for (const { door, path } of reads) {
      const full = await get(first, path, store.secret);
      expect(full.status, door).toBe(200);
      const tag = tagOf(full);
      expect(tag, door).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      expect(full.headers.get('cache-control'), door).toBe('private, no-cache, must-revalidate');
      expect(full.headers.get('vary'), door).toEqual(expect.stringContaining('Authorization, Accept, Accept-Encoding'));

      // Asked of the other instance, with the tag as sent, weak, in a list, or `*`.
      for (const condition of [tag!, `W/${tag}`, `"elsewhere", ${tag}`, '*']) {
        const again = await get(second, path, store.secret, { 'if-none-match': condition });
        expect([door, condition, again.status]).toEqual([door, condition, 304]);
        expect(again.text).toBe('');
        expect(tagOf(again), door).toBe(tag);
        expect(again.headers.get('cache-control')).toBe('private, no-cache, must-revalidate');
        expect(again.headers.get('vary')).toEqual(expect.stringContaining('Authorization, Accept, Accept-Encoding'));
      }
      const stale = await get(first, path, store.secret, { 'if-none-match': '"not-this-one"' });
      expect([door, stale.status, tagOf(stale)]).toEqual([door, 200, tag]);
      expect(stale.text).toBe(full.text);
    }
  });

  it('tells every cache to revalidate a tagged answer, even one kept for an authenticated request, and the revalidation is a 304', async () => {
    // RFC 9111 §3.5: a cache may keep an answer to a request with Authorization only when the
    // answer says must-revalidate (or public, or s-maxage); undici's cache, for one, then asks again.
    for (const { door, path } of reads) {
      const full = await get(first, path, store.secret);
      const directives = (full.headers.get('cache-control') ?? '').split(',').map((directive) => directive.trim());
      expect([door, ...directives]).toEqual([door, 'private', 'no-cache', 'must-revalidate']);
      const revalidated = await get(first, path, store.secret, { 'if-none-match': tagOf(full)! });
      expect([door, revalidated.status, revalidated.headers.get('cache-control')]).toEqual([door, 304, full.headers.get('cache-control')]);
    }
  });

  it('tags a v3 query sent as GET by urql, whose Accept names event streams beside JSON, and leaves one asked as an event stream untagged', async () => {
    const urqlAccept = 'application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed';
    const query = `/v3/graphql?query=${encodeURIComponent('{ returns(first: 5) { nodes { id } } }')}`;
    const full = await get(first, query, store.secret, { accept: urqlAccept });
    expect(full.status).toBe(200);
    expect(full.headers.get('content-type')).toMatch(/json/);
    expect(tagOf(full)).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect((await get(second, query, store.secret, { accept: urqlAccept, 'if-none-match': tagOf(full)! })).status).toBe(304);
    // Asked for an event stream only, the same query is answered as one event: no tag.
    const asEvents = await get(first, query, store.secret, { accept: 'text/event-stream' });
    expect(asEvents.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(tagOf(asEvents)).toBeNull();
  });

  it('changes every validator a write changes before the write is answered, whichever door and instance wrote', async () => {
    const before = new Map<string, string>();
    for (const { path } of reads) before.set(path, tagOf(await get(first, path, store.secret))!);

    // A note through v3 on the second instance: the write's answer is back, so the first instance must see it.
    const added = await graphql(second, store.secret, `mutation($id: ID!) { returnNoteAdd(id: $id, content: "second note") { id } }`, { id: ret.id });
    expect(added.errors).toBeUndefined();
    for (const { door, path } of reads) {
      const after = await get(first, path, store.secret, { 'if-none-match': before.get(path)! });
      expect([door, after.status]).toEqual([door, 200]);
      expect(tagOf(after), door).not.toBe(before.get(path));
      before.set(path, tagOf(after)!);
    }
    const notes = await get(first, `/api/v1/warehouse/return/${ret.number}/notes`, store.secret);
    expect(notes.text).toContain('second note');

    // Then through the compat door on the first instance, read on the second.
    const noted = await call(first, 'POST', `/api/v1/warehouse/return/${ret.number}/note`, { secret: store.secret, body: { content: 'third note' } });
    expect(noted.status).toBe(200);
    for (const { door, path } of reads) {
      const after = await get(second, path, store.secret, { 'if-none-match': before.get(path)! });
      expect([door, after.status]).toEqual([door, 200]);
    }
  });

  it('leaves the validator as it was when a write is refused or its transaction rolls back', async () => {
    const path = `/v2.2/stores/${store.storeId}/returns?page-size=5`;
    const tag = tagOf(await get(first, path, store.secret))!;
    const refused = await graphql(first, store.secret, `mutation($id: ID!) { returnNoteAdd(id: $id, content: "   ") { id } }`, { id: ret.id });
    expect(refused.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    const note = (keep: boolean) =>
      first.db.prisma.$transaction(async (tx) => {
        await tx.returnNote.create({ data: { id: `rnt_${keep ? 'kept' : 'rolledback'}${Date.now()}`, returnId: ret.id, content: 'a note' } });
        if (!keep) throw new Error('rolled back');
      });
    await expect(note(false)).rejects.toThrow('rolled back');
    expect((await get(second, path, store.secret, { 'if-none-match': tag })).status).toBe(304);
    // The same write committed, with no event or other row beside it, is counted.
    await note(true);
    expect((await get(second, path, store.secret, { 'if-none-match': tag })).status).toBe(200);
  });

  it('never gives two stores, two clients or two query strings one validator', async () => {
    const otherOrder = await createTestOrder(first.db, other.storeId);
    await insertTestReturn(first.db, other.storeId, otherOrder);
    const sameScopes = await addApiClient(first.db, store.storeId, SCOPES);
    const fewerScopes = await addApiClient(first.db, store.storeId, SCOPES.filter((scope) => scope !== 'webhooks_write'));
    const tags = new Map<string, string>();
    const seen = async (label: string, path: string, secret: string) => {
      const answer = await get(first, path, secret);
      expect([label, answer.status]).toEqual([label, 200]);
      tags.set(label, tagOf(answer)!);
    };
    await seen('store', '/v3/rest/returns?first=5', store.secret);
    await seen('other store', '/v3/rest/returns?first=5', other.secret);
    await seen('another client', '/v3/rest/returns?first=5', sameScopes.secret);
    await seen('fewer scopes', '/v3/rest/returns?first=5', fewerScopes.secret);
    await seen('other query', '/v3/rest/returns?first=4', store.secret);
    await seen('same query, other order', '/v3/rest/returns?first=5&', store.secret);
    expect(new Set(tags.values()).size).toBe(tags.size);
    // One caller's tag is no use to another: the answer is sent whole.
    const borrowed = await get(first, '/v3/rest/returns?first=5', fewerScopes.secret, { 'if-none-match': tags.get('store')! });
    expect(borrowed.status).toBe(200);
    // Nor for another representation of the same resource.
    const gzipped = await get(first, '/v3/rest/returns?first=5', store.secret, { 'if-none-match': tags.get('store')!, 'accept-encoding': 'gzip' });
    expect(gzipped.status).toBe(200);
    expect(tagOf(gzipped)).not.toBe(tags.get('store'));
  });

  it('changes a merchant’s validators when a linked fulfillment service changes its locations', async () => {
    const service = await createTestStore(first.db, { kind: 'FULFILLMENT_SERVICE' });
    const merchant = await createTestStore(first.db);
    const path = '/v3/rest/locations?first=10';
    const unlinked = tagOf(await get(first, path, merchant.secret))!;
    await linkFulfillmentService(first.db.prisma, merchant.storeId, service.storeId);
    const linked = await get(first, path, merchant.secret, { 'if-none-match': unlinked });
    expect(linked.status).toBe(200);
    const [location] = await first.db.prisma.location.findMany({ where: { storeId: service.storeId } });
    expect(linked.text).toContain(location.id);
    const renamed = await graphql(second, service.secret, `mutation($id: ID!) { locationUpdate(id: $id, input: { name: "Renamed dock" }) { userErrors { message } } }`, { id: location.id });
    expect(renamed.errors).toBeUndefined();
    const after = await get(first, path, merchant.secret, { 'if-none-match': tagOf(linked)! });
    expect(after.status).toBe(200);
    expect(after.text).toContain('Renamed dock');
  });

  it('gives no validator to answers that change without a write, to failures and to other methods', async () => {
    // The warehouse list's default window ends now: it changes as time passes.
    const moving = await get(first, '/api/v1/warehouse/return/list', store.secret);
    expect(moving.status).toBe(200);
    expect(moving.headers.get('etag')).toBeNull();
    expect(moving.headers.get('cache-control')).toBe('private, no-cache');
    // A GraphQL answer reporting errors may come from a passing failure.
    const failing = await get(first, `/v3/graphql?query=${encodeURIComponent('{ returns(first: 5000) { nodes { id } } }')}`, store.secret);
    expect(failing.status).toBe(200);
    expect(failing.text).toContain('"errors"');
    expect(failing.headers.get('etag')).toBeNull();
    const unauthenticated = await get(first, '/v3/rest/returns?first=5', undefined, { 'if-none-match': '*' });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('etag')).toBeNull();
    const write = await call(first, 'POST', '/v3/rest/upsert-customer', { secret: store.secret, body: { input: { email: 'etag@example.com' } } });
    expect(write.status).toBe(200);
    expect(write.headers.get('etag')).toBeNull();
    const page = await get(first, '/admin/login', undefined);
    expect(page.headers.get('etag')).toBeNull();
  });

  it('adds a row per writing transaction and store, and folds them into one without changing any validator', async () => {
    const fresh = await createTestStore(first.db);
    const rowsOf = async () =>
      (await first.db.sql.query<{ rows: number }>(`SELECT count(*)::int AS rows FROM "StoreChangeCounter" WHERE "storeId" = $1`, [fresh.storeId]))[0].rows;
    const path = '/v3/rest/locations?first=10';
    const before = { rows: await rowsOf(), tag: tagOf(await get(first, path, fresh.secret))!, changes: (await readStoreChanges(first.db.sql, fresh.storeId))[0].changes };
    // One transaction writing several rows of two tables of the store.
    await first.db.prisma.$transaction(async (tx) => {
      for (const name of ['Dock A', 'Dock B']) await tx.location.create({ data: { id: newId('location'), storeId: fresh.storeId, name } });
      await tx.store.update({ where: { id: fresh.storeId }, data: { name: 'Two docks' } });
    });
    expect(await rowsOf()).toBe(before.rows + 1);
    const [{ changes }] = await readStoreChanges(first.db.sql, fresh.storeId);
    expect(BigInt(changes)).toBeGreaterThan(BigInt(before.changes));
    const tag = tagOf(await get(first, path, fresh.secret))!;
    expect(tag).not.toBe(before.tag);

    expect(await foldStoreChanges(first.db.sql)).toBeGreaterThan(0);
    expect(await rowsOf()).toBe(1);
    expect((await readStoreChanges(first.db.sql, fresh.storeId))[0].changes).toBe(changes);
    expect((await get(second, path, fresh.secret, { 'if-none-match': tag })).status).toBe(304);
    await first.db.prisma.location.create({ data: { id: newId('location'), storeId: fresh.storeId, name: 'Dock C' } });
    expect((await get(second, path, fresh.secret, { 'if-none-match': tag })).status).toBe(200);
  });

  it.runIf(onPostgres)('never makes one write of a store wait for another on the counters, so they cannot deadlock there', async () => {
    const [dock, yard] = await Promise.all(
      ['Dock', 'Yard'].map((name) => first.db.prisma.location.create({ data: { id: newId('location'), storeId: store.storeId, name } })),
    );
    const [a, b] = [new pg.Client({ connectionString: first.db.url }), new pg.Client({ connectionString: first.db.url })];
    await Promise.all([a.connect(), b.connect()]);
    try {
      const [{ changes: before }] = await readStoreChanges(first.db.sql, store.storeId);
      await a.query('BEGIN');
      await a.query(`UPDATE "Location" SET name = 'Dock by a' WHERE id = $1`, [dock.id]);
      // b locks a row before its first write, as several domain writes do (SELECT ... FOR UPDATE);
      // a write then waiting for a's count would deadlock with a waiting for that row.
      await b.query('BEGIN');
      await b.query(`SET LOCAL lock_timeout = '5s'`);
      await b.query(`SELECT id FROM "Location" WHERE id = $1 FOR UPDATE`, [yard.id]);
      await b.query(`UPDATE "Location" SET name = 'Yard by b' WHERE id = $1`, [yard.id]);
      const aWaits = a.query(`SELECT id FROM "Location" WHERE id = $1 FOR UPDATE`, [yard.id]);
      await b.query('COMMIT');
      await aWaits;
      await a.query('COMMIT');
      const [{ changes: after }] = await readStoreChanges(first.db.sql, store.storeId);
      expect(BigInt(after)).toBeGreaterThan(BigInt(before));
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it('reads the counters of the store and of every store linked to it', async () => {
    const merchant = await createTestStore(first.db);
    const service = await createTestStore(first.db, { kind: 'FULFILLMENT_SERVICE' });
    expect((await readStoreChanges(first.db.sql, merchant.storeId)).map((c) => c.storeId)).toEqual([merchant.storeId]);
    await linkFulfillmentService(first.db.prisma, merchant.storeId, service.storeId);
    const both = [merchant.storeId, service.storeId].sort();
    expect((await readStoreChanges(first.db.sql, merchant.storeId)).map((c) => c.storeId)).toEqual(both);
    expect((await readStoreChanges(first.db.sql, service.storeId)).map((c) => c.storeId)).toEqual(both);
  });

  it('counts the writes of every table a GET can read, and names the ones it leaves out', async () => {
    // Each with why no GET answer changes with its rows (the migration store_change_counter says more).
    const notCounted = [
      '_prisma_migrations',
      'StoreChangeCounter',
      'MerchantSession', // dashboard sign-ins
      'ThrottleWindow', // login throttling
      'BulkOperationLock', // a running upload's lease
      'IdempotencyKey', // stored replays of writes
      'IdempotentRequest',
      'WebhookQueue', // the dispatcher's bookkeeping
      'StoreLink', // read as which stores' counters a validator includes
      'ReadPosition', // where each client's reads must have replayed to
      'PersistedQuery', // a query's text by its hash: the same answer whether sent whole or by hash
      // The overview's rollups: written by the triggers of the orders and returns they sum, in the
      // same transaction (which those counted writes mark), and folded by the background work
      // without a figure changing.
      'ReturnsOverviewRollup',
      'ReturnOverviewFact',
    ];
    // pg_trigger.tgtype: 1 row, 2 before, 4 insert, 8 delete, 16 update.
    const rows = await first.db.sql.query<{ table: string; triggers: number; events: number; perRowBefore: boolean }>(
      `SELECT c.relname::text AS "table", count(t.oid)::int AS triggers, coalesce(bit_or(t.tgtype::int & 28), 0) AS events,
              coalesce(bool_and(t.tgtype::int & 3 = 3), false) AS "perRowBefore"
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
       LEFT JOIN (pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid AND p.proname = 'store_changes_count') ON t.tgrelid = c.oid
       WHERE c.relkind IN ('r', 'p') GROUP BY c.relname ORDER BY 1`,
    );
    expect(rows.filter((row) => row.triggers === 0 && !notCounted.includes(row.table)).map((row) => row.table)).toEqual([]);
    // An audit entry is inserted only beside the change it records, which is counted.
    const events = (table: string) => (table === 'AuditEntry' ? 8 + 16 : 4 + 8 + 16);
    for (const row of rows.filter((r) => r.triggers > 0)) expect([row.table, row.events, row.perRowBefore]).toEqual([row.table, events(row.table), true]);
  });
});
