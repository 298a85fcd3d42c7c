// The returns part of the v3 schema: scopes, node(id:) tenant isolation, the returns
// connection (filters, sort keys, both directions), lookups, and the error codes the
// mutations end with.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowCounts } from '../support/counts.ts';
import { createTestOrder, insertTestReturn, setReturnTimes, type TestReturn } from '../support/returnFixtures.ts';
import { addApiClient, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other' });
});
afterAll(async () => server?.close());

const codes = (res: { errors?: { extensions?: { code?: string } }[] }) => res.errors?.map((e) => e.extensions?.code);

describe('scopes', () => {
  it('reading returns needs returns_read (or returns_write on the objects), writing needs returns_write', async () => {
    const ret = await insertTestReturn(server.db, store.storeId, await createTestOrder(server.db, store.storeId));
    const inventory = await addApiClient(server.db, store.storeId, ['inventory_read']);
    expect(codes(await graphql(server, inventory.secret, '{ returns(first: 5) { nodes { id } } }'))).toEqual(['FORBIDDEN']);
    expect(codes(await graphql(server, inventory.secret, 'query($id: ID!) { node(id: $id) { id } }', { id: ret.id }))).toEqual(['FORBIDDEN']);

    const reader = await addApiClient(server.db, store.storeId, ['returns_read']);
    const counts = await rowCounts(server.db);
    const write = await graphql(server, reader.secret, 'mutation($n: Int) { flagReturn(number: $n) { id } }', { n: ret.number });
    expect(codes(write)).toEqual(['FORBIDDEN']);
    expect(await rowCounts(server.db)).toEqual(counts);

    const writer = await addApiClient(server.db, store.storeId, ['returns_write']);
    const flagged = await graphql(server, writer.secret, 'mutation($n: Int) { flagReturn(number: $n) { id status number } }', { n: ret.number });
    expect(flagged.data).toEqual({ flagReturn: { id: ret.id, status: 'FLAGGED', number: ret.number } });
    expect(codes(await graphql(server, writer.secret, '{ returns(first: 1) { nodes { id } } }'))).toEqual(['FORBIDDEN']);
  });
});

describe('node(id:)', () => {
  it("loads the store's own return and nothing of another store", async () => {
    const mine = await insertTestReturn(server.db, store.storeId, await createTestOrder(server.db, store.storeId));
    const theirs = await insertTestReturn(server.db, other.storeId, await createTestOrder(server.db, other.storeId));
    const query = 'query($id: ID!) { node(id: $id) { id ... on Return { number status items { id } } } }';
    expect((await graphql(server, store.secret, query, { id: mine.id })).data).toEqual({
      node: { id: mine.id, number: mine.number, status: 'OPEN', items: mine.itemIds.map((id) => ({ id })) },
    });
    const foreign = await graphql(server, store.secret, query, { id: theirs.id });
    expect(foreign.data).toEqual({ node: null });
    expect((await graphql(server, store.secret, 'query($id: ID!) { return(id: $id) { id } }', { id: theirs.id })).data).toEqual({ return: null });
  });
});

describe('returns connection', () => {
  let lister: TestStore;
  const made: TestReturn[] = [];

  beforeAll(async () => {
    lister = await createTestStore(server.db, { name: 'Lister' });
    const statuses = ['open', 'complete', 'flagged', 'open', 'rejected'] as const;
    for (let i = 0; i < statuses.length; i++) {
      const ret = await insertTestReturn(server.db, lister.storeId, await createTestOrder(server.db, lister.storeId), { status: statuses[i] });
      // created in one order, updated in the reverse one
      await setReturnTimes(server.db, ret.id, { createdAt: new Date(Date.UTC(2026, 0, 1 + i)), updatedAt: new Date(Date.UTC(2026, 1, 10 - i)) });
      made.push(ret);
    }
  });

  const numbers = (res: { data?: Record<string, unknown> | null }) =>
    ((res.data?.returns as { nodes: { number: number }[] }).nodes ?? []).map((n) => n.number);

  it('sorts by updatedAt (default) or createdAt, newest first, and filters', async () => {
    const q = (args: string) => graphql(server, lister.secret, `{ returns(${args}) { nodes { number } } }`);
    expect(numbers(await q('first: 10'))).toEqual(made.map((r) => r.number));
    expect(numbers(await q('first: 10, sortKey: CREATED_AT'))).toEqual(made.map((r) => r.number).reverse());
    expect(numbers(await q('first: 10, status: OPEN'))).toEqual([made[0].number, made[3].number]);
    expect(numbers(await q('first: 10, status: [COMPLETE, REJECTED]'))).toEqual([made[1].number, made[4].number]);
    expect(numbers(await q('first: 10, createdAtMin: "2026-01-02T00:00:00Z", createdAtMax: "2026-01-04T00:00:00Z"'))).toEqual([made[1].number, made[2].number]);
    expect(numbers(await q('first: 10, updatedAtMin: "2026-02-08T00:00:00Z", updatedAtMax: "2026-02-10T00:00:00Z"'))).toEqual([made[1].number, made[2].number]);
  });

  it('pages forwards and backwards with cursors', async () => {
    const page = async (args: string) => {
      const res = await graphql(server, lister.secret, `{ returns(${args}) { nodes { number } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`);
      return res.data!.returns as { nodes: { number: number }[]; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string; endCursor: string } };
    };
    const first = await page('first: 2');
    const second = await page(`first: 2, after: "${first.pageInfo.endCursor}"`);
    const third = await page(`first: 2, after: "${second.pageInfo.endCursor}"`);
    expect([first, second, third].map((p) => p.nodes.map((n) => n.number))).toEqual([
      [made[0].number, made[1].number],
      [made[2].number, made[3].number],
      [made[4].number],
    ]);
    expect(third.pageInfo.hasNextPage).toBe(false);
    const back = await page(`last: 2, before: "${third.pageInfo.startCursor}"`);
    expect(back.nodes.map((n) => n.number)).toEqual([made[2].number, made[3].number]);
    expect(back.pageInfo.hasPreviousPage).toBe(true);
  });

  it('refuses over 100 per page on v3', async () => {
    expect(codes(await graphql(server, lister.secret, '{ returns(first: 101) { nodes { id } } }'))).toEqual(['BAD_USER_INPUT']);
  });
});

describe('mutations and lookups', () => {
  it('createReturn answers the return and whether the key replayed it', async () => {
    const order = await createTestOrder(server.db, store.storeId, { lines: [{ quantity: 2 }] });
    const mutation = `mutation($input: CreateReturnInput!, $key: String) {
      createReturn(input: $input, idempotencyKey: $key) { replayed return { id status type items { quantity outcome reason } } } }`;
    const input = { orderId: order.id, items: [{ lineItemId: 'line-1', quantity: 1, outcome: 'CREDIT', reason: 'late' }], type: 'WARRANTY' };
    const first = await graphql(server, store.secret, mutation, { input, key: 'gql-1' });
    expect(first.data).toMatchObject({
      createReturn: { replayed: false, return: { status: 'OPEN', type: 'WARRANTY', items: [{ quantity: 1, outcome: 'CREDIT', reason: 'late' }] } },
    });
    const again = await graphql(server, store.secret, mutation, { input, key: 'gql-1' });
    expect(again.data).toMatchObject({ createReturn: { replayed: true } });
    const over = await graphql(server, store.secret, mutation, { input: { ...input, items: [{ lineItemId: 'line-1', quantity: 2 }] } });
    expect(codes(over)).toEqual(['CONFLICT']);
  });

  it('ends with NOT_FOUND, BAD_USER_INPUT or UNPROCESSABLE as the domain decides', async () => {
    const order = await createTestOrder(server.db, store.storeId);
    const ret = await insertTestReturn(server.db, store.storeId, order, { status: 'complete' });
    expect(codes(await graphql(server, store.secret, '{ findReturn(number: 99999999) { id } }'))).toEqual(['NOT_FOUND']);
    expect(codes(await graphql(server, store.secret, '{ findReturn { id } }'))).toEqual(['BAD_USER_INPUT']);
    const process = await graphql(server, store.secret, 'mutation($id: ID) { processReturn(id: $id) { id } }', { id: ret.id });
    expect(codes(process)).toEqual(['UNPROCESSABLE']);
    const note = await graphql(server, store.secret, 'mutation($id: ID) { addReturnNote(id: $id, content: "") { id } }', { id: ret.id });
    expect(codes(note)).toEqual(['BAD_USER_INPUT']);
    const found = await graphql(server, store.secret, 'query($name: String) { findReturn(orderName: $name) { id number } }', { name: order.name });
    expect(found.data).toEqual({ findReturn: { id: ret.id, number: ret.number } });
  });

  it('what a line may still return is one rule: the field, the refusal to create and the refusal to reset agree', async () => {
    const order = await createTestOrder(server.db, store.storeId, { lines: [{ quantity: 2 }] });
    const line = order.lineItems[0];
    const returnable = async () => {
      const res = await graphql(server, store.secret, 'query($id: ID!) { node(id: $id) { ... on Order { lineItems { returnableQuantity } } } }', { id: order.id });
      return (res.data as { node: { lineItems: { returnableQuantity: number }[] } }).node.lineItems[0].returnableQuantity;
    };
    const create = (quantity: number) =>
      graphql(server, store.secret, 'mutation($input: CreateReturnInput!) { createReturn(input: $input) { return { id } } }', {
        input: { orderId: order.id, items: [{ lineItemId: line.externalId, quantity, outcome: 'REFUND' }] },
      });
    expect(await returnable()).toBe(2);
    const first = await create(2);
    const firstId = (first.data as { createReturn: { return: { id: string } } }).createReturn.return.id;
    expect(await returnable()).toBe(0);
    const over = await create(1);
    expect(codes(over)).toEqual(['CONFLICT']);
    expect(over.errors?.[0].message).toContain(`1 requested but only 0 of line item ${line.externalId} can still be returned`);

    const transition = (name: string) => graphql(server, store.secret, `mutation($id: ID) { ${name}(id: $id) { id status } }`, { id: firstId });
    expect((await transition('returnReject')).errors).toBeUndefined();
    expect(await returnable()).toBe(2);
    expect((await create(1)).errors).toBeUndefined();
    expect(await returnable()).toBe(1);
    // Reset would claim both units again, and one is now another return's.
    const reset = await transition('returnReset');
    expect(codes(reset)).toEqual(['UNPROCESSABLE']);
    expect(reset.errors?.[0].message).toContain(`line item ${line.externalId} is now claimed by another return`);
    expect(await returnable()).toBe(1);
  });

  it('lists removed items only when asked', async () => {
    const ret = await insertTestReturn(server.db, store.storeId, await createTestOrder(server.db, store.storeId, { lines: [{}, {}] }));
    const removed = await graphql(server, store.secret, 'mutation($id: ID, $items: [ID!]!) { removeReturnItems(id: $id, lineItemIds: $items) { items { id } all: items(includeRemoved: true) { id removedAt } } }', {
      id: ret.id,
      items: [ret.itemIds[0]],
    });
    const data = removed.data!.removeReturnItems as { items: { id: string }[]; all: { id: string; removedAt: string | null }[] };
    expect(data.items).toEqual([{ id: ret.itemIds[1] }]);
    expect(data.all.map((i) => [i.id, i.removedAt !== null])).toEqual([
      [ret.itemIds[0], true],
      [ret.itemIds[1], false],
    ]);
  });
});
