// The reference's return operations by id (GET /returns/{id}, status, comments, process)
// and return tags. The store is the secret's: another store's return is a 404 like an
// unknown one. Status changes go through the domain's state machine (the same one the v3
// mutations and the compat door use); comments are the return's notes. Every answer is
// checked against the reference document by call(); refused requests write nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowCounts } from '../support/counts.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other store' });
});
afterAll(async () => server?.close());

const req = (method: string, path: string, body?: unknown, secret = store.secret) => call(server, method, `/v2.2${path}`, { secret, body });

async function newReturn(status: 'open' | 'complete' = 'open') {
  const order = await createTestOrder(server.db, store.storeId, { lines: [{ quantity: 2, price: '20.00' }, { quantity: 1, price: '5.00' }] });
  return insertTestReturn(server.db, store.storeId, order, { status });
}

describe('GET /returns/{returnId}', () => {
  it('answers the return and its order; 404 for an unknown id and for another store', async () => {
    const ret = await newReturn();
    const res = await req('GET', `/returns/${ret.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ return: { id: ret.id, status: 'open' }, order: { items: expect.any(Array) } });
    expect((await req('GET', '/returns/0123456789abcdef01234567')).status).toBe(404);
    const foreign = await req('GET', `/returns/${ret.id}`, undefined, other.secret);
    expect(foreign.status).toBe(404);
  });
});

describe('status', () => {
  it('GET answers the status; PUT runs the state machine (complete records refunds, open reopens, deleted) with 204', async () => {
    const ret = await newReturn();
    expect((await req('GET', `/returns/${ret.id}/status`)).body).toEqual({ status: 'open' });
    expect((await req('PUT', `/returns/${ret.id}/status`, { status: 'complete' })).status).toBe(204);
    const completed = await server.db.prisma.return.findUniqueOrThrow({ where: { id: ret.id } });
    expect(completed.status).toBe('complete');
    expect(completed.totalRefund.toString()).toBe('25');
    expect((await req('PUT', `/returns/${ret.id}/status`, { status: 'open' })).status).toBe(204);
    const reopened = await server.db.prisma.return.findUniqueOrThrow({ where: { id: ret.id } });
    expect([reopened.status, reopened.totalRefund.toString()]).toEqual(['open', '0']);
    expect((await req('PUT', `/returns/${ret.id}/status`, { status: 'deleted' })).status).toBe(204);
    expect((await req('GET', `/returns/${ret.id}/status`)).body).toEqual({ status: 'deleted' });
    const changes = await server.db.prisma.returnStatusChange.findMany({ where: { returnId: ret.id }, orderBy: { createdAt: 'asc' } });
    expect(changes.map((c) => c.operation)).toEqual(['process', 'reset', 'delete']);
  });

  it('the v3 mutation setReturnStatus is the same machine', async () => {
    const ret = await newReturn();
    const result = await graphql(server, store.secret, 'mutation($id: ID!) { setReturnStatus(id: $id, status: FLAGGED) { status } }', { id: ret.id });
    expect(result.data).toEqual({ setReturnStatus: { status: 'FLAGGED' } });
    expect((await req('GET', `/returns/${ret.id}/status`)).body).toEqual({ status: 'flagged' });
  });

  it('refuses a bad status (400), a transition the machine forbids (409) and another store (404); nothing written', async () => {
    const ret = await newReturn();
    await req('PUT', `/returns/${ret.id}/status`, { status: 'deleted' });
    const counts = await rowCounts(server.db);
    for (const body of [{}, { status: 'in_transit' }, { status: 7 }, []]) {
      const res = await req('PUT', `/returns/${ret.id}/status`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await req('PUT', `/returns/${ret.id}/status`, { status: 'complete' })).status).toBe(409);
    expect(await rowCounts(server.db)).toEqual(counts);
    const fresh = await newReturn();
    const after = await rowCounts(server.db);
    expect((await req('PUT', `/returns/${fresh.id}/status`, { status: 'complete' }, other.secret)).status).toBe(404);
    expect(await rowCounts(server.db)).toEqual(after);
    expect((await server.db.prisma.return.findUniqueOrThrow({ where: { id: fresh.id } })).status).toBe('open');
  });
});

describe('comments', () => {
  it('adds and lists comments; they are the notes the return shows', async () => {
    const ret = await newReturn();
    const res = await req('POST', `/returns/${ret.id}/comments`, { comment: { message: 'Box was damaged' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ comment: { message: 'Box was damaged' } });
    expect((await req('GET', `/returns/${ret.id}/comments`)).body).toEqual({ comments: [{ message: 'Box was damaged' }] });
    expect(((await req('GET', `/returns/${ret.id}`)).body as { return: { notes: unknown[] } }).return.notes).toEqual([{ message: 'Box was damaged' }]);
  });

  it('refuses image comments, empty or missing messages and another store; nothing written', async () => {
    const ret = await newReturn();
    const counts = await rowCounts(server.db);
    for (const body of [{}, { comment: { image: 'aGVsbG8=' } }, { comment: { message: '' } }, { comment: { message: 5 } }]) {
      expect((await req('POST', `/returns/${ret.id}/comments`, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await req('POST', `/returns/${ret.id}/comments`, { comment: { message: 'x' } }, other.secret)).status).toBe(404);
    expect((await req('GET', `/returns/${ret.id}/comments`, undefined, other.secret)).status).toBe(404);
    expect(await rowCounts(server.db)).toEqual(counts);
  });
});

describe('POST /returns/{returnId}/process', () => {
  it('completes the kept products and takes the rejected ones off the return', async () => {
    const ret = await newReturn();
    const res = await req('POST', `/returns/${ret.id}/process`, {
      products: [{ _id: ret.itemIds[0], processInput: { restock: true, newMerchantAdjustment: null } }, { _id: ret.itemIds[1], reject: true }],
      customerNotes: 'Second item was worn',
    });
    expect(res.status).toBe(200);
    const stored = await server.db.prisma.return.findUniqueOrThrow({ where: { id: ret.id }, include: { items: true, notes: true } });
    expect(stored.status).toBe('complete');
    expect(stored.totalRefund.toString()).toBe('20');
    expect(stored.items.find((i) => i.id === ret.itemIds[1])!.removedAt).not.toBeNull();
    expect(stored.notes.map((n) => n.content)).toEqual(['Second item was worn']);
  });

  it('rejecting every product rejects the return', async () => {
    const ret = await newReturn();
    const res = await req('POST', `/returns/${ret.id}/process`, { products: ret.itemIds.map((_id) => ({ _id, reject: true })) });
    expect(res.status).toBe(200);
    expect((await req('GET', `/returns/${ret.id}/status`)).body).toEqual({ status: 'rejected' });
  });

  it('refuses unknown, missing or contradictory products and another store; nothing written', async () => {
    const ret = await newReturn();
    const counts = await rowCounts(server.db);
    const bad = [
      {},
      { products: [{ _id: 'rli_unknown' }, { _id: ret.itemIds[1] }] },
      { products: [{ _id: ret.itemIds[0] }] },
      { products: [{ _id: ret.itemIds[0], reject: true, processInput: { restock: true } }, { _id: ret.itemIds[1] }] },
      { products: ret.itemIds.map((_id) => ({ _id })), customerNotes: 'n'.repeat(256) },
    ];
    for (const body of bad) expect((await req('POST', `/returns/${ret.id}/process`, body)).status, JSON.stringify(body)).toBe(400);
    expect((await req('POST', `/returns/${ret.id}/process`, { products: ret.itemIds.map((_id) => ({ _id })) }, other.secret)).status).toBe(404);
    expect(await rowCounts(server.db)).toEqual(counts);
  });
});

describe('return tags', () => {
  it('upserts, renames (cascading to returns), lists and deletes (stripping returns)', async () => {
    const tags = `/stores/${store.storeId}/return-tags`;
    const created = await req('PUT', `${tags}/Fragile`, { pillTheme: 'DANGER' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ tag: { name: 'Fragile', kind: 'return', pillTheme: 'DANGER', source: 'merchant' } });
    const ret = await newReturn();
    await server.db.prisma.return.update({ where: { id: ret.id }, data: { tags: ['Fragile'] } });
    expect((await req('PUT', `${tags}/Fragile`, { pillTheme: 'SUCCESS', newName: 'Handle with care' })).status).toBe(200);
    expect((await server.db.prisma.return.findUniqueOrThrow({ where: { id: ret.id } })).tags).toEqual(['Handle with care']);
    expect((await req('GET', tags)).body).toMatchObject({ tags: [{ name: 'Handle with care', pillTheme: 'SUCCESS' }] });
    expect(((await req('GET', `/returns/${ret.id}`)).body as { return: { tags: unknown[] } }).return.tags).toEqual([{ name: 'Handle with care', source: 'merchant' }]);
    expect((await req('DELETE', `${tags}/${encodeURIComponent('Handle with care')}`)).body).toEqual({ success: true });
    expect((await server.db.prisma.return.findUniqueOrThrow({ where: { id: ret.id } })).tags).toEqual([]);
    expect(await server.db.prisma.event.count({ where: { storeId: store.storeId, topic: 'return_tag.updated' } })).toBe(3);
  });

  it('refuses a bad theme, a rename of an absent tag or onto a taken name (400), another store (403); nothing written', async () => {
    const tags = `/stores/${store.storeId}/return-tags`;
    await req('PUT', `${tags}/A`, { pillTheme: 'NORMAL' });
    await req('PUT', `${tags}/B`, { pillTheme: 'NORMAL' });
    const counts = await rowCounts(server.db);
    for (const [name, body] of [['A', { pillTheme: 'PLAID' }], ['A', {}], ['Nope', { pillTheme: 'NORMAL', newName: 'C' }], ['A', { pillTheme: 'NORMAL', newName: 'B' }]] as const) {
      const res = await req('PUT', `${tags}/${name}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await req('DELETE', `${tags}/Nope`)).status).toBe(404);
    expect((await req('PUT', `${tags}/A`, { pillTheme: 'NORMAL' }, other.secret)).status).toBe(403);
    expect((await req('GET', tags, undefined, other.secret)).status).toBe(403);
    expect(await rowCounts(server.db)).toEqual(counts);
  });

  it('renames and deletes of one tag at the same time: each succeeds or says the tag is gone, never a 500', async () => {
    const tags = `/stores/${store.storeId}/return-tags`;
    for (let round = 0; round < 5; round++) {
      expect((await req('PUT', `${tags}/Race`, { pillTheme: 'NORMAL' })).status).toBe(200);
      const answers = await Promise.all([
        req('PUT', `${tags}/Race`, { pillTheme: 'NORMAL', newName: `Renamed ${round}` }),
        req('DELETE', `${tags}/Race`),
        req('PUT', `${tags}/Race`, { pillTheme: 'NORMAL', newName: `Other ${round}` }),
      ]);
      expect(answers.map((answer) => answer.status).every((status) => status === 200 || status === 400 || status === 404), JSON.stringify(answers.map((a) => a.body))).toBe(true);
      expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThanOrEqual(1);
    }
  });
});
