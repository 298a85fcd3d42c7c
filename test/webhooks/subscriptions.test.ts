// Webhook subscriptions through v3: creation (the secret is stored and never returned),
// validation, the address guard at subscription time for every class of refused address,
// listing, updating, deletion, the REST deliveries route, scopes and tenant isolation.
// The REST door's own webhooks (the reference document's return webhooks) are tested in
// test/rest/webhooks.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addApiClient, call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { expectValidRestResponse } from '../support/openapi.ts';
import { rowCounts } from '../support/counts.ts';
import { subscribe } from './support.ts';

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

const create = (s: TestStore, input: Record<string, unknown>) => subscribe(server, s.secret, input);
const deliveriesPath = (s: TestStore, id: string) => `/v2.2/stores/${s.storeId}/webhooks/${id}/deliveries`;

describe('createWebhookSubscription', () => {
  it('creates a subscription and answers it without the secret', async () => {
    const res = await create(store, { url: PUBLIC_URL, secret: 'sk_subscriber_secret', topics: ['return.created', 'return.updated', 'return.created'] });
    expect(res.subscription).toMatchObject({ url: PUBLIC_URL, topics: ['return.created', 'return.updated'], enabled: true, hasSecret: true, payload: 'NATIVE' });
    expect(JSON.stringify(res)).not.toContain('sk_subscriber_secret');
    const id = res.subscription!.id;
    expect(id).toMatch(/^whk_/);
    const stored = await server.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id } });
    expect(stored).toMatchObject({ storeId: store.storeId, secret: 'sk_subscriber_secret' });
  });

  it('accepts a subscription without a secret', async () => {
    const res = await create(store, { url: PUBLIC_URL, topics: ['order.created'] });
    expect(res.subscription).toMatchObject({ hasSecret: false });
  });

  it('reports every bad field at once: scheme, topics and secret, and writes nothing', async () => {
    const before = await rowCounts(server.db);
    const res = await create(store, { url: 'http://93.184.215.14/', topics: ['order.created', 'order.shipped'], secret: 'has a space' });
    expect(res.code).toBe('BAD_USER_INPUT');
    expect(res.issues).toEqual([
      { path: 'url', message: 'must use https' },
      { path: 'topics.1', message: expect.stringContaining('unknown topic "order.shipped"') },
      { path: 'secret', message: expect.stringContaining('visible ASCII') },
    ]);
    const empty = await create(store, { url: PUBLIC_URL, topics: [] });
    expect(empty.issues).toEqual([{ path: 'topics', message: expect.stringContaining('at least one topic') }]);
    expect(await rowCounts(server.db)).toEqual(before);
  });

  it.each([
    ['https://127.0.0.1/', '127.0.0.1, a loopback address'],
    ['https://127.8.9.10:8443/', '127.8.9.10, a loopback address'],
    ['https://[::1]/', '::1, a loopback address'],
    ['https://localhost/', '127.0.0.1, a loopback address'],
    ['https://10.1.2.3/', '10.1.2.3, a private address'],
    ['https://172.20.0.5/', '172.20.0.5, a private address'],
    ['https://192.168.0.1/', '192.168.0.1, a private address'],
    ['https://[fd00::5]/', 'fd00::5, a private address'],
    ['https://169.254.10.20/', '169.254.10.20, a link-local address'],
    ['https://[fe80::1]/', 'fe80::1, a link-local address'],
    ['https://224.0.0.251/', '224.0.0.251, a multicast address'],
    ['https://[ff02::1]/', 'ff02::1, a multicast address'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254, a cloud metadata address'],
    ['https://[fd00:ec2::254]/', 'fd00:ec2::254, a cloud metadata address'],
    ['https://metadata.google.internal/', 'metadata.google.internal is a cloud metadata service'],
    ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1, a loopback address'],
    ['https://[::ffff:10.0.0.1]/', '::ffff:a00:1, a private address'],
    ['https://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe, a cloud metadata address'],
    ['https://[64:ff9b::c0a8:1]/', '64:ff9b::c0a8:1, a private address'],
    ['https://0.0.0.0/', '0.0.0.0, an unspecified address'],
  ])('refuses %s at subscription time', async (url, reason) => {
    const before = await rowCounts(server.db);
    const res = await create(store, { url, topics: ['order.created'] });
    expect(res.issues).toEqual([{ path: 'url', message: expect.stringContaining(reason) }]);
    expect(await rowCounts(server.db)).toEqual(before);
  });

  it('accepts plain http to loopback only when the service allows loopback', async () => {
    expect((await create(store, { url: 'http://127.0.0.1:9/hook', topics: ['order.created'] })).code).toBe('BAD_USER_INPUT');
    const allowing = await startTestServer({ webhooksAllowLoopback: true }, {}, { db: server.db });
    try {
      expect((await subscribe(allowing, store.secret, { url: 'http://127.0.0.1:9/hook', topics: ['order.created'] })).subscription).toBeDefined();
      expect((await subscribe(allowing, store.secret, { url: 'http://10.0.0.1/hook', topics: ['order.created'] })).code).toBe('BAD_USER_INPUT');
    } finally {
      await allowing.close();
    }
  });
});

describe('the REST deliveries route', () => {
  it('answers the deliveries of any subscription of the store, then 404 once it is deleted', async () => {
    const id = (await create(store, { url: PUBLIC_URL, topics: ['order.created'] })).subscription!.id;
    const before = await call(server, 'GET', deliveriesPath(store, id), { secret: store.secret });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ deliveries: [] });
    expectValidRestResponse('GET', deliveriesPath(store, id), before);

    await graphql(server, store.secret, 'mutation($id: ID!) { deleteWebhookSubscription(id: $id) }', { id });
    expect(await server.db.prisma.webhookSubscription.count({ where: { id } })).toBe(0);
    const gone = await call(server, 'GET', deliveriesPath(store, id), { secret: store.secret });
    expect(gone.status).toBe(404);
    expectValidRestResponse('GET', deliveriesPath(store, id), gone);
  });

  it('refuses a bad deliveries filter with 400 naming the parameter', async () => {
    const id = (await create(store, { url: PUBLIC_URL, topics: ['order.created'] })).subscription!.id;
    const res = await call(server, 'GET', `${deliveriesPath(store, id)}?status=LOST&page-size=0`, { secret: store.secret });
    expect(res.status).toBe(400);
    expect((res.body as { errors: { path: string }[] }).errors.map((e) => e.path).sort()).toEqual(['page-size', 'status']);
  });
});

describe('tenant isolation and scopes', () => {
  it("hides another store's subscription everywhere", async () => {
    const id = (await create(other, { url: PUBLIC_URL, topics: ['order.created'] })).subscription!.id;
    expect((await call(server, 'GET', deliveriesPath(store, id), { secret: store.secret })).status).toBe(404);
    expect((await call(server, 'GET', deliveriesPath(other, id), { secret: store.secret })).status).toBe(403);
    const deleted = await graphql(server, store.secret, 'mutation($id: ID!) { deleteWebhookSubscription(id: $id) }', { id });
    expect(deleted.errors?.[0].extensions?.code).toBe('NOT_FOUND');

    const v3 = await graphql(server, store.secret, 'query($id: ID!) { webhookSubscription(id: $id) { id } node(id: $id) { id } }', { id });
    expect(v3.errors).toBeUndefined();
    expect(v3.data).toEqual({ webhookSubscription: null, node: null });
    expect(await server.db.prisma.webhookSubscription.count({ where: { id } })).toBe(1);
  });

  it('needs webhooks_write to write and webhooks_read to read', async () => {
    const reader = await addApiClient(server.db, store.storeId, ['webhooks_read']);
    const writer = await addApiClient(server.db, store.storeId, ['webhooks_write']);
    const none = await addApiClient(server.db, store.storeId, ['orders_read']);
    const input = { url: PUBLIC_URL, topics: ['order.created'] };
    expect((await subscribe(server, reader.secret, input)).code).toBe('FORBIDDEN');
    const id = (await subscribe(server, writer.secret, input)).subscription!.id;
    expect((await call(server, 'GET', deliveriesPath(store, id), { secret: writer.secret })).status).toBe(403);
    expect((await call(server, 'GET', deliveriesPath(store, id), { secret: reader.secret })).status).toBe(200);

    const forbidden = await graphql(server, none.secret, '{ webhookSubscriptions(first: 1) { nodes { id } } }');
    expect(forbidden.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const node = await graphql(server, none.secret, 'query($id: ID!) { node(id: $id) { ... on WebhookSubscription { url } } }', { id });
    expect(node.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const mutation = await graphql(server, reader.secret, 'mutation($id: ID!) { deleteWebhookSubscription(id: $id) }', { id });
    expect(mutation.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});

describe('v3', () => {
  it('never exposes the secret: no field of the schema carries it', async () => {
    const res = await graphql(server, store.secret, '{ __type(name: "WebhookSubscription") { fields { name } } }');
    const fields = (res.data as { __type: { fields: { name: string }[] } }).__type.fields.map((f) => f.name);
    expect(fields).toEqual(expect.arrayContaining(['id', 'url', 'topics', 'enabled', 'hasSecret', 'deliveries']));
    expect(fields).not.toContain('secret');
  });

  it('creates, lists, updates and deletes subscriptions with the same rules as REST', async () => {
    const s = await createTestStore(server.db);
    const created = await graphql(
      server,
      s.secret,
      `mutation($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id url topics enabled hasSecret } }`,
      { input: { url: PUBLIC_URL, topics: ['inventory_level.updated'], secret: 'first-secret' } },
    );
    expect(created.errors).toBeUndefined();
    const subscription = (created.data as { createWebhookSubscription: { id: string } }).createWebhookSubscription;
    expect(subscription).toMatchObject({ url: PUBLIC_URL, topics: ['inventory_level.updated'], enabled: true, hasSecret: true });

    const refused = await graphql(server, s.secret, `mutation { createWebhookSubscription(input: {url: "https://10.0.0.1/", topics: ["order.created"]}) { id } }`);
    expect(refused.errors?.[0]).toMatchObject({
      message: expect.stringContaining('10.0.0.1, a private address'),
      extensions: { code: 'BAD_USER_INPUT', issues: [{ path: 'url' }] },
    });

    const updated = await graphql(
      server,
      s.secret,
      `mutation($id: ID!) { updateWebhookSubscription(id: $id, input: {topics: ["inbound_shipment.updated", "order.created"], secret: null, enabled: false}) {
         topics enabled hasSecret } }`,
      { id: subscription.id },
    );
    expect(updated.data).toEqual({ updateWebhookSubscription: { topics: ['inbound_shipment.updated', 'order.created'], enabled: false, hasSecret: false } });
    const badUpdate = await graphql(server, s.secret, `mutation($id: ID!) { updateWebhookSubscription(id: $id, input: {url: "https://[::1]/"}) { url } }`, {
      id: subscription.id,
    });
    expect(badUpdate.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(await server.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: subscription.id } })).toMatchObject({ url: PUBLIC_URL, secret: null });

    const listed = await graphql(
      server,
      s.secret,
      `{ webhookTopics all: webhookSubscriptions(first: 10) { nodes { id } } disabled: webhookSubscriptions(first: 10, enabled: false, topic: "order.created") { nodes { id } } none: webhookSubscriptions(first: 10, topic: "return.created") { nodes { id } } }`,
    );
    expect(listed.data).toEqual({
      webhookTopics: [
        'return.created',
        'return.updated',
        'order.created',
        'order.updated',
        'order.deleted',
        'fulfillment.created',
        'fulfillment.updated',
        'customer.created',
        'customer.updated',
        'customer.redacted',
        'inventory_level.updated',
        'inbound_shipment.updated',
        'return_tag.updated',
        'return_label.created',
        'return_label.updated',
        'storefront_event.created',
        'custom_event.created',
      ],
      all: { nodes: [{ id: subscription.id }] },
      disabled: { nodes: [{ id: subscription.id }] },
      none: { nodes: [] },
    });

    const deleted = await graphql(server, s.secret, 'mutation($id: ID!) { deleteWebhookSubscription(id: $id) }', { id: subscription.id });
    expect(deleted.data).toEqual({ deleteWebhookSubscription: subscription.id });
    const missing = await graphql(server, s.secret, 'mutation($id: ID!) { deleteWebhookSubscription(id: $id) }', { id: subscription.id });
    expect(missing.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });
});
