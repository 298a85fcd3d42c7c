// The audit trail through the API doors and its v3 read: a write on v3, REST v2.2, /v3/rest
// and the compat door leaves an entry naming the API client, the door, the mutation and the
// request's x-request-id, with the values before and after; a refused write leaves none; and
// `auditEntries` answers a store's own entries, filtered and paged stably under writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowCounts } from '../support/counts.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { addApiClient, call, createTestStore, type TestServer, type TestStore, startTestServer } from '../support/server.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db, { name: 'Audited store' });
  other = await createTestStore(server.db, { name: 'Other store' });
});
afterAll(async () => server?.close());

interface Entry {
  id: string;
  occurredAt: string;
  actor: { kind: string; id: string | null; name: string | null };
  door: string;
  operation: string | null;
  requestId: string | null;
  object: { kind: string; id: string };
  parent: { kind: string; id: string } | null;
  action: string;
  changes: { field: string; before: unknown; after: unknown }[];
}

const ENTRY_FIELDS = `id occurredAt actor { kind id name } door operation requestId object { kind id } parent { kind id } action changes { field before after }`;

async function v3(secret: string, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const response = await call(server, 'POST', '/v3/graphql', { secret, body: { query, variables }, headers });
  return { ...(response.body as { data?: Record<string, unknown>; errors?: { message: string; extensions?: { code?: string } }[] }), headers: response.headers };
}

interface Page {
  nodes: Entry[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/** One page of `auditEntries` with the arguments given (GraphQL argument text). */
async function auditPage(args: string, secret = store.secret): Promise<Page> {
  const answer = await v3(secret, `{ auditEntries(${args}) { nodes { ${ENTRY_FIELDS} } pageInfo { hasNextPage endCursor } } }`);
  expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
  return answer.data!.auditEntries as Page;
}

const byRequest = async (requestId: string) => (await auditPage(`first: 100`)).nodes.filter((e) => e.requestId === requestId);
const change = (entry: Entry | undefined, field: string) => entry?.changes.find((c) => c.field === field);
const CLIENT = () => ({ kind: 'API_CLIENT', id: store.clientId, name: 'test client' });

describe('each door', () => {
  it('v3: the mutation, the client, the request id of the answer, the status before and after', async () => {
    const ret = await insertTestReturn(server.db, store.storeId, await createTestOrder(server.db, store.storeId));
    const answer = await v3(store.secret, `mutation($id: ID!) { returnFlag(id: $id) { id status } }`, { id: ret.id }, { 'x-request-id': 'audit-v3-flag' });
    expect(answer.errors).toBeUndefined();
    expect(answer.headers.get('x-request-id')).toBe('audit-v3-flag');
    const [entry] = (await byRequest('audit-v3-flag')).filter((e) => e.object.kind === 'RETURN');
    expect(entry).toMatchObject({ actor: CLIENT(), door: 'v3', operation: 'returnFlag', object: { kind: 'RETURN', id: ret.id }, action: 'UPDATE', parent: null });
    expect(change(entry, 'status')).toEqual({ field: 'status', before: 'open', after: 'flagged' });
  });

  it('REST v2.2: an order created, with its lines under it, named by the id the server gave the request, in its read (no statement of its own)', async () => {
    const statements: string[] = [];
    const stop = server.db.onStatement(({ sql }) => statements.push(sql));
    const response = await call(server, 'POST', `/v2.2/stores/${store.storeId}/orders`, {
      secret: store.secret,
      body: { orderId: 'audit-rest-1', createdAt: '2026-11-20T10:00:00Z', lineItems: [{ id: 'l1', productId: 'p1', title: 'Mug', quantity: 2, price: 9.5 }] },
    });
    stop();
    expect(response.status).toBe(200);
    const written = statements.filter((s) => !/^\s*(BEGIN|COMMIT)|^-- Implicit/.test(s));
    // The order's read names the actor to the triggers of the writes after it: no statement of its own does.
    expect(written.filter((sql) => /^\s*SELECT set_config/.test(sql)), written.join('\n---\n')).toEqual([]);
    expect(written.find((sql) => sql.includes('FROM "CoverageProduct"'))).toContain(`set_config('audit.context'`);
    const requestId = response.headers.get('x-request-id')!;
    const orderId = (response.body as { orderId: string }).orderId;
    const entries = await byRequest(requestId);
    expect(entries.find((e) => e.object.kind === 'ORDER')).toMatchObject({ actor: CLIENT(), door: 'rest', operation: 'orderCreate', action: 'INSERT', object: { id: orderId } });
    const line = entries.find((e) => e.object.kind === 'ORDER_LINE_ITEM');
    expect(line).toMatchObject({ parent: { kind: 'ORDER', id: orderId }, operation: 'orderCreate' });
    expect(change(line, 'title')).toEqual({ field: 'title', before: null, after: 'Mug' });
  });

  it('REST v2.2: a customer upsert, also when it is one statement of its own (no transaction to name the actor in)', async () => {
    const path = `/v2.2/stores/${store.storeId}/customers`;
    const put = (firstName: string, requestId: string) =>
      call(server, 'PUT', path, { secret: store.secret, body: { email: 'lin@example.com', firstName, customFields: { tier: 'gold' } }, headers: { 'x-request-id': requestId } });
    expect((await put('Lin', 'audit-upsert-1')).status).toBe(201);
    expect((await put('Lin', 'audit-upsert-2')).status).toBe(200);
    const statements: string[] = [];
    const stop = server.db.onStatement(({ sql }) => statements.push(sql));
    expect((await put('Linh', 'audit-upsert-3')).status).toBe(200);
    stop();
    expect(statements.filter((s) => !/^\s*(BEGIN|COMMIT)|^-- Implicit/.test(s))).toHaveLength(1);
    const [entry] = await byRequest('audit-upsert-3');
    expect(entry).toMatchObject({ actor: CLIENT(), door: 'rest', operation: 'customerUpsert', object: { kind: 'CUSTOMER' }, action: 'UPDATE' });
    expect([...entry.changes].sort((a, b) => a.field.localeCompare(b.field))).toEqual([
      { field: 'firstName', before: 'Lin', after: 'Linh' },
      { field: 'name', before: 'Lin', after: 'Linh' },
    ]);
    expect(await byRequest('audit-upsert-2')).toEqual([]);
  });

  it('/v3/rest: the route SOFA made of the mutation', async () => {
    const ret = await insertTestReturn(server.db, store.storeId, await createTestOrder(server.db, store.storeId));
    const response = await call(server, 'POST', '/v3/rest/return-reject', { secret: store.secret, body: { id: ret.id }, headers: { 'x-request-id': 'audit-sofa' } });
    expect(response.status, response.text).toBe(200);
    const [entry] = (await byRequest('audit-sofa')).filter((e) => e.object.kind === 'RETURN');
    expect(entry).toMatchObject({ actor: CLIENT(), door: 'sofa', operation: 'returnReject' });
    expect(change(entry, 'status')).toMatchObject({ before: 'open', after: 'rejected' });
  });

  it("the compat door: a note under its return, by the mutation the action runs", async () => {
    const ret = await insertTestReturn(server.db, store.storeId, await createTestOrder(server.db, store.storeId));
    const response = await call(server, 'POST', `/api/v1/warehouse/return/${ret.number}/note`, { secret: store.secret, body: { content: 'Box dented' }, headers: { 'x-request-id': 'audit-compat' } });
    expect(response.text).toBe('true');
    const entries = await byRequest('audit-compat');
    const note = entries.find((e) => e.object.kind === 'RETURN_NOTE');
    expect(note).toMatchObject({ actor: CLIENT(), door: 'compat', operation: 'returnNoteAdd', action: 'INSERT', parent: { kind: 'RETURN', id: ret.id } });
    expect(change(note, 'content')).toMatchObject({ after: 'Box dented' });
  });
});

describe('a refused write', () => {
  it('leaves no entry on any door: a state the action does not apply to, a duplicate, a missing scope', async () => {
    const ret = await insertTestReturn(server.db, store.storeId, await createTestOrder(server.db, store.storeId), { status: 'complete' });
    const readOnly = await addApiClient(server.db, store.storeId, ['returns_read']);
    const before = await rowCounts(server.db);
    const compat = await call(server, 'POST', `/api/v1/warehouse/return/${ret.number}/flag`, { secret: store.secret });
    expect(compat.body).toMatchObject({ errors: { code: 'UNPROCESSABLE_RETURN' } });
    const duplicate = await call(server, 'POST', `/v2.2/stores/${store.storeId}/orders`, {
      secret: store.secret,
      body: { orderId: 'audit-rest-1', createdAt: '2026-11-20T10:00:00Z', lineItems: [{ id: 'l1', productId: 'p1', title: 'Mug', quantity: 1 }] },
    });
    expect(duplicate.status).toBe(409);
    const forbidden = await v3(readOnly.secret, `mutation($id: ID!) { returnReset(id: $id) { id } }`, { id: ret.id });
    expect(forbidden.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const conflict = await v3(store.secret, `mutation($id: ID!) { returnProcess(id: $id) { id } }`, { id: ret.id });
    expect(conflict.errors).toHaveLength(1);
    expect(await rowCounts(server.db)).toEqual(before);
  });
});

describe('auditEntries', () => {
  it('needs audit_read', async () => {
    const reader = await addApiClient(server.db, store.storeId, ['returns_read', 'orders_read']);
    const answer = await v3(reader.secret, `{ auditEntries(first: 1) { nodes { id } } }`);
    expect(answer.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });

  it("answers only the caller's store", async () => {
    await createTestOrder(server.db, other.storeId);
    const mine = await auditPage('first: 100');
    expect(mine.nodes.length).toBeGreaterThan(0);
    const theirs = await auditPage('first: 100', other.secret);
    const ids = new Set(mine.nodes.map((e) => e.id));
    expect(theirs.nodes.some((e) => ids.has(e.id))).toBe(false);
    expect(theirs.nodes.some((e) => e.object.kind === 'ORDER')).toBe(true);
  });

  it("filters by object with its parts, by actor, by operation and by time", async () => {
    const response = await call(server, 'POST', `/v2.2/stores/${store.storeId}/orders`, {
      secret: store.secret,
      body: { orderId: 'audit-filter', createdAt: '2026-11-20T10:00:00Z', lineItems: [1, 2].map((n) => ({ id: `l${n}`, productId: `p${n}`, title: `Item ${n}`, quantity: 1 })) },
    });
    const orderId = (response.body as { orderId: string }).orderId;
    const history = await auditPage(`first: 100, object: { kind: ORDER, id: "${orderId}" }`);
    expect(history.nodes.map((e) => e.object.kind).sort()).toEqual(['FULFILLMENT_GROUP', 'ORDER', 'ORDER_LINE_ITEM', 'ORDER_LINE_ITEM']);

    const byClient = await auditPage(`first: 100, actor: { kind: API_CLIENT, id: "${store.clientId}" }`);
    expect(byClient.nodes.length).toBeGreaterThan(0);
    expect(byClient.nodes.every((e) => e.actor.id === store.clientId)).toBe(true);
    const system = await auditPage(`first: 100, actor: { kind: SYSTEM }`);
    expect(system.nodes.every((e) => e.actor.kind === 'SYSTEM')).toBe(true);
    expect(system.nodes.length).toBeGreaterThan(0);

    const flags = await auditPage(`first: 100, operation: "returnFlag"`);
    expect(flags.nodes.length).toBeGreaterThan(0);
    expect(flags.nodes.every((e) => e.operation === 'returnFlag')).toBe(true);

    const newest = history.nodes[0];
    const at = newest.occurredAt;
    expect((await auditPage(`first: 100, occurredAtMin: "${at}", object: { kind: ORDER, id: "${orderId}" }`)).nodes).toHaveLength(4);
    expect((await auditPage(`first: 100, occurredAtMax: "${at}", object: { kind: ORDER, id: "${orderId}" }`)).nodes).toHaveLength(0);
  });

  it('pages newest first without repeating or skipping an entry while changes are recorded', async () => {
    const all = await auditPage('first: 100');
    expect(all.pageInfo.hasNextPage).toBe(false);
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const page: Page = await auditPage(`first: 3${after ? `, after: "${after}"` : ''}`);
      seen.push(...page.nodes.map((e) => e.id));
      // A write between two pages adds entries at the top, never inside the walk.
      await createTestOrder(server.db, store.storeId);
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after);
    expect(seen).toEqual(all.nodes.map((e) => e.id));
    expect(all.nodes.map((e) => Number(e.id))).toEqual([...all.nodes.map((e) => Number(e.id))].sort((a, b) => b - a));
  });

  it("shows a customer's, an order's or a return's personal values only to a caller that may read that record", async () => {
    const audited = await createTestStore(server.db, { name: 'Personal data store' });
    const upsert = await call(server, 'PUT', `/v2.2/stores/${audited.storeId}/customers`, {
      secret: audited.secret,
      body: { email: 'private@example.com', firstName: 'Priya' },
    });
    expect(upsert.status).toBe(201);
    const order = await createTestOrder(server.db, audited.storeId, { customerEmail: 'private@example.com' });
    const ret = await insertTestReturn(server.db, audited.storeId, order);
    const noted = await v3(audited.secret, `mutation($id: ID!) { returnNoteAdd(id: $id, content: "Priya says the box was wet") { id } }`, { id: ret.id });
    expect(noted.errors).toBeUndefined();
    await v3(audited.secret, `mutation($id: ID!) { returnFlag(id: $id) { id } }`, { id: ret.id });

    const FIELDS = 'object { kind } parent { kind } changes { field before after hidden }';
    type Seen = { object: { kind: string }; parent: { kind: string } | null; changes: { field: string; before: unknown; after: unknown; hidden: boolean }[] };
    const entries = async (scopes: string[]) => {
      const reader = await addApiClient(server.db, audited.storeId, scopes);
      const answer = await v3(reader.secret, `{ auditEntries(first: 100) { nodes { ${FIELDS} } } }`);
      expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
      return (answer.data!.auditEntries as { nodes: Seen[] }).nodes;
    };
    const value = (seen: Seen[], kind: string, field: string) => {
      const found = seen.find((e) => e.object.kind === kind && e.changes.some((c) => c.field === field && c.after !== null));
      const column = found?.changes.find((c) => c.field === field);
      return column && { after: column.after, hidden: column.hidden };
    };
    const HIDDEN = { after: '[hidden]', hidden: true };

    const auditOnly = await entries(['audit_read']);
    expect(value(auditOnly, 'CUSTOMER', 'email')).toEqual(HIDDEN);
    expect(value(auditOnly, 'CUSTOMER', 'firstName')).toEqual(HIDDEN);
    expect(value(auditOnly, 'ORDER', 'customerEmail')).toEqual(HIDDEN);
    expect(value(auditOnly, 'RETURN_NOTE', 'content')).toEqual(HIDDEN);
    expect(JSON.stringify(auditOnly)).not.toMatch(/private@example\.com|Priya/);
    // What is not personal stays readable: the order's number, the return's status.
    expect(value(auditOnly, 'ORDER', 'name')).toEqual({ after: order.name, hidden: false });
    expect(auditOnly.find((e) => e.object.kind === 'RETURN' && e.changes.some((c) => c.field === 'status' && c.after === 'flagged'))).toBeDefined();

    const withCustomers = await entries(['audit_read', 'customers_read']);
    expect(value(withCustomers, 'CUSTOMER', 'email')).toEqual({ after: 'private@example.com', hidden: false });
    expect(value(withCustomers, 'ORDER', 'customerEmail')).toEqual(HIDDEN);
    expect(value(withCustomers, 'RETURN_NOTE', 'content')).toEqual(HIDDEN);

    const everything = await entries(['audit_read', 'customers_read', 'orders_read', 'returns_read']);
    expect(value(everything, 'ORDER', 'customerEmail')).toEqual({ after: 'private@example.com', hidden: false });
    expect(value(everything, 'RETURN_NOTE', 'content')).toEqual({ after: 'Priya says the box was wet', hidden: false });
  });

  it('refuses an unknown object kind and a malformed cursor as bad input', async () => {
    const kind = await v3(store.secret, `{ auditEntries(first: 1, object: { kind: ORDERS, id: "x" }) { nodes { id } } }`);
    expect(kind.errors?.[0].message).toMatch(/ORDERS/);
    const cursor = await v3(store.secret, `{ auditEntries(first: 1, after: "nope") { nodes { id } } }`);
    expect(cursor.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });
});
