// Storefront (web pixel) events: 204 and stored once per eventId, linked to the customer
// by e-mail or by the client id of an earlier event, refused with 400 (application/json,
// as the reference documents) when invalid, readable in v3, announced on a webhook topic,
// and kept per store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addApiClient, call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
let customerId: string;

const path = (storeId: string) => `/v2.2/stores/${storeId}/storefront/events`;

function pixel(eventId: string, extra: Record<string, unknown> = {}) {
  return { eventId, eventName: 'page_viewed', timestamp: '2026-11-20T10:00:00Z', source: 'AIMERCE', urlWithParams: 'https://shop.example/?a=1', ...extra };
}

const EVENTS = `query($customerId: ID) {
  storefrontEvents(first: 50, customerId: $customerId) { nodes { eventId eventName anonymousId customer { id } payload } }
}`;

type EventNode = { eventId: string; eventName: string; anonymousId: string | null; customer: { id: string } | null; payload: Record<string, unknown> };

async function events(secret: string, customer?: string): Promise<EventNode[]> {
  const res = await graphql(server, secret, EVENTS, { customerId: customer ?? null });
  expect(res.errors).toBeUndefined();
  return (res.data?.storefrontEvents as { nodes: EventNode[] }).nodes;
}

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other' });
  const customer = await call(server, 'PUT', `/v2.2/stores/${store.storeId}/customers`, { secret: store.secret, body: { email: 'ada@example.com' } });
  customerId = (customer.body as { id: string }).id;
});
afterAll(async () => server?.close());

describe('POST storefront/events', () => {
  it('stores an event once per eventId: a resend is a 204 that changes nothing', async () => {
    const first = await call(server, 'POST', path(store.storeId), { secret: store.secret, body: pixel('evt-1', { customerEmail: 'ADA@example.com', anonymousId: 'client-1' }) });
    expect(first.status).toBe(204);
    expect(first.text).toBe('');
    const again = await call(server, 'POST', path(store.storeId), { secret: store.secret, body: pixel('evt-1', { eventName: 'checkout_completed' }) });
    expect(again.status).toBe(204);
    const stored = (await events(store.secret)).filter((e) => e.eventId === 'evt-1');
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ eventName: 'page_viewed', anonymousId: 'client-1', customer: { id: customerId } });
    expect(stored[0].payload.urlWithParams).toBe('https://shop.example/?a=1');
    const announced = await server.db.prisma.event.findMany({ where: { storeId: store.storeId, topic: 'storefront_event.created' } });
    expect(announced.map((e) => (e.data as { eventId: string }).eventId)).toEqual(['evt-1']);
  });

  it('links an event without e-mail to the customer its client id was seen with, and leaves unknown clients unlinked', async () => {
    expect((await call(server, 'POST', path(store.storeId), { secret: store.secret, body: pixel('evt-2', { anonymousId: 'client-1', eventName: 'product_viewed' }) })).status).toBe(204);
    expect((await call(server, 'POST', path(store.storeId), { secret: store.secret, body: pixel('evt-3', { anonymousId: 'client-9' }) })).status).toBe(204);
    const all = await events(store.secret);
    expect(all.find((e) => e.eventId === 'evt-2')?.customer).toEqual({ id: customerId });
    expect(all.find((e) => e.eventId === 'evt-3')?.customer).toBeNull();
    expect((await events(store.secret, customerId)).map((e) => e.eventId).sort()).toEqual(['evt-1', 'evt-2']);
  });

  it('refuses an invalid event with 400 as application/json naming each field, storing nothing', async () => {
    const before = (await events(store.secret)).length;
    const res = await call(server, 'POST', path(store.storeId), {
      secret: store.secret,
      body: { eventName: 'page_exploded', timestamp: 'yesterday', source: 'AIMERCE', customerEmail: 'not-an-email', cart: 'full' },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect((res.body as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(['eventId', 'eventName', 'timestamp', 'customerEmail', 'cart']);
    const notJson = await call(server, 'POST', path(store.storeId), { secret: store.secret, body: '{"eventId":' });
    expect(notJson.status).toBe(400);
    expect(notJson.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await events(store.secret)).toHaveLength(before);
  });

  it('keeps events per store, and refuses other stores and missing scopes', async () => {
    expect((await call(server, 'POST', path(other.storeId), { secret: other.secret, body: pixel('evt-1') })).status).toBe(204);
    expect((await events(other.secret)).map((e) => e.eventId)).toEqual(['evt-1']);
    expect((await events(store.secret)).filter((e) => e.eventId === 'evt-1')[0].eventName).toBe('page_viewed');

    expect((await call(server, 'POST', path(store.storeId), { secret: other.secret, body: pixel('evt-x') })).status).toBe(403);
    const reader = await addApiClient(server.db, store.storeId, ['customers_read']);
    expect((await call(server, 'POST', path(store.storeId), { secret: reader.secret, body: pixel('evt-x') })).status).toBe(403);
    expect((await call(server, 'POST', path(store.storeId), { body: pixel('evt-x') })).status).toBe(401);
    const writer = await addApiClient(server.db, store.storeId, ['storefront_events_write']);
    const read = await graphql(server, writer.secret, EVENTS, {});
    expect(read.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});
