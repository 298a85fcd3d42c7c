// Idempotency-Key on every API door (src/idempotentRequests.ts): a replay answers the first
// answer byte for byte and writes nothing, another request under the key is 422, concurrent
// duplicates make one write (the later ones wait and are answered with the first answer),
// across two instances on one database, refused requests keep nothing, and keys belong to
// their API client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowCounts } from '../support/counts.ts';
import { orderInput } from '../support/orderInput.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { addApiClient, call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { WAREHOUSE } from '../compat/helpers.ts';
import { pruneExpiredIdempotentRequests } from '../../src/http/steps/idempotency.ts';

let server: TestServer;
let second: TestServer;
let store: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  // A second instance on the same database: keys hold across instances.
  second = await startTestServer({}, {}, { db: server.db });
  store = await createTestStore(server.db);
});
afterAll(async () => {
  await second?.close();
  await server?.close();
});

let serial = 0;
const unique = (prefix: string) => `${prefix}-${++serial}-${Date.now()}`;

const ORDER_CREATE = 'mutation ($input: OrderInput!) { orderCreate(input: $input) { id name lineItems { sku quantity } } }';

interface Write {
  door: string;
  method: string;
  path: () => Promise<string>;
  body: () => unknown;
  /** Rows that the write adds once. */
  count: () => Promise<number>;
}

let returnNumber: number;
const writes: Write[] = [
  {
    door: 'v3 GraphQL',
    method: 'POST',
    path: async () => '/v3/graphql',
    body: () => ({ query: ORDER_CREATE, variables: { input: orderInput(unique('v3'), { email: 'key@example.com' }, [{ sku: 'KEY-1', title: 'Key' }]) } }),
    count: () => server.db.prisma.order.count({ where: { storeId: store.storeId } }),
  },
  {
    door: '/v3/rest',
    method: 'POST',
    path: async () => '/v3/rest/order-create',
    body: () => ({ input: orderInput(unique('sofa'), { email: 'key@example.com' }, [{ sku: 'KEY-2', title: 'Key' }]) }),
    count: () => server.db.prisma.order.count({ where: { storeId: store.storeId } }),
  },
  {
    door: 'REST v2.2',
    method: 'POST',
    path: async () => `/v2.2/stores/${store.storeId}/events`,
    body: () => ({ eventName: 'Key Test', customer: { email: 'key@example.com' }, data: { n: unique('event') } }),
    count: () => server.db.prisma.customEvent.count({ where: { storeId: store.storeId } }),
  },
  {
    door: 'warehouse (compat)',
    method: 'POST',
    path: async () => {
      returnNumber ??= (await insertTestReturn(server.db, store.storeId, await createTestOrder(server.db, store.storeId))).number;
      return `${WAREHOUSE}/return/${returnNumber}/note`;
    },
    body: () => ({ content: unique('note') }),
    count: () => server.db.prisma.returnNote.count(),
  },
];

function send(target: TestServer, write: { method: string; path: string }, body: unknown, key?: string, secret = store.secret) {
  return call(target, write.method, write.path, { secret, body, headers: key === undefined ? {} : { 'idempotency-key': key } });
}

describe.each(writes)('Idempotency-Key on $door', (write) => {
  it('answers a repeat with the first answer, byte for byte, and writes nothing more, on either instance', async () => {
    const path = await write.path();
    const body = write.body();
    const key = unique('replay');
    const before = await write.count();
    const first = await send(server, { ...write, path }, body, key);
    expect(first.status, first.text).toBeLessThan(300);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await write.count()).toBe(before + 1);
    const counts = await rowCounts(server.db);
    for (const target of [server, second]) {
      const again = await send(target, { ...write, path }, body, key);
      expect(again.status).toBe(first.status);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    }
    expect(await rowCounts(server.db)).toEqual(counts);
  });

  it('refuses the key with a different request (422) and writes nothing', async () => {
    const path = await write.path();
    const key = unique('reuse');
    expect((await send(server, { ...write, path }, write.body(), key)).status).toBeLessThan(300);
    const counts = await rowCounts(server.db);
    const other = await send(second, { ...write, path }, write.body(), key);
    expect(other.status, other.text).toBe(422);
    expect(other.text).toContain('Idempotency-Key');
    expect(await rowCounts(server.db)).toEqual(counts);
  });

  it('makes one write of concurrent duplicates on two instances: the others wait and get the first answer', async () => {
    const path = await write.path();
    const body = write.body();
    const key = unique('race');
    const before = await write.count();
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => send(i % 2 === 0 ? server : second, { ...write, path }, body, key)));
    expect(new Set(answers.map((a) => a.status)).size).toBe(1);
    expect(answers[0].status, answers[0].text).toBeLessThan(300);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(5);
    expect(await write.count()).toBe(before + 1);
  });
});

describe('Idempotency-Key rules', () => {
  it('keeps no answer for a refused request, so the same key may carry it again once corrected', async () => {
    const key = unique('refused');
    const orderId = unique('refused-order');
    const bad = await call(server, 'POST', '/v3/rest/order-create', {
      secret: store.secret,
      body: { input: { ...orderInput(orderId, { email: 'key@example.com' }, [{ sku: 'KEY-3', title: 'Key' }]), lineItems: [] } },
      headers: { 'idempotency-key': key },
    });
    expect(bad.status, bad.text).toBeGreaterThanOrEqual(400);
    const counts = await rowCounts(server.db);
    expect(counts.IdempotentRequest).toBe(await server.db.prisma.idempotentRequest.count());
    expect(await server.db.prisma.idempotentRequest.count({ where: { key } })).toBe(0);
    const good = await call(server, 'POST', '/v3/rest/order-create', {
      secret: store.secret,
      body: { input: orderInput(orderId, { email: 'key@example.com' }, [{ sku: 'KEY-3', title: 'Key' }]) },
      headers: { 'idempotency-key': key },
    });
    expect(good.status, good.text).toBe(200);
  });

  it('a key belongs to its API client: another client with the same key makes its own write', async () => {
    const other = await addApiClient(server.db, store.storeId, ['customer_events_write']);
    const path = `/v2.2/stores/${store.storeId}/events`;
    const body = { eventName: 'Shared Key', customer: { email: 'key@example.com' } };
    const count = () => server.db.prisma.customEvent.count({ where: { storeId: store.storeId, eventName: 'Shared Key' } });
    const key = unique('shared');
    await send(server, { method: 'POST', path }, body, key);
    await send(server, { method: 'POST', path }, body, key, other.secret);
    expect(await count()).toBe(2);
  });

  it('refuses a malformed key in each door’s error format and runs nothing', async () => {
    const tooLong = 'k'.repeat(256);
    const counts = await rowCounts(server.db);
    const v3 = await call(server, 'POST', '/v3/graphql', { secret: store.secret, body: writes[0].body(), headers: { 'idempotency-key': tooLong } });
    expect(v3.status).toBe(400);
    expect(v3.body).toMatchObject({ errors: [{ extensions: { code: 'BAD_USER_INPUT' } }] });
    const rest = await call(server, 'POST', `/v2.2/stores/${store.storeId}/events`, { secret: store.secret, body: writes[2].body(), headers: { 'idempotency-key': 'é' } });
    expect(rest.status).toBe(400);
    // A problem body, in the media type the reference declares for this operation's 400 (call() checks it).
    expect(rest.body).toMatchObject({ status: 400, detail: expect.stringContaining('Idempotency-Key') });
    expect(await rowCounts(server.db)).toEqual(counts);
  });

  it('reads the draft’s quoted form and the bare form as the same key', async () => {
    const path = `/v2.2/stores/${store.storeId}/events`;
    const body = { eventName: 'Quoted Key', customer: { email: 'key@example.com' } };
    await send(server, { method: 'POST', path }, body, 'quoted-1');
    const again = await send(server, { method: 'POST', path }, body, '"quoted-1"');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await server.db.prisma.customEvent.count({ where: { storeId: store.storeId, eventName: 'Quoted Key' } })).toBe(1);
  });

  it('keeps what each field of a v3 mutation did: a refused field leaves nothing, the others stay, and the replay answers both', async () => {
    const orderId = unique('two-fields');
    const input = orderInput(orderId, { email: 'key@example.com' }, [{ sku: 'KEY-4', title: 'Key' }]);
    const query = 'mutation ($input: OrderInput!) { first: orderCreate(input: $input) { id } again: orderCreate(input: $input) { id } }';
    const before = await server.db.prisma.order.count({ where: { storeId: store.storeId } });
    const body = { query, variables: { input } };
    const first = await call(server, 'POST', '/v3/graphql', { secret: store.secret, body, headers: { 'idempotency-key': orderId } });
    // orderCreate is non-null, so the refused second field nulls `data`; the first field's order is made all the same, as without a key.
    expect(first.body).toMatchObject({ errors: [{ path: ['again'], extensions: { code: 'CONFLICT' } }] });
    expect(await server.db.prisma.order.count({ where: { storeId: store.storeId } })).toBe(before + 1);
    const replayed = await call(second, 'POST', '/v3/graphql', { secret: store.secret, body, headers: { 'idempotency-key': orderId } });
    expect(replayed.text).toBe(first.text);
    expect(await server.db.prisma.order.count({ where: { storeId: store.storeId } })).toBe(before + 1);
  });

  it('prunes keys past their lifetime only', async () => {
    const path = `/v2.2/stores/${store.storeId}/events`;
    const [kept, expired] = [unique('kept'), unique('pruned')];
    for (const key of [kept, expired]) await send(server, { method: 'POST', path }, { eventName: 'Pruned Key', customer: { email: 'key@example.com' } }, key);
    await server.db.prisma.idempotentRequest.updateMany({ where: { key: expired }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    expect(await pruneExpiredIdempotentRequests(server.db, 1)).toBeGreaterThanOrEqual(1);
    expect(await server.db.prisma.idempotentRequest.count({ where: { key: { in: [kept, expired] } } })).toBe(1);
    expect(await server.db.prisma.idempotentRequest.count({ where: { key: kept } })).toBe(1);
  });

  it('runs the request again once its key has expired', async () => {
    const path = `/v2.2/stores/${store.storeId}/events`;
    const body = { eventName: 'Expiring Key', customer: { email: 'key@example.com' } };
    const key = unique('expired');
    await send(server, { method: 'POST', path }, body, key);
    await server.db.prisma.idempotentRequest.updateMany({ where: { key }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    const again = await send(server, { method: 'POST', path }, body, key);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(await server.db.prisma.customEvent.count({ where: { storeId: store.storeId, eventName: 'Expiring Key' } })).toBe(2);
  });

  // PGlite has one connection: nothing there ever waits on another transaction.
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'bounds only the wait for an earlier request with the key (409 with Retry-After after it), not the write’s own waits for locks',
    async () => {
      const path = `/v2.2/stores/${store.storeId}/events`;
      const body = { eventName: 'Held Key', customer: { email: 'held@example.com' } };
      const key = unique('held');
      const events = () => server.db.prisma.customEvent.count({ where: { storeId: store.storeId, eventName: 'Held Key' } });
      /** Runs `hold` in a transaction of its own that stays open, then rolls back, until the returned release is called. */
      const holding = async (hold: (tx: Parameters<Parameters<typeof server.db.prisma.$transaction>[0]>[0]) => Promise<unknown>) => {
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        let holds!: () => void;
        const held = new Promise<void>((resolve) => (holds = resolve));
        const ended = server.db.prisma
          .$transaction(
            async (tx) => {
              await hold(tx);
              holds();
              await released;
              throw new Error('rolled back on purpose');
            },
            { timeout: 30_000 },
          )
          .catch(() => undefined);
        await held;
        return async () => {
          release();
          await ended;
        };
      };

      // A first request with the key still running, as another instance's would be.
      const endFirst = await holding((tx) =>
        tx.idempotentRequest.create({
          data: { clientId: store.clientId, key, storeId: store.storeId, fingerprint: 'first', status: 0, headers: {}, body: Buffer.alloc(0), expiresAt: new Date(Date.now() + 60_000) },
        }),
      );
      const waited = await send(server, { method: 'POST', path }, body, key);
      await endFirst();
      expect(waited.status).toBe(409);
      expect(waited.headers.get('retry-after')).toBe('1');
      expect(waited.headers.get('content-type')).toContain('application/problem+json');
      expect(await events()).toBe(0);

      // The first ended without keeping an answer: the key is free. The write's own wait (the
      // customer's e-mail lock, held past the bound) is not cut short.
      const endLock = await holding((tx) => tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))::text`, `${store.storeId}:held@example.com`));
      const written = send(server, { method: 'POST', path }, body, key);
      await new Promise((resolve) => setTimeout(resolve, 11_000));
      await endLock();
      expect((await written).status).toBeLessThan(300);
      expect(await events()).toBe(1);
    },
    40_000,
  );

  it('leaves the reference’s return creation to its own rule (a replay is 200, as the reference documents)', async () => {
    const order = await createTestOrder(server.db, store.storeId, { lines: [{ quantity: 3 }] });
    const body = {
      data: {
        provider: 'shopify',
        externalOrderId: order.externalId,
        items: [{ lineItemId: 'line-1', quantity: 1, reason: 'Too small', compensation: 'refund' }],
        shippingAddress: { line1: '5 Elm St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' },
      },
    };
    const path = `/v2.2/stores/${store.storeId}/returns`;
    expect((await send(server, { method: 'POST', path }, body, 'return-key')).status).toBe(201);
    expect((await send(server, { method: 'POST', path }, body, 'return-key')).status).toBe(200);
  });
});
