// Retention of the webhook history (WEBHOOK_RETENTION_DAYS): finished deliveries older
// than the age go, with their attempts, then old events nothing refers to any more;
// pending deliveries, recent ones and the events they need stay. The background work
// runs it on its own.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { startBackgroundWork } from '../../src/process/background.ts';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { newId } from '../../src/domain/ids.ts';
import { createStore } from '../../src/domain/stores.ts';
import { createWebhookSubscription } from '../../src/domain/webhooks.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { pruneWebhookHistory } from '../../src/webhooks/retention.ts';
import { createTestDatabase } from '../support/db.ts';
import { insertEvents, waitFor } from './support.ts';
import { LOOPBACK_ALLOWED } from '../support/contexts.ts';

let db: Database;
let target: { storeId: string; subscriptionId: string };

beforeAll(async () => {
  db = await createTestDatabase();
  const { id: storeId } = await createStore(db.prisma, { name: 'Retention store' });
  const subscription = await createWebhookSubscription(db.prisma, storeId, { url: 'http://127.0.0.1:9/in', topics: ['customer.updated'] }, LOOPBACK_ALLOWED);
  target = { storeId, subscriptionId: subscription.id };
});
afterAll(async () => db?.close());
beforeEach(async () => {
  await db.sql.exec(`DELETE FROM "Event"`);
});

const AGO = (days: number) => `(now() AT TIME ZONE 'UTC') - interval '${days} days'`;

/** One event per case, aged and finished as the case says; returns the event ids by case. */
async function history() {
  const cases = {
    deliveredLongAgo: { eventAge: 41, status: 'DELIVERED', completedAge: 40 },
    discardedLongAgo: { eventAge: 41, status: 'DISCARDED', completedAge: 40 },
    deliveredLately: { eventAge: 41, status: 'DELIVERED', completedAge: 10 },
    stillPending: { eventAge: 41, status: 'PENDING', completedAge: null },
    deliveredToday: { eventAge: 0, status: 'DELIVERED', completedAge: 0 },
  } as const;
  const names = Object.keys(cases) as (keyof typeof cases)[];
  const ids = await insertEvents(
    db,
    target,
    names.map((name, n) => ({ topic: 'customer.updated' as const, subjectId: `cus_${name}`, data: { n } })),
  );
  const byCase = Object.fromEntries(names.map((name, i) => [name, ids[i]])) as Record<keyof typeof cases | 'unsubscribedOld' | 'unsubscribedNew', string>;
  for (const name of names) {
    const { eventAge, status, completedAge } = cases[name];
    await db.sql.query(`UPDATE "Event" SET "createdAt" = ${AGO(eventAge)} WHERE id = $1`, [byCase[name]]);
    await db.sql.query(
      `UPDATE "WebhookDelivery" SET status = $2::text::"DeliveryStatus", "attemptCount" = 1,
         "completedAt" = ${completedAge === null ? 'NULL' : AGO(completedAge)} WHERE "eventId" = $1`,
      [byCase[name], status],
    );
    await db.sql.query(
      `INSERT INTO "DeliveryAttempt" (id, "deliveryId", "attemptNumber", "startedAt", "durationMs", "responseStatus")
       SELECT $2, id, 1, "createdAt", 5, 200 FROM "WebhookDelivery" WHERE "eventId" = $1`,
      [byCase[name], newId('deliveryAttempt')],
    );
  }
  // Events no subscription wanted: only their age counts.
  for (const [name, age] of [['unsubscribedOld', 41], ['unsubscribedNew', 5]] as const) {
    byCase[name] = newId('event');
    await db.sql.query(
      `INSERT INTO "Event" (id, "storeId", topic, "subjectId", data, "createdAt") VALUES ($1, $2, 'customer.created', $3, '{}', ${AGO(age)})`,
      [byCase[name], target.storeId, `cus_${name}`],
    );
  }
  return byCase;
}

async function remaining() {
  const events = await db.prisma.event.findMany({ select: { id: true } });
  const deliveries = await db.prisma.webhookDelivery.findMany({ select: { eventId: true, _count: { select: { attempts: true } } } });
  return {
    events: new Set(events.map((e) => e.id)),
    deliveries: new Map(deliveries.map((d) => [d.eventId, d._count.attempts])),
  };
}

it('deletes only finished deliveries (with their attempts) and unreferenced events older than the retention age, a batch at a time', async () => {
  const ids = await history();
  const result = await pruneWebhookHistory(db, { retentionDays: 30, batchSize: 1 });
  expect(result).toEqual({ deliveries: 2, events: 3, queues: 0 });

  const left = await remaining();
  const gone = ['deliveredLongAgo', 'discardedLongAgo', 'unsubscribedOld'] as const;
  const kept = ['deliveredLately', 'stillPending', 'deliveredToday', 'unsubscribedNew'] as const;
  for (const name of gone) expect(left.events.has(ids[name]), name).toBe(false);
  for (const name of kept) expect(left.events.has(ids[name]), name).toBe(true);
  expect([...left.deliveries.keys()].sort()).toEqual([ids.deliveredLately, ids.stillPending, ids.deliveredToday].sort());
  expect([...left.deliveries.values()]).toEqual([1, 1, 1]);
  const orphanAttempts = await db.sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM "DeliveryAttempt" a WHERE NOT EXISTS (SELECT 1 FROM "WebhookDelivery" d WHERE d.id = a."deliveryId")`,
  );
  expect(orphanAttempts[0].n).toBe(0);

  expect(await pruneWebhookHistory(db, { retentionDays: 30 })).toEqual({ deliveries: 0, events: 0, queues: 0 });
});

it('deletes the queues of subjects with nothing pending, and only those', async () => {
  await db.sql.query(
    `INSERT INTO "WebhookQueue" ("subscriptionId", "subjectId", pending, "dueAt") VALUES ($1, 'cus_idle', 0, NULL), ($1, 'cus_busy', 2, now())`,
    [target.subscriptionId],
  );
  expect(await pruneWebhookHistory(db, { retentionDays: 30 })).toEqual({ deliveries: 0, events: 0, queues: 1 });
  const left = await db.sql.query<{ subjectId: string }>(`SELECT "subjectId" FROM "WebhookQueue" WHERE "subscriptionId" = $1`, [target.subscriptionId]);
  expect(left.map((q) => q.subjectId)).toEqual(['cus_busy']);
  await db.sql.query(`DELETE FROM "WebhookQueue" WHERE "subscriptionId" = $1`, [target.subscriptionId]);
});

it('stops after maxBatches statements and leaves the rest for the next run', async () => {
  await history();
  expect(await pruneWebhookHistory(db, { retentionDays: 30, batchSize: 1, maxBatches: 1 })).toEqual({ deliveries: 1, events: 1, queues: 0 });
  expect(await pruneWebhookHistory(db, { retentionDays: 30, batchSize: 1, maxBatches: 1 })).toEqual({ deliveries: 1, events: 1, queues: 0 });
});

it('takes the age from WEBHOOK_RETENTION_DAYS and runs in the background work', async () => {
  const ids = await history();
  const config = loadConfig({ WEBHOOK_RETENTION_DAYS: '7', WEBHOOK_DISPATCHER: 'false' });
  expect(config.webhookRetentionDays).toBe(7);
  expect(loadConfig({}).webhookRetentionDays).toBe(30);
  expect(() => loadConfig({ WEBHOOK_RETENTION_DAYS: '0' })).toThrow(/WEBHOOK_RETENTION_DAYS/);

  const background = startBackgroundWork({ db, config, logger: createLogger('silent'), pruneIntervalMs: 20 });
  try {
    await waitFor(async () => !(await remaining()).events.has(ids.deliveredLately), 'the 10-day-old delivery and its event to go', 10_000);
  } finally {
    await background.stop();
  }
  const left = await remaining();
  expect([...left.events].sort()).toEqual([ids.stillPending, ids.deliveredToday, ids.unsubscribedNew].sort());
  expect([...left.deliveries.keys()].sort()).toEqual([ids.stillPending, ids.deliveredToday].sort());
});
