// Two dispatchers on one database (on PostgreSQL each with its own connection pool,
// as two service instances would be): no event is delivered twice at once or twice
// at all unless its attempt failed, no subject has two deliveries in flight, and
// per-subject order holds while events keep being written and some attempts fail.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import type { Database } from '../../src/db/database.ts';
import { recordEvent } from '../../src/domain/events.ts';
import { systemLookup } from '../../src/domain/webhooks.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { createTestStore, startTestServer, type TestServer } from '../support/server.ts';
import { orderViolations, startReceiver, subscribe, waitFor, type Receiver } from './support.ts';
import { testContexts } from '../support/contexts.ts';

// Fewer subjects than the two dispatchers have slots, so that only the ordering rule
// keeps a subject's later events from being claimed while an earlier one is in flight.
const SUBJECTS = 10;
const ROUNDS = 30;
/** Rounds queued before the dispatchers start; the rest is written while they run. */
const BACKLOG_ROUNDS = 15;
const EVENTS = SUBJECTS * ROUNDS;
const failsFirst = (n: number) => n % 5 === 0;

let server: TestServer;
let receiver: Receiver;
const extraDatabases: Database[] = [];

beforeAll(async () => {
  server = await startTestServer({ webhooksAllowLoopback: true });
});
afterAll(async () => {
  await receiver?.close();
  await Promise.all(extraDatabases.map((db) => db.close()));
  await server?.close();
});

/** A second handle on the same database, as another instance would open it; PGlite in memory has only the one. */
async function anotherHandle(): Promise<Database> {
  if (server.db.kind !== 'postgresql') return server.db;
  const db = await openDatabase(server.db.url, { poolSize: 4 });
  extraDatabases.push(db);
  return db;
}

it('two dispatchers deliver each event once at a time and keep per-subject order', async () => {
  const store = await createTestStore(server.db);
  const inFlightSubjects = new Set<string>();
  const seenOnce = new Set<string>();
  const violations: string[] = [];
  receiver = await startReceiver(async (request, r) => {
    const { id, subjectId, data } = request.body;
    if (r.inFlight.get(id)! > 1) violations.push(`event ${id} delivered twice at once`);
    if (inFlightSubjects.has(subjectId)) violations.push(`two deliveries of ${subjectId} at once`);
    inFlightSubjects.add(subjectId);
    await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 4)));
    inFlightSubjects.delete(subjectId);
    const firstSight = !seenOnce.has(id);
    seenOnce.add(id);
    return { status: failsFirst(data.n!) && firstSight ? 500 : 200 };
  });
  const res = await subscribe(server, store.secret, { url: receiver.url, topics: ['inventory_level.updated'] });
  expect(res.subscription).toBeDefined();

  // Each dispatcher's claims are counted on its own view of the database.
  const claimedBy = { a: 0, b: 0 };
  const counting = (handle: Database, name: keyof typeof claimedBy): Database => ({
    ...handle,
    sql: {
      exec: (script) => handle.sql.exec(script),
      async query<T>(text: string, params?: unknown[]) {
        const rows = await handle.sql.query<T>(text, params);
        if (text.includes('"lockedBy" = $1, "lockedUntil"')) claimedBy[name] += rows.length;
        return rows;
      },
    },
  });
  const dispatchers = await Promise.all(
    (['a', 'b'] as const).map(
      async (name) =>
        new WebhookDispatcher({
          db: counting(await anotherHandle(), name),
          logger: createLogger('silent'),
          policy: { allowLoopback: true, lookup: systemLookup },
          newContext: testContexts(server.db),
          retry: { firstDelayMs: 5, maxDelayMs: 20, maxAttempts: 5 },
          concurrency: 8,
          pollIntervalMs: 50,
          instanceId: `dispatcher-${name}`,
        }),
    ),
  );
  const writeRound = (n: number) =>
    server.db.prisma.$transaction(async (tx) => {
      for (let s = 0; s < SUBJECTS; s++) {
        await recordEvent(tx, { storeId: store.storeId, topic: 'inventory_level.updated', subjectId: `li_subject${s}`, data: { n } });
      }
    });
  for (let n = 1; n <= BACKLOG_ROUNDS; n++) await writeRound(n);
  dispatchers.forEach((d) => d.start());

  try {
    for (let n = BACKLOG_ROUNDS + 1; n <= ROUNDS; n++) await writeRound(n);
    await waitFor(
      async () => (await server.db.prisma.webhookDelivery.count({ where: { status: 'DELIVERED' } })) === EVENTS,
      'every event to be delivered',
      45_000,
      100,
    );
  } finally {
    await Promise.all(dispatchers.map((d) => d.stop()));
  }

  expect(violations).toEqual([]);
  expect(orderViolations(receiver.requests)).toEqual([]);
  const receipts = new Map<string, number>();
  for (const { body } of receiver.requests) receipts.set(body.id, (receipts.get(body.id) ?? 0) + 1);
  expect(receipts.size).toBe(EVENTS);
  const wrongCounts = receiver.requests
    .filter(({ body }) => receipts.get(body.id) !== (failsFirst(body.data.n!) ? 2 : 1))
    .map(({ body }) => `${body.subjectId}#${body.data.n} x${receipts.get(body.id)}`);
  expect(wrongCounts).toEqual([]);
  // Both took part: every attempt was claimed by one of them, and each claimed some.
  expect(claimedBy.a + claimedBy.b).toBe(receiver.requests.length);
  expect(claimedBy.a).toBeGreaterThan(0);
  expect(claimedBy.b).toBeGreaterThan(0);
}, 60_000);
