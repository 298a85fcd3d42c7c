// Every warehouse action from every native status, table driven over the status
// machine: allowed -> HTTP 200 `true` and the resulting state; refused -> HTTP 200
// UNPROCESSABLE_RETURN and nothing changed at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReturnStatus } from '../../src/generated/prisma/client.ts';
import { rowCounts } from '../support/counts.ts';
import { createTestOrder, insertTestReturn, type TestReturn } from '../support/returnFixtures.ts';
import { createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { returnSnapshot, warehouse } from './helpers.ts';

let server: TestServer;
let store: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db, { scopes: ['returns_read', 'returns_write'] });
});
afterAll(async () => server?.close());

const STATUSES: ReturnStatus[] = ['open', 'in_transit', 'delivered', 'needs_review', 'in_review', 'flagged', 'complete', 'rejected', 'deleted'];

/** The platform's state of each native status. */
const STATE: Record<ReturnStatus, string> = {
  open: 'open',
  in_transit: 'open',
  delivered: 'open',
  needs_review: 'review',
  in_review: 'review',
  flagged: 'review',
  complete: 'closed',
  rejected: 'cancelled',
  deleted: 'deleted',
};

interface ActionCase {
  action: string;
  allowedFrom: ReturnStatus[];
  body?: (ret: TestReturn) => unknown;
  /** The native status after success; undefined: unchanged. */
  leadsTo?: ReturnStatus;
}

const IN_PROGRESS: ReturnStatus[] = ['open', 'in_transit', 'delivered', 'needs_review', 'in_review', 'flagged'];

const ACTIONS: ActionCase[] = [
  { action: 'process', allowedFrom: IN_PROGRESS, leadsTo: 'complete' },
  { action: 'flag', allowedFrom: ['open', 'in_transit', 'delivered', 'needs_review', 'in_review'], leadsTo: 'flagged' },
  { action: 'close', allowedFrom: IN_PROGRESS, leadsTo: 'rejected' },
  { action: 'cancel', allowedFrom: [...IN_PROGRESS, 'complete', 'rejected'], leadsTo: 'open' },
  { action: 'remove', allowedFrom: IN_PROGRESS, body: (ret) => ({ line_item_id: ret.itemIds[0] }) },
  { action: 'note', allowedFrom: [...IN_PROGRESS, 'complete', 'rejected'], body: () => ({ content: 'Box arrived dented' }) },
];

async function returnIn(status: ReturnStatus): Promise<TestReturn> {
  const order = await createTestOrder(server.db, store.storeId, { lines: [{}, {}] });
  return insertTestReturn(server.db, store.storeId, order, { status });
}

async function stateOf(ret: TestReturn): Promise<string> {
  const res = await warehouse(server, store.secret, 'GET', `/return/details?svc_return_id=${ret.id}`);
  expect(res.status).toBe(200);
  return (res.body as { state: string }).state;
}

for (const { action, allowedFrom, body, leadsTo } of ACTIONS) {
  describe(`POST /return/:return_id/${action}`, () => {
    for (const status of STATUSES) {
      if (allowedFrom.includes(status)) {
        it(`is done from ${status}: 200 true${leadsTo ? `, then ${leadsTo}` : ''}`, async () => {
          const ret = await returnIn(status);
          const before = await returnSnapshot(server.db, ret.id);
          const res = await warehouse(server, store.secret, 'POST', `/return/${ret.number}/${action}`, { body: body?.(ret) });
          expect(res.status).toBe(200);
          expect(res.text).toBe('true');
          const after = await returnSnapshot(server.db, ret.id);
          const expectedStatus = leadsTo ?? status;
          expect(after.status).toBe(expectedStatus);
          expect(await stateOf(ret)).toBe(STATE[expectedStatus]);
          expect(after.events).toBe(before.events + 1);
          expect(after.updatedAt.getTime()).toBeGreaterThanOrEqual(before.updatedAt.getTime());
          if (leadsTo) {
            expect(after.statusChanges.at(-1)).toMatchObject({ fromStatus: status, toStatus: leadsTo });
          } else {
            expect(after.statusChanges).toEqual(before.statusChanges);
          }
          if (action === 'remove') expect(after.items.find((i) => i.id === ret.itemIds[0])?.removedAt).not.toBeNull();
          if (action === 'note') expect(after.notes.map((n) => n.content)).toEqual(['Box arrived dented']);
        });
      } else {
        it(`is refused from ${status}: 200 UNPROCESSABLE_RETURN and nothing changes`, async () => {
          const ret = await returnIn(status);
          const before = await returnSnapshot(server.db, ret.id);
          const counts = await rowCounts(server.db);
          const res = await warehouse(server, store.secret, 'POST', `/return/${ret.number}/${action}`, { body: body?.(ret) });
          expect(res.status).toBe(200);
          expect(res.body).toEqual({ errors: { message: expect.stringContaining(status), code: 'UNPROCESSABLE_RETURN' } });
          expect(await returnSnapshot(server.db, ret.id)).toEqual(before);
          expect(await rowCounts(server.db)).toEqual(counts);
        });
      }
    }
  });
}

describe('cancel (the native reset)', () => {
  it('brings back the line items removed and forgets what processing recorded', async () => {
    const order = await createTestOrder(server.db, store.storeId, { lines: [{ price: '10.00' }, { price: '15.50' }, { price: '4.25' }] });
    const ret = await insertTestReturn(server.db, store.storeId, order);
    const remove = await warehouse(server, store.secret, 'POST', `/return/${ret.number}/remove?line_item_id=${ret.itemIds[0]},${ret.itemIds[2]}`);
    expect(remove.text).toBe('true');
    const details = async () => (await warehouse(server, store.secret, 'GET', `/return/details?return_id=${ret.number}`)).body as {
      state: string;
      total: string;
      line_items: { line_item_id: string; refund: string }[];
    };
    expect((await details()).line_items.map((l) => l.line_item_id)).toEqual([ret.itemIds[1]]);
    expect((await warehouse(server, store.secret, 'POST', `/return/${ret.number}/process`)).text).toBe('true');
    expect(await details()).toMatchObject({ state: 'closed', total: '15.50' });

    expect((await warehouse(server, store.secret, 'POST', `/return/${ret.number}/cancel`)).text).toBe('true');
    const reset = await details();
    expect(reset.state).toBe('open');
    expect(reset.total).toBe('29.75');
    expect(reset.line_items.map((l) => l.line_item_id)).toEqual(ret.itemIds);
    const stored = await server.db.prisma.return.findUniqueOrThrow({ where: { id: ret.id }, include: { items: true } });
    expect(stored.totalRefund.toFixed()).toBe('0');
    expect(stored.items.every((i) => i.removedAt === null && i.refundAmount === null)).toBe(true);
  });
});

describe('remove', () => {
  it('takes line_item_id from the query (comma-separated) or the JSON body (string or list)', async () => {
    const order = await createTestOrder(server.db, store.storeId, { lines: [{}, {}, {}, {}] });
    const ret = await insertTestReturn(server.db, store.storeId, order);
    expect((await warehouse(server, store.secret, 'POST', `/return/${ret.number}/remove`, { body: { line_item_id: ret.itemIds[0] } })).text).toBe('true');
    expect((await warehouse(server, store.secret, 'POST', `/return/${ret.number}/remove`, { body: { line_item_id: [ret.itemIds[1]] } })).text).toBe('true');
    expect((await warehouse(server, store.secret, 'POST', `/return/${ret.number}/remove?line_item_id=${ret.itemIds[2]}`)).text).toBe('true');
    const removed = await server.db.prisma.returnItem.count({ where: { returnId: ret.id, removedAt: { not: null } } });
    expect(removed).toBe(3);
  });

  it('refuses the last remaining item and items with an exchange or keep outcome, changing nothing', async () => {
    const order = await createTestOrder(server.db, store.storeId, { lines: [{}, {}, {}] });
    const ret = await insertTestReturn(server.db, store.storeId, order, {
      items: [{ lineIndex: 0 }, { lineIndex: 1, outcome: 'exchange' }, { lineIndex: 2, outcome: 'keep' }],
    });
    const before = await returnSnapshot(server.db, ret.id);
    for (const id of [ret.itemIds[1], ret.itemIds[2], ret.itemIds.join(',')]) {
      const res = await warehouse(server, store.secret, 'POST', `/return/${ret.number}/remove?line_item_id=${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ errors: { code: 'UNPROCESSABLE_RETURN' } });
    }
    const single = await insertTestReturn(server.db, store.storeId, await createTestOrder(server.db, store.storeId, { lines: [{}] }));
    const last = await warehouse(server, store.secret, 'POST', `/return/${single.number}/remove?line_item_id=${single.itemIds[0]}`);
    expect(last.body).toEqual({ errors: { message: expect.stringContaining('last remaining'), code: 'UNPROCESSABLE_RETURN' } });
    expect(await returnSnapshot(server.db, ret.id)).toEqual(before);
  });

  it('is 422 without line_item_id or with an id that is not on the return', async () => {
    const ret = await returnIn('open');
    const counts = await rowCounts(server.db);
    for (const request of [
      { path: `/return/${ret.number}/remove` },
      { path: `/return/${ret.number}/remove`, body: { line_item_id: { id: 1 } } },
      { path: `/return/${ret.number}/remove?line_item_id=rli_elsewhere` },
    ]) {
      const res = await warehouse(server, store.secret, 'POST', request.path, { body: request.body });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: { code: 'UNPROCESSABLE_ENTITY', http_code: 422, message: expect.any(String) } });
    }
    expect(await rowCounts(server.db)).toEqual(counts);
  });
});

describe('notes', () => {
  it('keeps notes of 1 to 255 characters, oldest first', async () => {
    const ret = await returnIn('open');
    for (const content of ['first', 'x'.repeat(255)]) {
      expect((await warehouse(server, store.secret, 'POST', `/return/${ret.number}/note`, { body: { content } })).text).toBe('true');
    }
    const res = await warehouse(server, store.secret, 'GET', `/return/${ret.number}/notes`);
    expect(res.status).toBe(200);
    const { notes } = res.body as { notes: { id: string; content: string; created_at: string }[] };
    expect(notes.map((n) => n.content)).toEqual(['first', 'x'.repeat(255)]);
    for (const note of notes) {
      expect(Object.keys(note)).toEqual(['id', 'content', 'created_at']);
      expect(note.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
  });

  it('is 422 for empty, too long or missing content, and writes nothing', async () => {
    const ret = await returnIn('open');
    const counts = await rowCounts(server.db);
    for (const body of [{ content: '' }, { content: 'x'.repeat(256) }, {}, { content: 12 }, undefined]) {
      const res = await warehouse(server, store.secret, 'POST', `/return/${ret.number}/note`, { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toMatchObject({ error: { code: 'UNPROCESSABLE_ENTITY', http_code: 422 } });
    }
    expect(await rowCounts(server.db)).toEqual(counts);
  });

  it('lists no notes as an empty list', async () => {
    const ret = await returnIn('complete');
    expect((await warehouse(server, store.secret, 'GET', `/return/${ret.number}/notes`)).body).toEqual({ notes: [] });
  });
});
