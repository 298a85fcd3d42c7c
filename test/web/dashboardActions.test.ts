// Dashboard pages of issue 13 beyond the browser flows: a webhook's replay, a return's
// tags, an order's fulfillments. Each goes through the same v3 operations as every door
// (the effects are read back through v3 or the database), refusals come back on the page,
// merchant text is escaped, and another store's ids are a 404 that changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowCounts } from '../support/counts.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { emit, subscribe } from '../webhooks/support.ts';
import { signedIn, WebClient } from './helpers.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
let web: WebClient;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other store' });
  web = await signedIn(server, store.storeId);
});
afterAll(async () => server?.close());

describe('webhook replay', () => {
  it('queues every event of the subscription since the given time, and says how many', async () => {
    const id = (await subscribe(server, store.secret, { url: 'https://93.184.215.14/hook', topics: ['order.created'] })).subscription!.id;
    const first = await emit(server.db, store.storeId, 'order.created', 'ord_a');
    await emit(server.db, store.storeId, 'customer.created', 'cus_a');
    const page = await web.get(`/admin/webhooks/${id}`);
    expect(page.text).toContain('<label for="replay-since">');
    const replayed = await web.post(`/admin/webhooks/${id}/replay`, { csrf: WebClient.csrfOf(page.text), since: '2000-01-01T00:00' });
    expect(replayed.status).toBe(303);
    expect((await web.get(replayed.headers.get('location')!)).text).toContain('1 delivery queued.');
    expect(await server.db.prisma.webhookDelivery.count({ where: { subscriptionId: id, eventId: first } })).toBe(2);
  });

  it('refuses a missing time on the page, and another store\'s webhook with 404, queuing nothing', async () => {
    const id = (await subscribe(server, store.secret, { url: 'https://93.184.215.14/hook', topics: ['order.created'] })).subscription!.id;
    const foreign = (await subscribe(server, other.secret, { url: 'https://93.184.215.14/hook', topics: ['order.created'] })).subscription!.id;
    const csrf = WebClient.csrfOf((await web.get(`/admin/webhooks/${id}`)).text);
    const before = await rowCounts(server.db);
    const refused = await web.post(`/admin/webhooks/${id}/replay`, { csrf, since: '' });
    expect(refused.status).toBe(303);
    expect((await web.get(refused.headers.get('location')!)).text).toContain('Replay refused: give the date and time to replay from');
    expect((await web.post(`/admin/webhooks/${foreign}/replay`, { csrf, since: '2000-01-01T00:00' })).status).toBe(404);
    expect((await web.post(`/admin/webhooks/${id}/replay`, { since: '2000-01-01T00:00' })).status).toBe(403);
    expect(await rowCounts(server.db)).toEqual(before);
  });
});

describe('return tags', () => {
  it('defines a new tag, sets the ticked ones, shows them escaped, and v3 reads the same', async () => {
    const order = await createTestOrder(server.db, store.storeId);
    const ret = await insertTestReturn(server.db, store.storeId, order);
    await graphql(server, store.secret, 'mutation { upsertReturnTag(name: "fragile", pillTheme: "DANGER") { name } }');
    const page = await web.get(`/admin/returns/${ret.id}`);
    expect(page.text).toContain('value="fragile"');
    const saved = await web.post(`/admin/returns/${ret.id}/tags`, { csrf: WebClient.csrfOf(page.text), tags: ['fragile'], newTag: '<b>"vip"</b>' });
    expect(saved.status).toBe(303);
    const after = await web.get(`/admin/returns/${ret.id}`);
    expect(after.text).toContain('&#60;b&#62;&#34;vip&#34;&#60;/b&#62;');
    expect(after.text).not.toContain('<b>"vip"</b>');
    const v3 = await graphql(server, store.secret, 'query($id: ID!) { return(id: $id) { tags } }', { id: ret.id });
    expect(v3.data).toEqual({ return: { tags: ['fragile', '<b>"vip"</b>'] } });
    expect(await server.db.prisma.event.count({ where: { subjectId: ret.id, topic: 'return.updated' } })).toBe(1);

    const cleared = await web.post(`/admin/returns/${ret.id}/tags`, { csrf: WebClient.csrfOf(after.text) });
    expect(cleared.status).toBe(303);
    expect((await graphql(server, store.secret, 'query($id: ID!) { return(id: $id) { tags } }', { id: ret.id })).data).toEqual({ return: { tags: [] } });
  });

  it('refuses an undefined tag through v3 naming it, and another store\'s return with 404, changing nothing', async () => {
    const order = await createTestOrder(server.db, store.storeId);
    const ret = await insertTestReturn(server.db, store.storeId, order);
    const refused = await graphql(server, store.secret, 'mutation($id: ID!) { setReturnTags(id: $id, tags: ["ghost"]) { tags } }', { id: ret.id });
    expect(refused.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', issues: [{ path: 'tags.0' }] } });
    const foreignOrder = await createTestOrder(server.db, other.storeId);
    const foreign = await insertTestReturn(server.db, other.storeId, foreignOrder);
    const csrf = WebClient.csrfOf((await web.get(`/admin/returns/${ret.id}`)).text);
    const before = await rowCounts(server.db);
    expect((await web.post(`/admin/returns/${foreign.id}/tags`, { csrf, tags: [] })).status).toBe(404);
    expect(await rowCounts(server.db)).toEqual(before);
  });
});

describe('order fulfillments', () => {
  it('shows each fulfillment with its tracking and history', async () => {
    const created = await call(server, 'POST', `/v2.2/stores/${store.storeId}/orders`, {
      secret: store.secret,
      body: { orderId: 'WEB-F1', createdAt: '2026-07-01T09:00:00Z', lineItems: [{ id: 'L1', productId: 'p-1', title: 'Lantern <i>', quantity: 1, price: 12 }], customer: { email: 'f@example.com' }, totalPrice: 12, currencyCode: 'USD' },
    });
    expect(created.status).toBe(200);
    const orderId = (created.body as { orderId: string }).orderId;
    await call(server, 'POST', `/v2.2/stores/${store.storeId}/orders/WEB-F1/fulfillments`, {
      secret: store.secret,
      body: { fulfillmentId: 'F-WEB', lineItems: [{ id: 'L1', quantity: 1 }], tracking: { carrier: 'UPS', code: '1ZWEB' } },
    });
    await call(server, 'POST', `/v2.2/stores/${store.storeId}/orders/WEB-F1/fulfillments/F-WEB/shipment-status`, {
      secret: store.secret,
      body: { status: 'in_transit', message: 'Left the depot', datetime: '2026-07-02T08:00:00Z' },
    });
    const page = await web.get(`/admin/orders/${orderId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('F-WEB');
    expect(page.text).toContain('1ZWEB');
    expect(page.text).toContain('in_transit Left the depot');
    expect(page.text).toContain('1 × Lantern &#60;i&#62;');
  });
});
