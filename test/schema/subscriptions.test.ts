// Live updates (issue 26): subscriptions over server-sent events on /v3/graphql, fed by
// the NOTIFY each committed change announces. On PostgreSQL a second instance (its own
// connections, its own listener) makes the changes, and two more show the Redis relay;
// on PGlite the one instance does.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_GRAPHQL_LIMITS } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import type { Database } from '../../src/db/database.ts';
import { createLocation } from '../../src/domain/inventory.ts';
import { flagReturn, processReturn } from '../../src/domain/returns/operations.ts';
import { addApiClient, createTestStore, graphql, linkFulfillmentService, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { payloadOf, subscribe, type OpenStream } from '../support/eventStream.ts';
import { seedCatalog, type Catalog } from './fixtures.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

let server: TestServer;
/** Where the changes are made: a second instance on PostgreSQL, the same one on PGlite. */
let writer: TestServer;
let writerDb: Database | undefined;
let merchant: TestStore;
let other: TestStore;
let service: TestStore;
let catalog: Catalog;
let otherCatalog: Catalog;
let serviceLocationId: string;
const streams: OpenStream[] = [];

const LEVELS = `subscription($loc: ID, $prd: ID) { inventoryLevelUpdated(locationId: $loc, productId: $prd) { id quantity location { id } inventoryProduct { id } } }`;
const RETURNS = `subscription($status: [ReturnStatus!]) { returnUpdated(status: $status) { id status } }`;

async function open(secret: string, query: string, variables: Record<string, unknown> = {}, method: 'GET' | 'POST' = 'POST'): Promise<OpenStream> {
  const stream = await subscribe(server, secret, query, variables, method);
  streams.push(stream);
  return stream;
}

/** Adjusts through the writer's GraphQL door, so the change commits on the other instance. */
async function adjust(store: TestStore, productId: string, locationId: string, quantityDelta: number): Promise<string> {
  const result = await graphql(writer, store.secret, `mutation($input: InventoryAdjustInput!) { inventoryAdjust(input: $input) { inventoryLevel { id } userErrors { message } } }`, {
    input: { productId, locationId, quantityDelta, reason: 'cycle_count' },
  });
  const payload = (result.data as { inventoryAdjust: { inventoryLevel: { id: string } | null; userErrors: { message: string }[] } }).inventoryAdjust;
  expect(payload.userErrors).toEqual([]);
  return payload.inventoryLevel!.id;
}

beforeAll(async () => {
  // Aliases allowed so that one test can make each event big (see 'falls behind').
  server = await startTestServer({ subscriptions: { perClient: 3, maxPendingEvents: 4 }, graphqlLimits: { ...DEFAULT_GRAPHQL_LIMITS, maxAliases: 1_000, maxTokens: 50_000 } });
  if (onPostgres) {
    writerDb = await openDatabase(server.db.url);
    writer = await startTestServer({}, {}, { db: writerDb });
  } else {
    writer = server;
  }
  merchant = await createTestStore(server.db, { name: 'Merchant' });
  other = await createTestStore(server.db, { name: 'Other' });
  service = await createTestStore(server.db, { name: '3PL', kind: 'FULFILLMENT_SERVICE' });
  await linkFulfillmentService(server.db.prisma, merchant.storeId, service.storeId);
  catalog = await seedCatalog(server.db, merchant.storeId);
  otherCatalog = await seedCatalog(server.db, other.storeId);
  serviceLocationId = (await createLocation(server.db.prisma, service.storeId, { name: '3PL Reno' })).id;
});

afterAll(async () => {
  for (const stream of streams) stream.close();
  if (writer !== server) await writer?.close();
  await writerDb?.close();
  await server?.close();
});

describe('inventoryLevelUpdated', () => {
  it('brings a change committed through the other instance within 5 s, with the selection read after the commit', async () => {
    const stream = await open(merchant.secret, LEVELS, { prd: catalog.productIds[1] });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const started = Date.now();
    const levelId = await adjust(merchant, catalog.productIds[1], catalog.warehouseId, 5);
    const event = payloadOf<{ inventoryLevelUpdated: { id: string; quantity: number; location: { id: string }; inventoryProduct: { id: string } } }>(await stream.nextEvent(5_000));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(event.errors).toBeUndefined();
    expect(event.data!.inventoryLevelUpdated).toMatchObject({ id: levelId, location: { id: catalog.warehouseId }, inventoryProduct: { id: catalog.productIds[1] } });
    const levels = await graphql(server, merchant.secret, `query($id: ID!) { inventoryLevel(id: $id) { quantity } }`, { id: levelId });
    expect(event.data!.inventoryLevelUpdated.quantity).toBe((levels.data as { inventoryLevel: { quantity: number } }).inventoryLevel.quantity);
    stream.close();
  });

  it('filters by location and product, over GET too', async () => {
    const stream = await open(merchant.secret, LEVELS, { loc: catalog.storeRoomId, prd: catalog.productIds[2] }, 'GET');
    await adjust(merchant, catalog.productIds[2], catalog.warehouseId, 1);
    await adjust(merchant, catalog.productIds[3], catalog.storeRoomId, 1);
    const wanted = await adjust(merchant, catalog.productIds[2], catalog.storeRoomId, 2);
    const event = payloadOf<{ inventoryLevelUpdated: { id: string } }>(await stream.nextEvent());
    expect(event.data!.inventoryLevelUpdated.id).toBe(wanted);
    stream.close();
  });

  it("never shows another store's changes, and a fulfillment service sees the levels at its own locations", async () => {
    const otherStream = await open(other.secret, LEVELS);
    const serviceStream = await open(service.secret, LEVELS);
    await adjust(merchant, catalog.productIds[0], catalog.warehouseId, 1);
    const atService = await adjust(merchant, catalog.productIds[0], serviceLocationId, 4);
    const own = await adjust(other, otherCatalog.productIds[0], otherCatalog.warehouseId, 1);
    // Events arrive in commit order: the other store's first event is its own change, so the merchant's two never reached it.
    expect(payloadOf<{ inventoryLevelUpdated: { id: string } }>(await otherStream.nextEvent()).data!.inventoryLevelUpdated.id).toBe(own);
    // The service hears the level at its location, not the one at the merchant's warehouse.
    const seen = payloadOf<{ inventoryLevelUpdated: { id: string; inventoryProduct: { id: string } } }>(await serviceStream.nextEvent());
    expect(seen.errors).toBeUndefined();
    expect(seen.data!.inventoryLevelUpdated).toMatchObject({ id: atService, inventoryProduct: { id: catalog.productIds[0] } });
    otherStream.close();
    serviceStream.close();
  });

  it('refuses a client without inventory_read when subscribing, and it hears nothing', async () => {
    const { secret } = await addApiClient(server.db, merchant.storeId, ['returns_read']);
    const stream = await open(secret, LEVELS);
    const refused = payloadOf(await stream.nextEvent());
    expect(refused.errors?.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN']);
    expect(refused.data ?? null).toBeNull();
    expect((await stream.nextEvent()).event).toBe('complete');
    expect(await stream.ended).toBe('complete');
  });

  it('sends heartbeats while nothing changes', async () => {
    const stream = await open(merchant.secret, LEVELS, { prd: catalog.productIds[3], loc: serviceLocationId });
    // The first comment goes out with the head; under test the next ones every 300 ms (12 s in production).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(stream.heartbeats()).toBeGreaterThanOrEqual(2);
    stream.close();
  });
});

describe('returnUpdated', () => {
  it('brings creation and each status change, filtered by status', async () => {
    const all = await open(merchant.secret, RETURNS);
    const flaggedOnly = await open(merchant.secret, RETURNS, { status: ['FLAGGED'] });
    const order = await createTestOrder(server.db, merchant.storeId);
    const created = await graphql(writer, merchant.secret, `mutation($input: ReturnCreateInput!) { returnCreate(input: $input) { ... on ReturnCreatePayload { return { id } } } }`, {
      input: { orderId: order.id, items: [{ lineItemId: order.lineItems[0].id, quantity: 1, reason: 'Too small' }] },
    });
    const returnId = (created.data as { returnCreate: { return?: { id: string } } } | null)?.returnCreate.return?.id;
    expect(returnId, JSON.stringify(created)).toBeDefined();
    await flagReturn(writer.db.prisma, merchant.storeId, { id: returnId });
    expect(payloadOf(await all.nextEvent()).data).toEqual({ returnUpdated: { id: returnId, status: 'OPEN' } });
    expect(payloadOf(await all.nextEvent()).data).toEqual({ returnUpdated: { id: returnId, status: 'FLAGGED' } });
    expect(payloadOf(await flaggedOnly.nextEvent()).data).toEqual({ returnUpdated: { id: returnId, status: 'FLAGGED' } });
    all.close();
    flaggedOnly.close();
  });

  it('is not heard by a client without returns_read, nor by another store', async () => {
    const { secret } = await addApiClient(server.db, merchant.storeId, ['inventory_read']);
    const refused = await open(secret, RETURNS);
    expect(payloadOf(await refused.nextEvent()).errors?.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN']);
    const otherStream = await open(other.secret, RETURNS);
    const merchantReturn = await insertTestReturn(server.db, merchant.storeId, await createTestOrder(server.db, merchant.storeId));
    await processReturn(writer.db.prisma, merchant.storeId, { id: merchantReturn.id });
    const ownReturn = await insertTestReturn(server.db, other.storeId, await createTestOrder(server.db, other.storeId));
    await flagReturn(writer.db.prisma, other.storeId, { id: ownReturn.id });
    expect(payloadOf(await otherStream.nextEvent()).data).toEqual({ returnUpdated: { id: ownReturn.id, status: 'FLAGGED' } });
    otherStream.close();
  });
});

describe('limits', () => {
  it('refuses a client past its open subscriptions with 429, and frees the slot when one closes', async () => {
    const { secret } = await addApiClient(server.db, merchant.storeId, ['inventory_read']);
    const held = [await open(secret, LEVELS), await open(secret, LEVELS), await open(secret, LEVELS)];
    expect(held.map((s) => s.status)).toEqual([200, 200, 200]);
    const refused = await fetch(`${server.url}/v3/graphql`, {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ query: LEVELS }),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe('TOO_MANY_SUBSCRIPTIONS');
    // Another client of the same store has its own allowance; queries need no slot.
    expect((await open(merchant.secret, LEVELS)).status).toBe(200);
    expect((await graphql(server, secret, `{ inventoryLevels(first: 1) { nodes { id } } }`)).status).toBe(200);

    held[0].close();
    await expect.poll(async () => (await subscribe(server, secret, LEVELS).then((s) => (streams.push(s), s.status))), { timeout: 3_000 }).toBe(200);
  });

  it('disconnects a reader that falls behind instead of buffering for it', async () => {
    // A big event (a long location name, selected 900 times over), so that a few fill the sockets' buffers once the client stops reading.
    const wideLocation = (await createLocation(server.db.prisma, merchant.storeId, { name: 'W'.repeat(255) })).id;
    const wide = `subscription($loc: ID) { inventoryLevelUpdated(locationId: $loc) { location { ${Array.from({ length: 900 }, (_, i) => `n${i}: name`).join(' ')} } } }`;
    const { secret } = await addApiClient(server.db, merchant.storeId, ['inventory_read', 'locations_read']);
    const dropped = async () => Number(/graphql_subscriptions_dropped_total\{reason="slow"\} (\d+)/.exec(await (await fetch(`${server.url}/metrics`)).text())?.[1] ?? 0);
    const before = await dropped();
    const stalled = await stalledSubscription(server, secret, wide, { loc: wideLocation });
    // Cut once its stream has asked for nothing for a second with 4 events waiting (the test server's limit). Changes
    // come at a pace the service keeps up with, so that the backlog is the client's, never 16 times the limit.
    let adjustments = 0;
    const giveUp = Date.now() + 15_000;
    while ((await dropped()) === before && Date.now() < giveUp) {
      await adjust(merchant, catalog.productIds[3], wideLocation, 1);
      adjustments++;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await dropped()).toBe(before + 1);
    // The connection was cut: once the client reads again it gets what the sockets held, then the end, with no `complete` event.
    const rest = await stalled.resume();
    expect(rest.ended).toBe('cut');
    expect(rest.text).not.toContain('event: complete');
    expect(rest.text.split('event: next').length - 1).toBeLessThan(adjustments);
  });
});

describe('shutdown', () => {
  it('completes every open subscription before the server stops, and the stream ends cleanly', async () => {
    const leaving = await startTestServer({}, {}, { db: server.db });
    const stream = await subscribe(leaving, merchant.secret, RETURNS);
    streams.push(stream);
    const stopped = leaving.app.shutdown(5_000);
    expect((await stream.nextEvent(5_000)).event).toBe('complete');
    expect(await stream.ended).toBe('complete');
    await stopped;
    expect(leaving.app.server.listening).toBe(false);
  });
});

describe.runIf(onPostgres)('through Redis (REDIS_URL)', () => {
  const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const relayLocks = async () =>
    (await server.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`))[0].n;

  it('relays through one instance to the others, and another takes over when it goes', async () => {
    const relayDb = await openDatabase(server.db.url);
    const followerDb = await openDatabase(server.db.url);
    const relay = await startTestServer({ redisUrl: REDIS_URL }, {}, { db: relayDb });
    await expect.poll(relayLocks, { timeout: 5_000 }).toBe(1);
    const follower = await startTestServer({ redisUrl: REDIS_URL }, {}, { db: followerDb });
    try {
      const before = await subscribe(follower, merchant.secret, LEVELS, { prd: catalog.productIds[1] });
      streams.push(before);
      // Committed through an instance without Redis: the relay hears the NOTIFY, the follower hears Redis.
      const levelId = await adjust(merchant, catalog.productIds[1], catalog.warehouseId, 1);
      expect(payloadOf<{ inventoryLevelUpdated: { id: string } }>(await before.nextEvent(5_000)).data!.inventoryLevelUpdated.id).toBe(levelId);

      await relay.close();
      // The follower takes the relay over and, since changes in between reached no one, ends what its clients had open.
      expect((await before.nextEvent(5_000)).event).toBe('complete');
      const after = await subscribe(follower, merchant.secret, LEVELS, { prd: catalog.productIds[1] });
      streams.push(after);
      await adjust(merchant, catalog.productIds[1], catalog.warehouseId, 1);
      expect(payloadOf<{ inventoryLevelUpdated: { id: string } }>(await after.nextEvent(5_000)).data!.inventoryLevelUpdated.id).toBe(levelId);
    } finally {
      await relay.close().catch(() => undefined);
      await follower.close();
      await relayDb.close();
      await followerDb.close();
    }
  });
});

/** A subscription whose client reads the head and then nothing, until `resume` reads the rest to the connection's end. */
async function stalledSubscription(
  target: TestServer,
  secret: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<{ resume(): Promise<{ text: string; ended: 'complete' | 'cut' }> }> {
  const url = new URL(`${target.url}/v3/graphql`);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${secret}` } },
      (response) => {
        if (response.statusCode !== 200) return reject(new Error(`status ${response.statusCode}`));
        response.pause();
        resolve({
          resume: () =>
            new Promise((done) => {
              let text = '';
              response.setEncoding('utf8');
              response.on('data', (chunk: string) => (text += chunk));
              response.on('end', () => done({ text, ended: 'complete' }));
              response.on('aborted', () => done({ text, ended: 'cut' }));
              response.on('error', () => done({ text, ended: 'cut' }));
              response.resume();
            }),
        });
      },
    );
    request.on('error', () => undefined);
    request.end(JSON.stringify({ query, variables }));
  });
}
