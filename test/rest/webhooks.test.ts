// The reference document's Webhooks group: return webhooks of kind redo or loop, created
// or updated by externalId, read, changed, deleted and replayed; a backfill queues every
// existing return for the new webhook only. Subscriptions to our other topics (v3) are not
// shown here, since the document cannot describe them. Every answer is checked against the
// document by call(); refused requests write nothing. Payloads received by a subscriber are
// tested end to end in referenceClientReturns.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowCounts } from '../support/counts.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { addApiClient, call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { emit, subscribe } from '../webhooks/support.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;

const PUBLIC_URL = 'https://93.184.215.14/hooks';

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other store' });
});
afterAll(async () => server?.close());

const req = (method: string, path: string, body?: unknown, secret = store.secret) => call(server, method, `/v2.2${path}`, { secret, body });
const webhooksPath = (s: TestStore) => `/stores/${s.storeId}/webhooks`;

interface WebhookRead {
  id: string;
  callback: { url: string; auth: unknown };
  topic: string;
  kind: string;
  externalId: string | null;
}

async function createWebhook(s: TestStore, webhook: Record<string, unknown>) {
  const res = await req('POST', webhooksPath(s), { webhook: { callback: { url: PUBLIC_URL, auth: null }, topic: 'return', ...webhook } }, s.secret);
  return { res, webhook: (res.body as { webhook?: WebhookRead }).webhook };
}

const issuePaths = (body: unknown) => ((body as { errors?: { path: string }[] }).errors ?? []).map((e) => e.path).sort();

describe('POST /stores/{storeId}/webhooks', () => {
  it('creates a redo webhook by default, keeps the token to itself, and updates by externalId', async () => {
    const s = await createTestStore(server.db);
    const first = await createWebhook(s, { callback: { url: PUBLIC_URL, auth: { bearer: { token: 'tok_first' } } }, externalId: 'erp-1' });
    expect(first.res.status).toBe(201);
    expect(first.webhook).toMatchObject({ callback: { url: PUBLIC_URL, auth: { bearer: {} } }, topic: 'return', kind: 'redo', externalId: 'erp-1' });
    expect(first.res.text).not.toContain('tok_first');
    const stored = await server.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: first.webhook!.id } });
    expect(stored).toMatchObject({ secret: 'tok_first', payload: 'REDO', topics: ['return.created', 'return.updated'] });

    const again = await createWebhook(s, { callback: { url: `${PUBLIC_URL}/v2`, auth: null }, kind: 'loop', externalId: 'erp-1' });
    expect(again.res.status).toBe(200);
    expect(again.webhook).toMatchObject({ id: first.webhook!.id, callback: { url: `${PUBLIC_URL}/v2`, auth: null }, kind: 'loop' });
    expect(await server.db.prisma.webhookSubscription.count({ where: { storeId: s.storeId } })).toBe(1);

    const unkeyed = await createWebhook(s, { externalId: null });
    expect(unkeyed.res.status).toBe(201);
    expect(unkeyed.webhook!.externalId).toBeNull();
  });

  it.each([
    ['no webhook', {}, ['webhook']],
    ['a wrong topic and kind', { webhook: { callback: { url: PUBLIC_URL, auth: null }, topic: 'order', kind: 'shopify' } }, ['webhook.kind', 'webhook.topic']],
    ['a callback without auth', { webhook: { callback: { url: PUBLIC_URL }, topic: 'return' } }, ['webhook.callback.auth']],
    ['an unknown property', { webhook: { callback: { url: PUBLIC_URL, auth: null }, topic: 'return', colour: 'red' } }, ['webhook.colour']],
    ['a private address', { webhook: { callback: { url: 'https://10.0.0.1/', auth: null }, topic: 'return' } }, ['webhook.callback.url']],
    ['plain http', { webhook: { callback: { url: 'http://93.184.215.14/', auth: null }, topic: 'return' } }, ['webhook.callback.url']],
    ['a token with spaces', { webhook: { callback: { url: PUBLIC_URL, auth: { bearer: { token: 'a b' } } }, topic: 'return' } }, ['webhook.callback.auth.bearer.token']],
    ['an empty externalId', { webhook: { callback: { url: PUBLIC_URL, auth: null }, topic: 'return', externalId: '' } }, ['webhook.externalId']],
  ])('refuses %s with 400 naming the field, and writes nothing', async (_name, body, paths) => {
    const before = await rowCounts(server.db);
    const res = await req('POST', webhooksPath(store), body);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(issuePaths(res.body)).toEqual(paths);
    expect(await rowCounts(server.db)).toEqual(before);
  });

  it('backfills every existing return of the store to the new webhook only', async () => {
    const s = await createTestStore(server.db);
    const order = await createTestOrder(server.db, s.storeId, { lines: [{ quantity: 3 }] });
    const returns = [await insertTestReturn(server.db, s.storeId, order), await insertTestReturn(server.db, s.storeId, order, { status: 'complete' })];
    const bystander = await subscribe(server, s.secret, { url: PUBLIC_URL, topics: ['return.created', 'return.updated'] });
    const { webhook } = await createWebhook(s, { kind: 'loop', backfill: true });
    const deliveries = await server.db.prisma.webhookDelivery.findMany({ where: { subscription: { storeId: s.storeId } }, include: { event: true } });
    expect(deliveries.map((d) => [d.subscriptionId, d.event.topic, d.subjectId])).toEqual(returns.map((r) => [webhook!.id, 'return.backfill', r.id]));
    expect(deliveries.some((d) => d.subscriptionId === bystander.subscription!.id)).toBe(false);
  });
});

describe('GET /stores/{storeId}/webhooks', () => {
  it('lists the return webhooks, newest first, and not the v3 subscriptions to other topics', async () => {
    const s = await createTestStore(server.db);
    const native = await subscribe(server, s.secret, { url: PUBLIC_URL, topics: ['order.created'] });
    const a = (await createWebhook(s, { kind: 'redo' })).webhook!;
    const b = (await createWebhook(s, { kind: 'loop' })).webhook!;
    const res = await req('GET', webhooksPath(s), undefined, s.secret);
    expect(res.status).toBe(200);
    expect((res.body as { webhooks: WebhookRead[] }).webhooks.map((w) => w.id)).toEqual([b.id, a.id]);
    expect(res.text).not.toContain(native.subscription!.id);
  });
});

describe('/webhooks/{webhookId}', () => {
  it('reads, changes the callback and externalId (204), and deletes (204, then 404)', async () => {
    const { webhook } = await createWebhook(store, { externalId: 'crud-1' });
    const path = `/webhooks/${webhook!.id}`;
    const read = await req('GET', path);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ webhook: expect.objectContaining({ id: webhook!.id, externalId: 'crud-1' }) });

    const put = await req('PUT', path, { webhook: { callback: { url: `${PUBLIC_URL}/new`, auth: { bearer: { token: 'tok_new' } } }, externalId: 'crud-2' } });
    expect(put.status).toBe(204);
    expect(put.text).toBe('');
    expect(await server.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: webhook!.id } })).toMatchObject({
      url: `${PUBLIC_URL}/new`,
      secret: 'tok_new',
      externalId: 'crud-2',
    });

    const deleted = await req('DELETE', path);
    expect(deleted.status).toBe(204);
    expect((await req('GET', path)).status).toBe(404);
    expect((await req('DELETE', path)).status).toBe(404);
  });

  it('refuses a bad update, and an externalId another webhook holds (409), changing nothing', async () => {
    const held = (await createWebhook(store, { externalId: 'held-1' })).webhook!;
    const { webhook } = await createWebhook(store, { externalId: 'held-2' });
    const path = `/webhooks/${webhook!.id}`;
    const before = await rowCounts(server.db);
    const conflict = await req('PUT', path, { webhook: { callback: { url: PUBLIC_URL, auth: null }, externalId: 'held-1' } });
    expect(conflict.status).toBe(409);
    expect(issuePaths(conflict.body)).toEqual(['webhook.externalId']);
    const bad = await req('PUT', path, { webhook: { callback: { url: 'https://[::1]/', auth: null } } });
    expect(bad.status).toBe(400);
    expect(issuePaths(bad.body)).toEqual(['webhook.callback.url']);
    expect((await req('PUT', path, { callback: { url: PUBLIC_URL, auth: null } })).status).toBe(400);
    expect(await rowCounts(server.db)).toEqual(before);
    expect(await server.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: webhook!.id } })).toMatchObject({ externalId: 'held-2', url: PUBLIC_URL });
    expect(held.externalId).toBe('held-1');
  });

  it("answers 404 for another store's webhook and for a v3 subscription to other topics, on every operation", async () => {
    const foreign = (await createWebhook(other, {})).webhook!;
    const native = (await subscribe(server, store.secret, { url: PUBLIC_URL, topics: ['order.created'] })).subscription!;
    for (const id of [foreign.id, native.id, 'whk_unknown']) {
      expect((await req('GET', `/webhooks/${id}`)).status).toBe(404);
      expect((await req('PUT', `/webhooks/${id}`, { webhook: { callback: { url: PUBLIC_URL, auth: null } } })).status).toBe(404);
      expect((await req('POST', `/webhooks/${id}/replay`, { start: '2020-01-01T00:00:00Z' })).status).toBe(404);
      expect((await req('DELETE', `/webhooks/${id}`)).status).toBe(404);
    }
    expect(await server.db.prisma.webhookSubscription.count({ where: { id: { in: [foreign.id, native.id] } } })).toBe(2);
  });

  it('needs webhooks_write to write and webhooks_read to read', async () => {
    const reader = await addApiClient(server.db, store.storeId, ['webhooks_read']);
    const { webhook } = await createWebhook(store, {});
    const body = { webhook: { callback: { url: PUBLIC_URL, auth: null }, topic: 'return' } };
    expect((await req('POST', webhooksPath(store), body, reader.secret)).status).toBe(403);
    expect((await req('DELETE', `/webhooks/${webhook!.id}`, undefined, reader.secret)).status).toBe(403);
    expect((await req('GET', `/webhooks/${webhook!.id}`, undefined, reader.secret)).status).toBe(200);
    expect((await req('POST', webhooksPath(other), body)).status).toBe(403);
  });
});

describe('POST /webhooks/{webhookId}/replay', () => {
  it('queues again, after what is pending, every event of its topics since start (202)', async () => {
    const s = await createTestStore(server.db);
    const { webhook } = await createWebhook(s, {});
    const old = await emit(server.db, s.storeId, 'return.created', 'ret_old');
    await server.db.prisma.event.update({ where: { id: old }, data: { createdAt: new Date('2020-01-01T00:00:00Z') } });
    const recent = await emit(server.db, s.storeId, 'return.updated', 'ret_recent');
    await emit(server.db, s.storeId, 'order.created', 'ord_other');
    const res = await req('POST', `/webhooks/${webhook!.id}/replay`, { start: '2021-01-01T00:00:00Z' }, s.secret);
    expect(res.status).toBe(202);
    const deliveries = await server.db.prisma.webhookDelivery.findMany({ where: { subscriptionId: webhook!.id }, orderBy: { sequence: 'asc' } });
    expect(deliveries.map((d) => d.eventId)).toEqual([old, recent, recent]);
  });

  it('refuses a missing or malformed start with 400 naming it, and queues nothing', async () => {
    const { webhook } = await createWebhook(store, {});
    const before = await rowCounts(server.db);
    for (const body of [{}, { start: 'yesterday' }, { start: 5 }]) {
      const res = await req('POST', `/webhooks/${webhook!.id}/replay`, body);
      expect(res.status).toBe(400);
      expect(issuePaths(res.body)).toEqual(['start']);
    }
    expect(await rowCounts(server.db)).toEqual(before);
  });
});
