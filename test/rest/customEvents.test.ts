// POST /stores/{storeId}/events and /events/bulk: custom events stored with their
// customer (found by id, else e-mail, else phone number, or created), deduplicated by
// uniqueId, announced on custom_event.created and delivered to a v3 webhook subscription
// of that topic. 202 without a body; refusals are problem details sent as
// application/json (as the document declares) and write nothing. Every answer is checked
// against the reference document by call().
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rowCounts } from '../support/counts.ts';
import { addApiClient, call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { startReceiver, startTestDispatcher, waitFor, type Receiver } from '../webhooks/support.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  server = await startTestServer({ webhooksAllowLoopback: true });
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other store' });
});
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});
afterAll(async () => {
  await server?.close();
});

const send = (body: unknown, s: { storeId: string; secret: string } = store) => call(server, 'POST', `/v2.2/stores/${s.storeId}/events`, { secret: s.secret, body });
const sendBulk = (body: unknown, s: { storeId: string; secret: string } = store) =>
  call(server, 'POST', `/v2.2/stores/${s.storeId}/events/bulk`, { secret: s.secret, body });

const eventsNamed = (eventName: string, storeId = store.storeId) =>
  server.db.prisma.customEvent.findMany({ where: { storeId, eventName }, include: { customer: true }, orderBy: { createdAt: 'asc' } });

async function upsertCustomer(email: string, s: TestStore = store): Promise<string> {
  const res = await call(server, 'PUT', `/v2.2/stores/${s.storeId}/customers`, { secret: s.secret, body: { email } });
  return (res.body as { id: string }).id;
}

describe('POST /events', () => {
  it('stores the documented full example with 202 and no body, creating and enriching the customer', async () => {
    const res = await send({
      eventName: 'Purchase Milestone Reached',
      customer: {
        id: '665f1a2b3c4d5e6f7a8b9c0d',
        email: 'Stewart@example.com',
        phoneNumber: '+11234567890',
        firstName: 'Stewart',
        lastName: 'Thompson',
        location: { street1: '123 Main St', city: 'Seattle', stateCode: 'WA', countryCode: 'US', ianaTimeZoneName: 'America/Los_Angeles', latitude: 47.6062, longitude: -122.3321 },
        customFields: { 'Age at Signup': 25, Birthday: '1976-07-04T12:00:00Z', 'Loyalty Tier': 'Gold', 'Accepts Marketing': true },
      },
      eventTimestamp: '2026-04-02T12:00:00Z',
      value: 299.99,
      valueCurrency: 'usd',
      uniqueId: 'milestone-test-001',
      data: { 'Milestone Type': '100th_purchase', 'Total Spent': 5000, Zero: 0, Empty: '', Nothing: null, '$extra': { 'Most Recent Order IDs': [1, 2, 3], zero: 0, none: null } },
      somethingElse: 'additional properties are allowed',
    });
    expect(res.status, res.text).toBe(202);
    expect(res.text).toBe('');
    const [event] = await eventsNamed('Purchase Milestone Reached');
    expect(event).toMatchObject({ occurredAt: new Date('2026-04-02T12:00:00Z'), valueCurrency: 'USD', uniqueId: 'milestone-test-001' });
    expect(event.value!.toString()).toBe('299.99');
    expect(event.data).toEqual({ 'Milestone Type': '100th_purchase', 'Total Spent': 5000, '$extra': { 'Most Recent Order IDs': [1, 2, 3], zero: 0, none: null } });
    expect(event.customer).toMatchObject({ email: 'stewart@example.com', firstName: 'Stewart', name: 'Stewart Thompson', phoneNumbers: ['+11234567890'] });
    expect(event.customer.location).toMatchObject({ city: 'Seattle', latitude: 47.6062 });
    const fields = await graphql(server, store.secret, 'query { customer(email: "stewart@example.com") { customFields } }');
    expect(fields.data).toEqual({ customer: { customFields: { 'Accepts Marketing': true, 'Age at Signup': 25, Birthday: '1976-07-04T12:00:00.000Z', 'Loyalty Tier': 'Gold' } } });
    const announced = await server.db.prisma.event.findMany({ where: { storeId: store.storeId, subjectId: { in: [event.id, event.customerId] } }, orderBy: { createdAt: 'asc' } });
    expect(announced.map((e) => e.topic)).toEqual(['customer.created', 'custom_event.created']);
    expect(announced[1].data).toMatchObject({ id: event.id, eventName: 'Purchase Milestone Reached', value: 299.99, customer: { id: event.customerId, email: 'stewart@example.com' } });
  });

  it('resolves by id, then e-mail, then phone number; a missing id falls back to them', async () => {
    const byEmail = await upsertCustomer('resolve@example.com');
    const phoneOnly = await call(server, 'POST', `/v2.2/stores/${store.storeId}/customer-subscriptions`, {
      secret: store.secret,
      body: { sms: { phoneNumber: '+15550200000', subscriptions: {} } },
    });
    expect(phoneOnly.status).toBe(200);
    const cases: [Record<string, unknown>, () => Promise<string>][] = [
      [{ id: byEmail, email: 'someone-else@example.com' }, async () => byEmail],
      [{ email: 'RESOLVE@example.com', phoneNumber: '+15550200000' }, async () => byEmail],
      [{ phoneNumber: '+1 555 020 0000' }, async () => (await server.db.prisma.customerPhoneNumber.findFirstOrThrow({ where: { phoneNumber: '+15550200000' } })).customerId],
      [{ id: 'cus_missing', email: 'resolve@example.com' }, async () => byEmail],
    ];
    for (const [index, [customer, expected]] of cases.entries()) {
      expect((await send({ eventName: `Resolve ${index}`, customer })).status).toBe(202);
      const [event] = await eventsNamed(`Resolve ${index}`);
      expect(event.customerId, JSON.stringify(customer)).toBe(await expected());
    }
    // Resolved by id, the e-mail of another customer is not taken over.
    expect((await server.db.prisma.customer.findUniqueOrThrow({ where: { id: byEmail } })).email).toBe('resolve@example.com');
    expect(await server.db.prisma.customer.count({ where: { storeId: store.storeId, email: 'someone-else@example.com' } })).toBe(0);
  });

  it('creates a phone-only customer, and only announces a customer change when the profile changed', async () => {
    expect((await send({ eventName: 'Phone only', customer: { phoneNumber: '+15550300000' } })).status).toBe(202);
    const [first] = await eventsNamed('Phone only');
    expect(first.customer).toMatchObject({ email: null, phoneNumbers: ['+15550300000'] });
    const before = await server.db.prisma.event.count({ where: { subjectId: first.customerId } });
    expect((await send({ eventName: 'Phone only', customer: { phoneNumber: '+15550300000' } })).status).toBe(202);
    expect(await server.db.prisma.event.count({ where: { subjectId: first.customerId } })).toBe(before);
    expect((await send({ eventName: 'Phone only', customer: { phoneNumber: '+15550300000', firstName: 'Pat' } })).status).toBe(202);
    const topics = await server.db.prisma.event.findMany({ where: { subjectId: first.customerId }, orderBy: { createdAt: 'asc' } });
    expect(topics.map((e) => e.topic)).toEqual(['customer.created', 'customer.updated']);
    expect(await eventsNamed('Phone only')).toHaveLength(3);
  });

  it('makes one customer of concurrent events and subscriptions naming the same new phone number or e-mail', async () => {
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) => send({ eventName: 'Race', customer: { phoneNumber: '+15550600000' }, data: { n: i + 1 } })),
      ...Array.from({ length: 6 }, () => send({ eventName: 'Race', customer: { email: 'race@example.com', phoneNumber: '+15550600001' } })),
      call(server, 'POST', `/v2.2/stores/${store.storeId}/customer-subscriptions`, {
        secret: store.secret,
        body: { sms: { phoneNumber: '+15550600000', subscriptions: { marketing: { subscriptionStatus: 'subscribed' } } } },
      }),
      call(server, 'PUT', `/v2.2/stores/${store.storeId}/customers`, { secret: store.secret, body: { email: 'race@example.com' } }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([...Array(12).fill(202), 200, expect.any(Number)]);
    const byPhone = await server.db.prisma.customer.findMany({ where: { storeId: store.storeId, phoneNumbers: { has: '+15550600000' } } });
    expect(byPhone).toHaveLength(1);
    expect(await server.db.prisma.customer.count({ where: { storeId: store.storeId, email: 'race@example.com' } })).toBe(1);
    expect(new Set((await eventsNamed('Race')).map((e) => e.customer.email ?? e.customer.phoneNumbers[0]))).toEqual(new Set(['+15550600000', 'race@example.com']));
  });

  it('drops an event whose uniqueId is already stored, silently (202) and without writing', async () => {
    expect((await send({ eventName: 'Dedup', customer: { email: 'dedup@example.com' }, uniqueId: 'order-1' })).status).toBe(202);
    const before = await rowCounts(server.db);
    expect((await send({ eventName: 'Dedup again', customer: { email: 'new-person@example.com', firstName: 'New' }, uniqueId: 'order-1' })).status).toBe(202);
    expect(await rowCounts(server.db)).toEqual(before);
    // Another store keeps its own keys.
    expect((await send({ eventName: 'Dedup', customer: { email: 'dedup@example.com' }, uniqueId: 'order-1' }, other)).status).toBe(202);
    expect(await eventsNamed('Dedup', other.storeId)).toHaveLength(1);
  });

  it('is the v3 mutation createCustomEvent, readable in customEvents', async () => {
    const created = await graphql(
      server,
      store.secret,
      'mutation($event: JSON!) { createCustomEvent(event: $event) { duplicate event { id eventName value valueCurrency customer { email } } } }',
      { event: { eventName: 'V3 event', customer: { email: 'v3-event@example.com' }, value: 10.5, valueCurrency: 'EUR' } },
    );
    expect(created.data).toMatchObject({ createCustomEvent: { duplicate: false, event: { eventName: 'V3 event', value: '10.5', valueCurrency: 'EUR', customer: { email: 'v3-event@example.com' } } } });
    const listed = await graphql(server, store.secret, 'query { customEvents(first: 5, eventName: "V3 event") { nodes { id } } }');
    expect(listed.data).toEqual({ customEvents: { nodes: [{ id: (created.data!.createCustomEvent as { event: { id: string } }).event.id }] } });
  });

  it('refuses bad input with problem details as application/json naming the field, writing nothing', async () => {
    const foreignCustomer = await upsertCustomer('foreign@example.com', other);
    const before = await rowCounts(server.db);
    const cases: [string, unknown, string[]][] = [
      ['no body', undefined, ['']],
      ['an array', [], ['']],
      ['no event name', { customer: { email: 'a@example.com' } }, ['eventName']],
      ['empty event name', { eventName: ' ', customer: { email: 'a@example.com' } }, ['eventName']],
      ['no customer', { eventName: 'X' }, ['customer']],
      ['no identifier', { eventName: 'X', customer: { firstName: 'A' } }, ['customer']],
      ['unknown customer property', { eventName: 'X', customer: { email: 'a@example.com', nickname: 'A' } }, ['customer.nickname']],
      ['bad e-mail', { eventName: 'X', customer: { email: 'nope' } }, ['customer.email']],
      ['bad phone', { eventName: 'X', customer: { phoneNumber: '12' } }, ['customer.phoneNumber']],
      ['null e-mail', { eventName: 'X', customer: { email: null, phoneNumber: '+15550400000' } }, ['customer.email']],
      ['bad location', { eventName: 'X', customer: { email: 'a@example.com', location: { latitude: 'north' } } }, ['customer.location.latitude']],
      ['bad custom field', { eventName: 'X', customer: { email: 'a@example.com', customFields: { nested: { a: 1 } } } }, ['customer.customFields.nested']],
      ['bad timestamp', { eventName: 'X', customer: { email: 'a@example.com' }, eventTimestamp: '2026-04-02' }, ['eventTimestamp']],
      ['null timestamp', { eventName: 'X', customer: { email: 'a@example.com' }, eventTimestamp: null }, ['eventTimestamp']],
      ['value not a number', { eventName: 'X', customer: { email: 'a@example.com' }, value: '12' }, ['value']],
      ['bad currency', { eventName: 'X', customer: { email: 'a@example.com' }, valueCurrency: 'dollars' }, ['valueCurrency']],
      ['empty uniqueId', { eventName: 'X', customer: { email: 'a@example.com' }, uniqueId: '' }, ['uniqueId']],
      ['object in data', { eventName: 'X', customer: { email: 'a@example.com' }, data: { nested: { a: 1 } } }, ['data.nested']],
      ['$extra not an object', { eventName: 'X', customer: { email: 'a@example.com' }, data: { $extra: 5 } }, ['data.$extra']],
      ['too many properties', { eventName: 'X', customer: { email: 'a@example.com' }, data: Object.fromEntries(Array.from({ length: 401 }, (_, i) => [`p${i}`, i + 1])) }, ['data']],
      ['string over 100 KB', { eventName: 'X', customer: { email: 'a@example.com' }, data: { $extra: { html: 'x'.repeat(100 * 1024 + 1) } } }, ['data.$extra.html']],
      ["another store's customer id alone", { eventName: 'X', customer: { id: foreignCustomer } }, ['customer.id']],
    ];
    for (const [what, body, paths] of cases) {
      const res = await send(body);
      expect(res.status, `${what}: ${res.text}`).toBe(400);
      expect(res.headers.get('content-type'), what).toContain('application/json');
      expect(((res.body as { errors?: { path: string }[] }).errors ?? []).map((e) => e.path), what).toEqual(paths);
    }
    expect(await rowCounts(server.db)).toEqual(before);
  });

  it("never touches another store's customer: its id is not matched, the event's own store gets a customer", async () => {
    const foreignCustomer = await upsertCustomer('shared@example.com', other);
    expect((await send({ eventName: 'Foreign id', customer: { id: foreignCustomer, email: 'shared@example.com', firstName: 'Ours' } })).status).toBe(202);
    const [event] = await eventsNamed('Foreign id');
    expect(event.customer.storeId).toBe(store.storeId);
    expect(event.customerId).not.toBe(foreignCustomer);
    expect((await server.db.prisma.customer.findUniqueOrThrow({ where: { id: foreignCustomer } })).firstName).toBeNull();
  });

  it('needs customer_events_write', async () => {
    const writer = await addApiClient(server.db, store.storeId, ['customers_write']);
    const before = await rowCounts(server.db);
    const res = await send({ eventName: 'X', customer: { email: 'a@example.com' } }, { storeId: store.storeId, secret: writer.secret });
    expect(res.status).toBe(403);
    expect((await sendBulk({ events: [{ eventName: 'X', customer: { email: 'a@example.com' } }] }, { storeId: store.storeId, secret: writer.secret })).status).toBe(403);
    expect((await send({ eventName: 'X', customer: { email: 'a@example.com' } }, { storeId: store.storeId, secret: other.secret })).status).toBe(403);
    expect(await rowCounts(server.db)).toEqual(before);
  });
});

describe('POST /events/bulk', () => {
  it('stores the documented example: 202 without a body', async () => {
    const res = await sendBulk({
      events: [
        { eventName: 'User Registered', customer: { email: 'alice@example.com' }, data: { 'Plan Type': 'premium' } },
        { eventName: 'Purchase Completed', customer: { email: 'bob@example.com' }, data: { 'Order Total': 99.99, 'Item Count': 3 }, value: 99.99, valueCurrency: 'USD', uniqueId: 'order-456' },
      ],
    });
    expect(res.status, res.text).toBe(202);
    expect(res.text).toBe('');
    expect((await eventsNamed('User Registered'))[0].customer.email).toBe('alice@example.com');
    expect((await eventsNamed('Purchase Completed'))[0].uniqueId).toBe('order-456');
  });

  it('accepts the valid events of a batch and writes nothing of the refused ones', async () => {
    const before = await rowCounts(server.db);
    const res = await sendBulk({
      events: [
        { eventName: 'Partial', customer: { email: 'partial-1@example.com' } },
        { eventName: 'Partial', customer: { email: 'partial-2@example.com', customFields: { 'Loyalty Tier': 5 } }, eventTimestamp: 'soon' },
        null,
        { eventName: 'Partial', customer: { phoneNumber: '+15550500000' } },
      ],
    });
    expect(res.status).toBe(202);
    const stored = await eventsNamed('Partial');
    expect(stored.map((e) => e.customer.email ?? e.customer.phoneNumbers[0])).toEqual(['partial-1@example.com', '+15550500000']);
    const after = await rowCounts(server.db);
    expect(after.CustomEvent - before.CustomEvent).toBe(2);
    expect(after.Customer - before.Customer).toBe(2);
    expect(after.CustomFieldDeclaration).toBe(before.CustomFieldDeclaration);
  });

  it('the v3 mutation createCustomEvents answers one result per event, in order', async () => {
    const res = await graphql(
      server,
      store.secret,
      'mutation($events: [JSON]!) { createCustomEvents(events: $events) { index accepted duplicate event { eventName } userErrors { code field message } } }',
      { events: [{ eventName: 'Batch v3', customer: { email: 'batch@example.com' }, uniqueId: 'b-1' }, { eventName: 'Batch v3', customer: {} }, { eventName: 'Batch v3', customer: { email: 'batch@example.com' }, uniqueId: 'b-1' }] },
    );
    expect(res.data).toEqual({
      createCustomEvents: [
        { index: 0, accepted: true, duplicate: false, event: { eventName: 'Batch v3' }, userErrors: [] },
        { index: 1, accepted: false, duplicate: false, event: null, userErrors: [{ code: 'INVALID', field: ['customer'], message: 'needs at least one of id, email or phoneNumber' }] },
        { index: 2, accepted: true, duplicate: true, event: { eventName: 'Batch v3' }, userErrors: [] },
      ],
    });
  });

  it('refuses a bad envelope, or a batch with no acceptable event, with 400 naming each field; nothing written', async () => {
    const before = await rowCounts(server.db);
    const event = { eventName: 'Too many', customer: { email: 'many@example.com' } };
    const cases: [string, unknown, string[]][] = [
      ['no body', undefined, ['']],
      ['no events', {}, ['events']],
      ['events not an array', { events: event }, ['events']],
      ['empty batch', { events: [] }, ['events']],
      ['over 100 events', { events: Array.from({ length: 101 }, () => event) }, ['events']],
      ['unknown property', { events: [event], extra: true }, ['extra']],
      ['every event refused', { events: [{ customer: { email: 'x@example.com' } }, { eventName: 'X', customer: { email: 'bad' } }] }, ['events.0.eventName', 'events.1.customer.email']],
    ];
    for (const [what, body, paths] of cases) {
      const res = await sendBulk(body);
      expect(res.status, `${what}: ${res.text}`).toBe(400);
      expect(res.headers.get('content-type'), what).toContain('application/json');
      expect(((res.body as { errors?: { path: string }[] }).errors ?? []).map((e) => e.path), what).toEqual(paths);
    }
    expect(await rowCounts(server.db)).toEqual(before);
  });
});

describe('delivery', () => {
  it('a v3 webhook subscription to custom_event.created receives the event', async () => {
    const hooked = await createTestStore(server.db, { name: 'Hooked store' });
    const receiver: Receiver = await startReceiver();
    const dispatcher = startTestDispatcher(server.db);
    cleanups.push(() => dispatcher.stop(100), () => receiver.close());
    const subscribed = await graphql(
      server,
      hooked.secret,
      'mutation($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id topics } }',
      { input: { url: `${receiver.url}/custom-events`, secret: 'whsec_custom', topics: ['custom_event.created'] } },
    );
    expect(subscribed.errors).toBeUndefined();
    expect((await send({ eventName: 'Delivered', customer: { email: 'hooked@example.com' }, data: { Plan: 'pro' } }, hooked)).status).toBe(202);
    await waitFor(() => receiver.requests.length === 1, 'the custom event delivery');
    const [request] = receiver.requests;
    expect(request.headers.authorization).toBe('Bearer whsec_custom');
    expect(request.body).toMatchObject({
      topic: 'custom_event.created',
      storeId: hooked.storeId,
      data: { eventName: 'Delivered', data: { Plan: 'pro' }, customer: { email: 'hooked@example.com' } },
    });
    expect(request.body.subjectId).toBe(request.body.data.id);
  });
});
