// The service (`src/main.ts` in a child process, with its dispatcher) is killed with
// SIGKILL in the middle of a burst of 1,000 events over 50 subjects; more events are
// written while it is down; after a restart every event is delivered at least once,
// per-subject order holds, and the only duplicates are deliveries that were in flight
// (claimed, not yet recorded) at the kill. Runs against a PostgreSQL database when
// TEST_DATABASE_URL is set. On PGlite it runs only when WEBHOOK_CRASH_TEST_PGLITE=true:
// one process owns a PGlite directory, so the test and the two services open it from
// disk in turn, and those start-ups alone take about 30 of the 60 seconds a test may
// use on a 2-core machine (the whole run passes in ~45 s when nothing else runs, but
// not beside other test files).
import type { ChildProcess } from 'node:child_process';
import { afterAll, expect, it } from 'vitest';
import { createStore } from '../../src/domain/stores.ts';
import { createWebhookSubscription } from '../../src/domain/webhooks.ts';
import { createRestartableDatabase } from '../support/db.ts';
import { exited, startService as startChildService } from '../support/service.ts';
import { insertEvents, orderViolations, startReceiver, waitFor, type Receiver } from './support.ts';
import { LOOPBACK_ALLOWED } from '../support/contexts.ts';

const SUBJECTS = 50;
const ROUNDS_BEFORE_KILL = 10;
const ROUNDS = 20;
const KILL_AFTER_RECEIVED = 150;

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function startService(url: string): Promise<ChildProcess> {
  const { child } = await startChildService(url);
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return child;
}

function burst(rounds: [number, number]) {
  const events = [];
  for (let n = rounds[0]; n <= rounds[1]; n++) {
    for (let s = 0; s < SUBJECTS; s++) events.push({ topic: 'inbound_shipment.updated' as const, subjectId: `inb_subject${s}`, data: { n } });
  }
  return events;
}

const skipOnPGlite = !process.env.TEST_DATABASE_URL && process.env.WEBHOOK_CRASH_TEST_PGLITE !== 'true';

it.skipIf(skipOnPGlite)('delivers every event at least once and in per-subject order across a SIGKILL and a restart (on PGlite only with WEBHOOK_CRASH_TEST_PGLITE=true: see above)', async () => {
  const db = await createRestartableDatabase('webhook-crash');
  cleanups.push(() => db.close());
  let service: ChildProcess | undefined;
  const receiver: Receiver = await startReceiver(async (_request, r) => {
    if (r.requests.length === KILL_AFTER_RECEIVED) service?.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 5)));
    return { status: 200 };
  });
  cleanups.push(() => receiver.close());

  const setup = await db.use(async (conn) => {
    const { id: storeId } = await createStore(conn.prisma, { name: 'Crash test store' });
    const subscription = await createWebhookSubscription(conn.prisma, storeId, { url: `${receiver.url}/in`, topics: ['inbound_shipment.updated'] }, LOOPBACK_ALLOWED);
    const target = { storeId, subscriptionId: subscription.id };
    await insertEvents(conn, target, burst([1, ROUNDS_BEFORE_KILL]));
    return target;
  });

  service = await startService(db.url);
  await exited(service);
  expect(service.signalCode).toBe('SIGKILL');

  // What the killed dispatcher held: claimed, possibly sent, never recorded.
  const inFlightAtKill = await db.use(async (conn) => {
    const held = await conn.prisma.webhookDelivery.findMany({ where: { status: 'PENDING', lockedBy: { not: null } }, select: { eventId: true } });
    await insertEvents(conn, setup, burst([ROUNDS_BEFORE_KILL + 1, ROUNDS]));
    return new Set(held.map((d) => d.eventId));
  });
  const receivedAtKill = receiver.requests.length;

  service = await startService(db.url);
  await waitFor(() => new Set(receiver.requests.map((r) => r.body.id)).size === SUBJECTS * ROUNDS, 'every event to arrive', 50_000, 100);
  service.kill('SIGTERM');
  await exited(service);

  const statuses = await db.use((conn) => conn.prisma.webhookDelivery.groupBy({ by: ['status'], _count: true }));
  expect(statuses).toEqual([{ status: 'DELIVERED', _count: SUBJECTS * ROUNDS }]);

  const receipts = new Map<string, number>();
  for (const { body } of receiver.requests) receipts.set(body.id, (receipts.get(body.id) ?? 0) + 1);
  const duplicates = [...receipts].filter(([, count]) => count > 1).map(([id]) => id);
  process.stdout.write(
    `crash test (${db.url.startsWith('pglite:') ? 'PGlite' : 'PostgreSQL'}): ${receivedAtKill} requests before the kill, ` +
      `${inFlightAtKill.size} deliveries in flight at the kill, ${duplicates.length} events received twice, ` +
      `${receiver.requests.length} requests for ${receipts.size} events\n`,
  );
  expect(receivedAtKill).toBeGreaterThanOrEqual(KILL_AFTER_RECEIVED);
  expect(receivedAtKill).toBeLessThan(SUBJECTS * ROUNDS_BEFORE_KILL);
  expect(duplicates.filter((id) => !inFlightAtKill.has(id))).toEqual([]);
  expect(orderViolations(receiver.requests)).toEqual([]);
}, 60_000);
