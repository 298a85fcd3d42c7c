// The dispatcher against real HTTP receivers on 127.0.0.1: headers and body, retries,
// discards, per-subject order, redirects, timeouts, the transactional outbox, disabled
// subscriptions, the delivery-time address guard and graceful shutdown.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/domain/events.ts';
import { createWebhookSubscription, systemLookup, type HostLookup } from '../../src/domain/webhooks.ts';
import { WebhookDispatcher, type DispatcherOptions } from '../../src/webhooks/dispatcher.ts';
import { call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { expectValidRestResponse } from '../support/openapi.ts';
import { emit, orderViolations, startReceiver, startTestDispatcher, subscribe as subscribeV3, waitFor, type Receiver, type ReceiverHandler } from './support.ts';

let server: TestServer;
const dispatchers: WebhookDispatcher[] = [];
const receivers: Receiver[] = [];

beforeAll(async () => {
  server = await startTestServer({ webhooksAllowLoopback: true });
});
afterEach(async () => {
  await Promise.all(dispatchers.splice(0).map((d) => d.stop(100)));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(async () => server?.close());

function startDispatcher(options: Partial<DispatcherOptions> = {}): WebhookDispatcher {
  const dispatcher = startTestDispatcher(server.db, options);
  dispatchers.push(dispatcher);
  return dispatcher;
}

async function receiver(handler?: ReceiverHandler): Promise<Receiver> {
  const started = await startReceiver(handler);
  receivers.push(started);
  return started;
}

async function subscribe(store: TestStore, url: string, input: Record<string, unknown> = {}): Promise<string> {
  const res = await subscribeV3(server, store.secret, { url, topics: ['customer.created', 'customer.updated'], ...input });
  expect(res.subscription, JSON.stringify(res)).toBeDefined();
  return res.subscription!.id;
}

function deliveryOf(eventId: string) {
  return server.db.prisma.webhookDelivery.findFirstOrThrow({
    where: { eventId },
    include: { attempts: { orderBy: { attemptNumber: 'asc' } } },
  });
}

async function settled(eventId: string) {
  return waitFor(async () => {
    const delivery = await deliveryOf(eventId);
    return delivery.status !== 'PENDING' && delivery;
  }, `delivery of ${eventId} to settle`);
}

describe('a delivery', () => {
  it('is a POST with the bearer secret, Webhook-Id and the event as JSON', async () => {
    const store = await createTestStore(server.db);
    const hook = await receiver();
    await subscribe(store, `${hook.url}/hooks/customers?source=test`, { secret: 'whsec_Test-123' });
    startDispatcher();
    const eventId = await emit(server.db, store.storeId, 'customer.created', 'cus_one', { email: 'a@example.com' });
    await waitFor(() => hook.requests.length === 1, 'the delivery');

    const [request] = hook.requests;
    const event = await server.db.prisma.event.findUniqueOrThrow({ where: { id: eventId } });
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hooks/customers?source=test');
    expect(request.headers.authorization).toBe('Bearer whsec_Test-123');
    expect(request.headers['webhook-id']).toBe(eventId);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.body).toEqual({
      id: eventId,
      topic: 'customer.created',
      createdAt: event.createdAt.toISOString(),
      storeId: store.storeId,
      subjectId: 'cus_one',
      data: { email: 'a@example.com' },
    });
    const delivery = await settled(eventId);
    expect(delivery).toMatchObject({ status: 'DELIVERED', attemptCount: 1, lockedBy: null, lastError: null });
    expect(delivery.attempts).toMatchObject([{ attemptNumber: 1, responseStatus: 200, error: null }]);
  });

  it('carries no Authorization header when the subscription has no secret, and only subscribed topics arrive', async () => {
    const store = await createTestStore(server.db);
    const customers = await receiver();
    const orders = await receiver();
    await subscribe(store, customers.url);
    await subscribe(store, orders.url, { topics: ['order.created'] });
    startDispatcher();
    const customerEvent = await emit(server.db, store.storeId, 'customer.updated', 'cus_two');
    const orderEvent = await emit(server.db, store.storeId, 'order.created', 'ord_two');
    await settled(customerEvent);
    await settled(orderEvent);
    expect(customers.requests.map((r) => r.body.id)).toEqual([customerEvent]);
    expect(orders.requests.map((r) => r.body.id)).toEqual([orderEvent]);
    expect(customers.requests[0].headers.authorization).toBeUndefined();
  });

  it('is retried after a 500 and then succeeds, with the same event id on every attempt', async () => {
    const store = await createTestStore(server.db);
    const hook = await receiver((_request, r) => ({ status: r.requests.length <= 2 ? 500 : 204 }));
    const subscriptionId = await subscribe(store, hook.url, { secret: 'retry-secret' });
    startDispatcher();
    const eventId = await emit(server.db, store.storeId, 'customer.created', 'cus_retry', { n: 1 });
    const delivery = await settled(eventId);

    expect(delivery).toMatchObject({ status: 'DELIVERED', attemptCount: 3 });
    expect(hook.requests).toHaveLength(3);
    expect(new Set(hook.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([eventId]));
    expect(new Set(hook.requests.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(delivery.attempts.map((a) => [a.attemptNumber, a.responseStatus])).toEqual([[1, 500], [2, 500], [3, 204]]);
    expect(delivery.attempts[0].error).toBe('HTTP 500: receiver says 500');

    const path = `/v2.2/stores/${store.storeId}/webhooks/${subscriptionId}/deliveries`;
    const res = await call(server, 'GET', path, { secret: store.secret });
    expect(res.status).toBe(200);
    expectValidRestResponse('GET', path, res);
    expect(res.body).toMatchObject({
      deliveries: [
        {
          event: { id: eventId, topic: 'customer.created', subjectId: 'cus_retry' },
          status: 'DELIVERED',
          attemptCount: 3,
          nextAttemptAt: null,
          attempts: [
            { attemptNumber: 1, responseStatus: 500, error: 'HTTP 500: receiver says 500' },
            { attemptNumber: 2, responseStatus: 500 },
            { attemptNumber: 3, responseStatus: 204, error: null },
          ],
        },
      ],
    });

    const v3 = await graphql(
      server,
      store.secret,
      `query($id: ID!) { webhookSubscription(id: $id) { deliveries(first: 5) { nodes {
         status event { id } attempts { attemptNumber responseStatus durationMs error } } } } }`,
      { id: subscriptionId },
    );
    expect(v3.errors).toBeUndefined();
    expect(v3.data).toMatchObject({
      webhookSubscription: {
        deliveries: {
          nodes: [{ status: 'DELIVERED', event: { id: eventId }, attempts: [{ responseStatus: 500 }, { responseStatus: 500 }, { responseStatus: 204, error: null }] }],
        },
      },
    });
  });

  it('is discarded after the last attempt, and the next event of the subject then goes out', async () => {
    const store = await createTestStore(server.db);
    const hook = await receiver((request) => ({ status: request.body.data.n === 1 ? 503 : 200 }));
    await subscribe(store, hook.url);
    startDispatcher();
    const first = await emit(server.db, store.storeId, 'customer.updated', 'cus_doomed', { n: 1 });
    const second = await emit(server.db, store.storeId, 'customer.updated', 'cus_doomed', { n: 2 });
    const discarded = await settled(first);
    await settled(second);

    expect(discarded).toMatchObject({ status: 'DISCARDED', attemptCount: 4, lastError: 'HTTP 503: receiver says 503' });
    expect(discarded.completedAt).not.toBeNull();
    expect(discarded.attempts.map((a) => a.responseStatus)).toEqual([503, 503, 503, 503]);
    // Four attempts of the first event, none after the discard, and only then the second.
    expect(hook.requests.map((r) => r.body.data.n)).toEqual([1, 1, 1, 1, 2]);
  });

  it('keeps per-subject order while another subject is held up by a slow answer', async () => {
    const store = await createTestStore(server.db);
    let releaseSlow!: () => void;
    const slowGate = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    const perSubject = new Map<string, number>();
    let overlapping = 0;
    const hook = await receiver(async (request, r) => {
      const subject = request.body.subjectId;
      perSubject.set(subject, (perSubject.get(subject) ?? 0) + 1);
      if (perSubject.get(subject)! > 1) overlapping++;
      // The slow subject's first answer waits until the fast subject got all ten events.
      if (subject === 'cus_slow' && request.body.data.n === 1) await slowGate;
      if (r.requests.filter((q) => q.body.subjectId === 'cus_fast').length === 10) releaseSlow();
      perSubject.set(subject, perSubject.get(subject)! - 1);
      return { status: 200 };
    });
    await subscribe(store, hook.url);
    startDispatcher({ concurrency: 4 });
    for (let n = 1; n <= 10; n++) {
      if (n <= 3) await emit(server.db, store.storeId, 'customer.updated', 'cus_slow', { n });
      await emit(server.db, store.storeId, 'customer.updated', 'cus_fast', { n });
    }
    await waitFor(() => hook.requests.length === 13, 'all thirteen deliveries');

    const order = hook.requests.map((r) => `${r.body.subjectId}#${r.body.data.n}`);
    expect(order.filter((o) => o.startsWith('cus_slow'))).toEqual(['cus_slow#1', 'cus_slow#2', 'cus_slow#3']);
    expect(order.filter((o) => o.startsWith('cus_fast'))).toEqual(Array.from({ length: 10 }, (_, i) => `cus_fast#${i + 1}`));
    // The fast subject was not held behind the slow one: all ten arrived before cus_slow#2.
    expect(order.indexOf('cus_fast#10')).toBeLessThan(order.indexOf('cus_slow#2'));
    expect(overlapping).toBe(0);
    expect(orderViolations(hook.requests)).toEqual([]);
  });

  it('follows no redirect: a 3xx is a failed attempt', async () => {
    const store = await createTestStore(server.db);
    const target = await receiver();
    const redirecting = await receiver(() => ({ status: 302, headers: { location: `${target.url}/elsewhere` } }));
    await subscribe(store, redirecting.url);
    startDispatcher({ retry: { firstDelayMs: 5, maxDelayMs: 5, maxAttempts: 2 } });
    const eventId = await emit(server.db, store.storeId, 'customer.created', 'cus_redirect');
    const delivery = await settled(eventId);
    expect(delivery.status).toBe('DISCARDED');
    expect(delivery.attempts[0]).toMatchObject({ responseStatus: 302, error: `redirect refused (HTTP 302 to ${target.url}/elsewhere)` });
    expect(target.requests).toHaveLength(0);
  });

  it('times out a receiver that does not answer in time, and retries', async () => {
    const store = await createTestStore(server.db);
    const hook = await receiver((_request, r) => (r.requests.length === 1 ? { delayMs: 5_000 } : { status: 200 }));
    await subscribe(store, hook.url);
    startDispatcher({ timeoutMs: 1_000 });
    const eventId = await emit(server.db, store.storeId, 'customer.created', 'cus_slowpoke');
    const delivery = await settled(eventId);
    expect(delivery.status).toBe('DELIVERED');
    expect(delivery.attempts.map((a) => [a.responseStatus, a.error])).toEqual([
      [null, 'timed out after 1000 ms'],
      [200, null],
    ]);
  });

  it('records connection errors and discards after the last attempt', async () => {
    const store = await createTestStore(server.db);
    const gone = await startReceiver();
    await gone.close();
    await subscribe(store, gone.url);
    startDispatcher({ retry: { firstDelayMs: 5, maxDelayMs: 5, maxAttempts: 2 } });
    const eventId = await emit(server.db, store.storeId, 'customer.created', 'cus_nobody');
    const delivery = await settled(eventId);
    expect(delivery.status).toBe('DISCARDED');
    expect(delivery.attempts).toHaveLength(2);
    expect(delivery.attempts[0].responseStatus).toBeNull();
    expect(delivery.attempts[0].error).toContain('ECONNREFUSED');
  });
});

describe('the outbox', () => {
  it('keeps no event of a rolled-back change', async () => {
    const store = await createTestStore(server.db);
    const hook = await receiver();
    const subscriptionId = await subscribe(store, hook.url);
    const sentinel = 'cus_rolled_back';
    await expect(
      server.db.prisma.$transaction(async (tx) => {
        await recordEvent(tx, { storeId: store.storeId, topic: 'customer.created', subjectId: sentinel, data: {} });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await server.db.prisma.event.count({ where: { subjectId: sentinel } })).toBe(0);
    expect(await server.db.prisma.webhookDelivery.count({ where: { subscriptionId } })).toBe(0);
  });

  it('holds the deliveries of a disabled subscription until it is enabled again', async () => {
    const store = await createTestStore(server.db);
    const paused = await receiver();
    const sentinel = await receiver();
    const pausedId = await subscribe(store, paused.url);
    await subscribe(store, sentinel.url);
    const eventId = await emit(server.db, store.storeId, 'customer.created', 'cus_paused');
    const disable = await graphql(server, store.secret, 'mutation($id: ID!) { updateWebhookSubscription(id: $id, input: {enabled: false}) { enabled } }', {
      id: pausedId,
    });
    expect(disable.data).toEqual({ updateWebhookSubscription: { enabled: false } });
    // Events written while disabled are not queued for it at all.
    const whileDisabled = await emit(server.db, store.storeId, 'customer.created', 'cus_paused_later');

    startDispatcher();
    await waitFor(() => sentinel.requests.length === 2, 'the sentinel subscription to get both events');
    expect(paused.requests).toHaveLength(0);
    expect(await server.db.prisma.webhookDelivery.findFirst({ where: { subscriptionId: pausedId, eventId } })).toMatchObject({
      status: 'PENDING',
      attemptCount: 0,
    });
    expect(await server.db.prisma.webhookDelivery.count({ where: { subscriptionId: pausedId, eventId: whileDisabled } })).toBe(0);

    await graphql(server, store.secret, 'mutation($id: ID!) { updateWebhookSubscription(id: $id, input: {enabled: true}) { enabled } }', { id: pausedId });
    await waitFor(() => paused.requests.length === 1, 'the held delivery');
    expect(paused.requests[0].body.id).toBe(eventId);
  });
});

describe('the address guard at delivery time', () => {
  const answers: [string, string, string, 4 | 6][] = [
    ['a', 'private', '10.20.30.40', 4],
    ['a', 'cloud metadata', '169.254.169.254', 4],
    ['a', 'link-local', 'fe80::1', 6],
    ['a', 'multicast', '239.1.2.3', 4],
    ['a', 'private', '::ffff:192.168.1.10', 6],
    ['an', 'unspecified', '0.0.0.0', 4],
    ['a', 'private', 'fd12:3456::1', 6],
  ];

  it.each(answers)('refuses a host whose DNS answer changed to %s %s address (%s)', async (article, addressClass, address, family) => {
    const store = await createTestStore(server.db);
    const hook = await receiver();
    // Checked at subscription time while the name still resolved to the receiver.
    await subscribe(store, hook.url.replace('127.0.0.1', 'localhost'));
    const changedDns: HostLookup = async (host) => (host === 'localhost' ? [{ address, family }] : systemLookup(host));
    startDispatcher({
      policy: { allowLoopback: true, lookup: changedDns },
      retry: { firstDelayMs: 5, maxDelayMs: 5, maxAttempts: 1 },
    });
    const eventId = await emit(server.db, store.storeId, 'customer.created', 'cus_dns');
    const delivery = await settled(eventId);
    expect(delivery.status).toBe('DISCARDED');
    expect(delivery.attempts[0].responseStatus).toBeNull();
    expect(delivery.attempts[0].error).toBe(`refused: localhost resolves to ${address}, ${article} ${addressClass} address; webhooks are only sent to public addresses`);
    expect(hook.requests).toHaveLength(0);
  });

  it('refuses loopback when the dispatcher does not allow it', async () => {
    const store = await createTestStore(server.db);
    const hook = await receiver();
    await subscribe(store, hook.url);
    startDispatcher({ policy: { allowLoopback: false, lookup: systemLookup }, retry: { firstDelayMs: 5, maxDelayMs: 5, maxAttempts: 1 } });
    const eventId = await emit(server.db, store.storeId, 'customer.created', 'cus_loop');
    const delivery = await settled(eventId);
    expect(delivery.attempts[0].error).toMatch(/^refused: must use https; .*WEBHOOKS_ALLOW_LOOPBACK=true/);
    expect(hook.requests).toHaveLength(0);
  });

  it('connects to the address it checked, without asking DNS again', async () => {
    const store = await createTestStore(server.db);
    const hook = await receiver();
    const port = new URL(hook.url).port;
    // A name no real resolver knows: only the checked answer can lead the connection to the receiver.
    const lookup: HostLookup = async (host) => (host === 'hooks.example.test' ? [{ address: '127.0.0.1', family: 4 }] : systemLookup(host));
    await createWebhookSubscription(server.db.prisma, store.storeId, { url: `http://hooks.example.test:${port}/in`, topics: ['customer.created'] }, { allowLoopback: true, lookup });
    startDispatcher({ policy: { allowLoopback: true, lookup } });
    const eventId = await emit(server.db, store.storeId, 'customer.created', 'cus_pinned');
    await settled(eventId);
    expect(hook.requests).toHaveLength(1);
    expect(hook.requests[0].headers.host).toBe(`hooks.example.test:${port}`);
  });
});

describe('graceful shutdown', () => {
  it('lets an attempt in flight finish, and leaves later events queued for the next dispatcher', async () => {
    const store = await createTestStore(server.db);
    const hook = await receiver(() => ({ status: 200, delayMs: 300 }));
    await subscribe(store, hook.url);
    const dispatcher = startDispatcher();
    const inFlight = await emit(server.db, store.storeId, 'customer.created', 'cus_shutdown', { n: 1 });
    await waitFor(() => hook.inFlight.has(inFlight), 'the attempt to be in flight');
    await dispatcher.stop();
    expect(await deliveryOf(inFlight)).toMatchObject({ status: 'DELIVERED', attemptCount: 1, lockedBy: null });

    const queued = await emit(server.db, store.storeId, 'customer.updated', 'cus_shutdown', { n: 2 });
    expect(await deliveryOf(queued)).toMatchObject({ status: 'PENDING', attemptCount: 0 });
    startDispatcher();
    await settled(queued);
    expect(hook.requests.map((r) => r.body.data.n)).toEqual([1, 2]);
  });

  it('hands an attempt cut short back to the queue uncounted', async () => {
    const store = await createTestStore(server.db);
    const hook = await receiver((_request, r) => (r.requests.length === 1 ? { status: 200, delayMs: 5_000 } : { status: 200 }));
    await subscribe(store, hook.url);
    const dispatcher = startDispatcher();
    const eventId = await emit(server.db, store.storeId, 'customer.created', 'cus_cut');
    await waitFor(() => hook.inFlight.has(eventId), 'the attempt to be in flight');
    await dispatcher.stop(50);
    const delivery = await deliveryOf(eventId);
    expect(delivery).toMatchObject({ status: 'PENDING', attemptCount: 0, lockedBy: null, lockedUntil: null });
    expect(delivery.attempts).toHaveLength(0);

    startDispatcher();
    expect(await settled(eventId)).toMatchObject({ status: 'DELIVERED', attemptCount: 1 });
  });
});
