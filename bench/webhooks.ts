// Webhook deliveries per second from the outbox to a local receiver on 127.0.0.1, on
// PostgreSQL, with one dispatcher and with two (each with its own connection pool, as
// two service instances would run). A backlog of EVENTS events over SUBJECTS subjects
// is queued, then drained; the receiver checks during the run that no subject ever has
// two deliveries in flight and that every subject's events arrive in order. Run for a
// receiver that answers at once and for one that takes RECEIVER_DELAY_MS per request,
// and for REDO subscribers, whose bodies show each return as it is when delivered (read
// through the schema, a claim's returns together).
// Then the claim's independence of the backlog: one event for each of LARGE_SUBJECTS
// subjects pending, and the rate of the first EVENTS deliveries out of it, against the
// same number of deliveries when only SUBJECTS subjects are pending. EVENTS is large enough
// for the sustained rate: a dispatcher starts on a cold pool and cold receiver sockets, and
// over the first 3,000 deliveries that start-up cost about a third of the rate (1,920/s
// against 3,128/s over 10,000, same machine, back to back).
import { scratchDatabase } from './scratchDatabase.ts';
import { openDatabase } from '../src/db/client.ts';
import type { Database } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createStore } from '../src/domain/stores.ts';
import { createWebhookSubscription, systemLookup, type AddressPolicy } from '../src/domain/webhooks.ts';
import { contextServices } from '../src/process/contextServices.ts';
import { contextFactory } from '../src/schema/context.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/observability/logger.ts';
import { countNewDeliveries, DEFAULT_CONCURRENCY, WebhookDispatcher } from '../src/webhooks/dispatcher.ts';
import { newId } from '../src/domain/ids.ts';
import { createTestOrder, insertTestReturn } from '../test/support/returnFixtures.ts';
import { insertEvents, orderViolations, startReceiver, waitFor } from '../test/webhooks/support.ts';

/** The bench's receiver listens on 127.0.0.1. */
const LOOPBACK: AddressPolicy = { allowLoopback: true, lookup: systemLookup };

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const SUBJECTS = 100;
const CONCURRENCY = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? DEFAULT_CONCURRENCY);
const LARGE_SUBJECTS = Number(process.env.BENCH_WEBHOOK_LARGE_SUBJECTS ?? 100_000);
const RECEIVER_DELAY_MS = 5;

interface Result {
  payload: 'NATIVE' | 'REDO';
  subjects: number;
  dispatchers: number;
  receiverDelayMs: number;
  seconds: number;
  perSecond: number;
  /** Null for REDO bodies, which carry the return, not the event's sequence. */
  orderViolations: number | null;
  overlaps: number;
}

async function measure(
  db: Database,
  url: string,
  dispatcherCount: number,
  receiverDelayMs: number,
  subjects = SUBJECTS,
  payload: Result['payload'] = 'NATIVE',
): Promise<Result> {
  const busySubjects = new Set<string>();
  let overlaps = 0;
  const subjectOf = (body: { subjectId?: string; return?: { id: string } }) => (payload === 'REDO' ? body.return!.id : body.subjectId!);
  const receiver = await startReceiver(async ({ body }) => {
    const subject = subjectOf(body as never);
    if (busySubjects.has(subject)) overlaps++;
    busySubjects.add(subject);
    if (receiverDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, receiverDelayMs));
    busySubjects.delete(subject);
    return { status: 200 };
  });
  const { id: storeId } = await createStore(db.prisma, { name: `bench ${payload} ${dispatcherCount}/${receiverDelayMs}` });
  let subscription: { id: string };
  let subjectIds: string[];
  if (payload === 'REDO') {
    subjectIds = [];
    for (let i = 0; i < subjects; i++) {
      const order = await createTestOrder(db, storeId, { lines: [{ price: '12.50' }, { price: '4.00' }, { price: '30.00' }], customerEmail: `buyer${i}@example.com` });
      subjectIds.push((await insertTestReturn(db, storeId, order)).id);
    }
    subscription = await db.prisma.webhookSubscription.create({
      data: { id: newId('webhookSubscription'), storeId, url: receiver.url, topics: ['return.updated'], payload: 'REDO' },
    });
  } else {
    subjectIds = Array.from({ length: subjects }, (_, i) => `li_bench${i}`);
    subscription = await createWebhookSubscription(db.prisma, storeId, { url: receiver.url, topics: ['inventory_level.updated'] }, LOOPBACK);
  }
  const backlog = Math.max(EVENTS, subjects);
  const events = Array.from({ length: backlog }, (_, i) => ({
    topic: payload === 'REDO' ? ('return.updated' as const) : ('inventory_level.updated' as const),
    subjectId: subjectIds[i % subjects],
    data: { n: Math.floor(i / subjects) + 1 },
  }));
  for (let i = 0; i < events.length; i += 1000) await insertEvents(db, { storeId, subscriptionId: subscription.id }, events.slice(i, i + 1000));

  const handles = await Promise.all(Array.from({ length: dispatcherCount }, () => openDatabase(url, { poolSize: 10 })));
  const dispatchers = handles.map(
    (handle) => {
      const logger = createLogger('warn');
      const services = contextServices({ ...loadConfig({}), webhooksAllowLoopback: true });
      return new WebhookDispatcher({ db: handle, logger, policy: LOOPBACK, newContext: contextFactory({ db: handle, logger, services }), concurrency: CONCURRENCY });
    },
  );
  // Counting the backlog into its queues is the producers' share of the work, as inserting it is: not timed.
  while (await countNewDeliveries(db));
  const started = performance.now();
  dispatchers.forEach((d) => d.start());
  await waitFor(() => receiver.requests.length >= EVENTS, `${EVENTS} deliveries`, 300_000, 5);
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(dispatchers.map((d) => d.stop()));
  await Promise.all(handles.map((h) => h.close()));
  await receiver.close();
  const delivered = await db.prisma.webhookDelivery.count({ where: { subscriptionId: subscription.id, status: 'DELIVERED' } });
  if (delivered < EVENTS) throw new Error(`expected at least ${EVENTS} delivered, found ${delivered}`);
  // A large backlog is left behind: its deliveries would slow the next measurement's claims.
  await db.prisma.webhookSubscription.delete({ where: { id: subscription.id } });
  return {
    payload,
    subjects,
    dispatchers: dispatcherCount,
    receiverDelayMs,
    seconds,
    perSecond: EVENTS / seconds,
    orderViolations: payload === 'REDO' ? null : orderViolations(receiver.requests).length,
    overlaps,
  };
}

export async function run(): Promise<void> {
  const scratch = await scratchDatabase('webhooks');
  const db = await openDatabase(scratch.url, { poolSize: 4 });
  const results: Result[] = [];
  try {
    await applyMigrations(db);
    for (const delay of [0, RECEIVER_DELAY_MS]) {
      for (const count of [1, 2]) results.push(await measure(db, scratch.url, count, delay));
    }
    results.push(await measure(db, scratch.url, 1, 0, LARGE_SUBJECTS));
    results.push(await measure(db, scratch.url, 1, 0, SUBJECTS, 'REDO'));
  } finally {
    await db.close();
    await scratch.drop();
  }
  process.stdout.write(`PostgreSQL, the first ${EVENTS} deliveries of a backlog over N pending subjects, ${CONCURRENCY} in flight per dispatcher\n`);
  process.stdout.write('payload  pending subjects  dispatchers  receiver delay  seconds  deliveries/s  order violations  same-subject overlaps\n');
  for (const r of results) {
    process.stdout.write(
      `${r.payload.padEnd(7)}  ${String(r.subjects).padStart(16)}  ${String(r.dispatchers).padStart(11)}  ${`${r.receiverDelayMs} ms`.padStart(14)}  ` +
        `${r.seconds.toFixed(2).padStart(7)}  ${r.perSecond.toFixed(0).padStart(12)}  ${String(r.orderViolations ?? '-').padStart(16)}  ${String(r.overlaps).padStart(21)}\n`,
    );
  }
  const native = results.filter((r) => r.payload === 'NATIVE');
  const [small, large] = [native[0], native.at(-1)!];
  process.stdout.write(`${LARGE_SUBJECTS} / ${SUBJECTS} pending subjects, one dispatcher: ${(large.perSecond / small.perSecond).toFixed(2)}x the rate\n`);
  for (const delay of [0, RECEIVER_DELAY_MS]) {
    const [one, two] = native.filter((r) => r.receiverDelayMs === delay && r.subjects === SUBJECTS);
    process.stdout.write(`2 dispatchers / 1 dispatcher (receiver ${delay} ms): ${(two.perSecond / one.perSecond).toFixed(2)}x\n`);
  }
  if (results.some((r) => (r.orderViolations ?? 0) > 0 || r.overlaps > 0)) throw new Error('per-subject order was violated during the run');
}
