// A validated GET is one round trip (issue 45): the store's changes its ETag is made of are
// read by the answer's first statement, as a column of it when it is a compiled read, so the
// REST returns page is one statement, validator included; a conditional GET reads them first
// (a 304 runs nothing else). The tag is never newer than the data: a statement that is not a
// compiled read has the changes read before it, and the statements that start while the
// first one runs wait for it. Statements are counted as the service sends them (Prisma's,
// the reads' and the raw channel's), on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangesAlong, readingChangesAlong, readStoreChanges } from '../../src/db/storeChanges.ts';
import { everyStatementDuring } from '../support/counts.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;
const page = () => `/v2.2/stores/${store.storeId}/returns?page-size=20`;
const CHANGES = /"StoreChangeCounter"/;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  for (let i = 0; i < 5; i++) await insertTestReturn(server.db, store.storeId, await createTestOrder(server.db, store.storeId, { lines: [{ quantity: 2 }] }));
});
afterAll(async () => server?.close());

describe('a validated page', () => {
  it('is one statement, the changes read along, and tagged as a conditional GET tags it', async () => {
    await call(server, 'GET', page(), { secret: store.secret });
    let answer: Awaited<ReturnType<typeof call>> | undefined;
    const statements = await everyStatementDuring(server.db, async () => (answer = await call(server, 'GET', page(), { secret: store.secret })));
    expect(answer!.status).toBe(200);
    expect(statements.length, statements.join('\n---\n')).toBe(1);
    expect(statements[0]).toMatch(CHANGES);
    expect(statements[0]).toMatch(/FROM "Return"/);
    const tag = answer!.headers.get('etag');
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);

    // Asked with another tag, the changes are read first, on their own: the same tag for the same data.
    const stale = await call(server, 'GET', page(), { secret: store.secret, headers: { 'if-none-match': '"other"' } });
    expect([stale.status, stale.headers.get('etag')]).toEqual([200, tag]);
    expect(stale.text).toBe(answer!.text);
  });

  it('answers an unchanged poll with a 304 in one statement', async () => {
    const tag = (await call(server, 'GET', page(), { secret: store.secret })).headers.get('etag')!;
    let status = 0;
    const statements = await everyStatementDuring(server.db, async () => {
      status = (await call(server, 'GET', page(), { secret: store.secret, headers: { 'if-none-match': tag }, referenceCheck: false })).status;
    });
    expect(status).toBe(304);
    expect(statements.length, statements.join('\n---\n')).toBe(1);
    expect(statements[0]).toMatch(CHANGES);
  });

  it('gets a new tag once a write changed the page', async () => {
    const before = await call(server, 'GET', page(), { secret: store.secret });
    await insertTestReturn(server.db, store.storeId, await createTestOrder(server.db, store.storeId, { lines: [{ quantity: 1 }] }));
    const after = await call(server, 'GET', page(), { secret: store.secret, headers: { 'if-none-match': before.headers.get('etag')! } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect((JSON.parse(after.text) as { returns: unknown[] }).returns.length).toBe((JSON.parse(before.text) as { returns: unknown[] }).returns.length + 1);
  });
});

describe('changes read along', () => {
  it('are carried by a compiled read, in its own statement', async () => {
    const along = new ChangesAlong(store.storeId, server.db.sql);
    const statements = await everyStatementDuring(server.db, () =>
      readingChangesAlong(along, () => server.db.reads.return.findMany({ where: { storeId: store.storeId }, take: 2 })),
    );
    expect(statements.length).toBe(1);
    expect(statements[0]).toMatch(CHANGES);
    expect(await along.changes()).toEqual(await readStoreChanges(server.db.sql, store.storeId));
  });

  it('are read on their own before a statement that cannot carry them, whether Prisma or the raw channel sends it', async () => {
    for (const first of [() => server.db.prisma.return.count({ where: { storeId: store.storeId } }), () => server.db.sql.query('SELECT 1')]) {
      const along = new ChangesAlong(store.storeId, server.db.sql);
      const statements = await everyStatementDuring(server.db, () =>
        readingChangesAlong(along, async () => {
          await first();
          await server.db.reads.return.findMany({ where: { storeId: store.storeId }, take: 2 });
        }),
      );
      expect(statements.length, statements.join('\n---\n')).toBe(3);
      expect(statements[0]).toMatch(CHANGES);
      expect(statements.slice(1).join('\n')).not.toMatch(CHANGES);
    }
  });

  it('make the statements that start while the first one runs wait for it', async () => {
    const along = new ChangesAlong(store.storeId, server.db.sql);
    const statements = await everyStatementDuring(server.db, () =>
      readingChangesAlong(along, () =>
        Promise.all([
          server.db.reads.return.findMany({ where: { storeId: store.storeId }, take: 1 }),
          server.db.reads.order.findMany({ where: { storeId: store.storeId }, take: 1 }),
          server.db.prisma.order.count({ where: { storeId: store.storeId } }),
        ]),
      ),
    );
    expect(statements.length, statements.join('\n---\n')).toBe(3);
    expect(statements[0]).toMatch(CHANGES);
    expect(statements.slice(1).join('\n')).not.toMatch(CHANGES);
  });

  it('are read when the answer made no statement', async () => {
    const along = new ChangesAlong(store.storeId, server.db.sql);
    await readingChangesAlong(along, async () => 'no statement');
    expect(await along.changes()).toEqual(await readStoreChanges(server.db.sql, store.storeId));
  });
});
