// The audit trail below the doors: the triggers record every change of an audited table in
// the change's own transaction, with the actor, door, operation and request id of the scope
// it ran in, and only the columns it changed; a transaction that rolls back leaves nothing;
// jobs are named; retention deletes old entries only, a bounded batch at a time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundWork } from '../../src/process/background.ts';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { AUDITED_KINDS, pruneAuditTrail } from '../../src/domain/audit.ts';
import { upsertCustomer } from '../../src/domain/customers.ts';
import { seedDemo } from '../../src/domain/demo.ts';
import { isDomainError } from '../../src/domain/errors.ts';
import { deleteOrder } from '../../src/domain/fulfillments.ts';
import { newId } from '../../src/domain/ids.ts';
import { adjustInventory } from '../../src/domain/inventory.ts';
import { createOrder, type OrderInput } from '../../src/domain/orders.ts';
import { inRequestScope, type RequestScope } from '../../src/observability/requestScope.ts';
import { processReturn } from '../../src/domain/returns/operations.ts';
import { createApiClient, createStore } from '../../src/domain/stores.ts';
import { inTransaction } from '../../src/domain/tx.ts';
import { createWebhookSubscription, updateWebhookSubscription } from '../../src/domain/webhooks.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createTestDatabase } from '../support/db.ts';
import { seedLevel, seedLocation, seedProduct } from '../support/inventoryFixtures.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { LOOPBACK_ALLOWED } from '../support/contexts.ts';

/** Every table that is not audited, and why (the migration audit_trail says the same). */
const NOT_AUDITED: Record<string, string> = {
  _prisma_migrations: 'the migrations of the database',
  AuditEntry: 'the trail itself',
  MerchantSession: 'sign-ins: no change to the store data',
  ThrottleWindow: 'rate-limit windows',
  CustomerPhoneNumber: 'a lookup derived from Customer.phoneNumbers',
  CustomFieldOption: 'values seen, derived from CustomFieldValue',
  OrderCoverage: "derived from the order's lines",
  Invoice: 'charges derived from the sale or return',
  InvoiceItem: 'charges derived from the sale or return',
  InventoryAdjustment: "the ledger beside each audited change of a level",
  ReturnStatusChange: "the status history beside each audited change of a return",
  StorefrontEvent: 'the pixel stream, never changed once stored',
  Event: 'the outbox',
  WebhookDelivery: 'delivery machinery',
  WebhookQueue: 'delivery machinery',
  DeliveryAttempt: 'delivery machinery',
  IdempotencyKey: 'stored answers of requests',
  IdempotentRequest: 'stored answers of requests',
  BulkOperationLock: 'a lease',
  ReadPosition: "replica routing's positions",
  StoreChangeCounter: 'the change counter that answers validators, bumped by every write',
  PersistedQuery: 'stored GraphQL documents',
  ReturnBulkAction: "a bulk action's progress: each return it changes is audited as its own operation",
  ReturnsOverviewRollup: "the overview's sums, derived from the audited orders and returns",
  ReturnOverviewFact: "what a return counts for in the overview, derived from the audited return",
};

interface Entry {
  id: string;
  storeId: string | null;
  actorKind: string;
  actorId: string | null;
  actorName: string | null;
  door: string;
  operation: string | null;
  requestId: string | null;
  objectKind: string;
  objectId: string;
  parentKind: string | null;
  parentId: string | null;
  action: 'INSERT' | 'UPDATE' | 'DELETE';
  changes: Record<string, { before?: unknown; after?: unknown }>;
}

let db: Database;
let storeId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  storeId = (await createStore(db.prisma, { name: 'Audited store' })).id;
});
afterAll(async () => db?.close());

async function entries(where: string, params: unknown[] = []): Promise<Entry[]> {
  return db.sql.query<Entry>(`SELECT * FROM "AuditEntry" WHERE ${where} ORDER BY id`, params);
}

const count = async () => (await db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM "AuditEntry"'))[0].n;

function asClient(operation: string, requestId: string): RequestScope {
  return { requestId, door: 'rest', actor: { kind: 'api_client', id: 'apc_test', name: 'warehouse tool' }, storeId, operation };
}

function orderInput(orderId: string, lines = 2): OrderInput {
  return {
    orderId,
    createdAt: '2026-11-20T10:00:00Z',
    currency: 'USD',
    customer: { email: 'ada@example.com', firstName: 'Ada' },
    lineItems: Array.from({ length: lines }, (_, i) => ({ id: `line-${i}`, productId: `p-${i}`, title: `Item ${i}`, quantity: 1 + i, price: '12.50' })),
  };
}

describe('what the triggers cover', () => {
  it('audits every table but the ones left out on purpose, and AUDITED_KINDS names exactly the audited ones', async () => {
    const tables = (await db.sql.query<{ name: string }>(`SELECT tablename AS name FROM pg_catalog.pg_tables WHERE schemaname = 'public'`)).map((t) => t.name);
    const triggers = await db.sql.query<{ table: string; n: number }>(
      `SELECT event_object_table AS table, count(DISTINCT event_manipulation)::int AS n FROM information_schema.triggers
        WHERE trigger_name = event_object_table || '_audit' GROUP BY 1`,
    );
    const audited = triggers.filter((t) => t.n === 3).map((t) => t.table);
    expect(triggers.every((t) => t.n === 3), JSON.stringify(triggers)).toBe(true);
    expect(tables.filter((t) => !audited.includes(t) && !(t in NOT_AUDITED)), 'tables neither audited nor left out on purpose').toEqual([]);
    expect([...audited].sort()).toEqual([...AUDITED_KINDS].sort());
  });
});

describe('an entry', () => {
  it('names the actor, store, door, operation and request, and holds what an insert set (no updatedAt, no search document)', async () => {
    const order = await inRequestScope(asClient('orderCreate', 'req-create-1'), () => createOrder(db.prisma, storeId, orderInput('audit-1')));
    const [created] = await entries(`"objectKind" = 'Order' AND "objectId" = $1`, [order.id]);
    expect(created).toMatchObject({
      storeId,
      actorKind: 'API_CLIENT',
      actorId: 'apc_test',
      actorName: 'warehouse tool',
      door: 'rest',
      operation: 'orderCreate',
      requestId: 'req-create-1',
      action: 'INSERT',
      parentKind: null,
    });
    expect(created.changes).toMatchObject({ externalId: { after: 'audit-1' }, customerEmail: { after: 'ada@example.com' }, name: { after: order.name } });
    expect(created.changes.externalId).not.toHaveProperty('before');
    expect(Object.keys(created.changes)).not.toContain('updatedAt');
    expect(Object.keys(created.changes)).not.toContain('searchText');
    // Only columns that hold something: an insert's nulls changed nothing.
    expect(Object.keys(created.changes)).not.toContain('billingAddress');
  });

  it("attributes an order's lines to the order, one entry per line from one statement", async () => {
    const order = await inRequestScope(asClient('orderCreate', 'req-create-2'), () => createOrder(db.prisma, storeId, orderInput('audit-2', 3)));
    const lines = await entries(`"objectKind" = 'OrderLineItem' AND "parentId" = $1`, [order.id]);
    expect(lines).toHaveLength(3);
    expect(lines.every((l) => l.parentKind === 'Order' && l.storeId === storeId && l.requestId === 'req-create-2' && l.action === 'INSERT')).toBe(true);
    expect(lines.map((l) => l.changes.title.after).sort()).toEqual(['Item 0', 'Item 1', 'Item 2']);
  });

  it('holds only the columns an update changed, before and after; a change of ignored columns alone records nothing', async () => {
    await inRequestScope(asClient('customerUpsert', 'req-upsert-1'), () => upsertCustomer(db.prisma, storeId, { email: 'grace@example.com', firstName: 'Grace', customFields: { tier: 'gold' } }));
    await inRequestScope(asClient('customerUpsert', 'req-upsert-2'), () => upsertCustomer(db.prisma, storeId, { email: 'grace@example.com', firstName: 'Grace', customFields: { tier: 'gold' } }));
    await inRequestScope(asClient('customerUpsert', 'req-upsert-3'), () => upsertCustomer(db.prisma, storeId, { email: 'grace@example.com', firstName: 'Gracie', customFields: { tier: 'silver' } }));
    // The second upsert only moved updatedAt: no entry.
    expect(await entries(`"requestId" = 'req-upsert-2'`)).toEqual([]);
    const changed = await entries(`"requestId" = 'req-upsert-3'`);
    const customer = changed.find((e) => e.objectKind === 'Customer')!;
    expect(customer.action).toBe('UPDATE');
    expect(customer.changes).toEqual({ firstName: { before: 'Grace', after: 'Gracie' }, name: { before: 'Grace', after: 'Gracie' } });
    const field = changed.find((e) => e.objectKind === 'CustomFieldValue')!;
    expect(field).toMatchObject({ parentKind: 'Customer', parentId: customer.objectId, storeId, operation: 'customerUpsert' });
    expect(field.changes).toEqual({ stringValue: { before: 'gold', after: 'silver' } });
  });

  it("records a stock level's change under its product, and leaves out the order counter of the store", async () => {
    const locationId = await seedLocation(db, storeId, 'Back room');
    const productId = await seedProduct(db, storeId, { title: 'Lamp' });
    const levelId = await seedLevel(db, { storeId, productId, locationId, quantity: 50 });
    await inRequestScope(asClient('inventoryAdjust', 'req-adjust'), () => adjustInventory(db.prisma, storeId, { inventoryLevelId: levelId, quantityDelta: -40, reason: 'count' }));
    const [level] = await entries(`"requestId" = 'req-adjust'`);
    expect(level).toMatchObject({ objectKind: 'InventoryLevel', objectId: levelId, parentKind: 'Product', parentId: productId, action: 'UPDATE' });
    expect(level.changes).toEqual({ quantity: { before: 50, after: 10 } });
    expect(await entries(`"requestId" LIKE 'req-create-%' AND "objectKind" = 'Store'`)).toEqual([]);
  });

  it('hides secrets while recording that they changed', async () => {
    const { id: clientId } = await inRequestScope(asClient('apiClientCreate', 'req-client'), () => createApiClient(db.prisma, { storeId, name: 'reporting', scopes: ['orders_read'] }));
    const [client] = await entries(`"objectKind" = 'ApiClient' AND "objectId" = $1`, [clientId]);
    expect(client.changes.secretHash).toEqual({ after: '[hidden]' });
    const subscription = await inRequestScope(asClient('webhookSubscriptionCreate', 'req-hook-1'), () =>
      createWebhookSubscription(db.prisma, storeId, { url: 'http://127.0.0.1:9/in', topics: ['order.created'], secret: 'first-secret-value' }, LOOPBACK_ALLOWED),
    );
    await inRequestScope(asClient('webhookSubscriptionUpdate', 'req-hook-2'), () =>
      updateWebhookSubscription(db.prisma, storeId, subscription.id, { url: 'http://127.0.0.1:10/elsewhere', secret: 'second-secret-value' }, LOOPBACK_ALLOWED),
    );
    const [changed] = await entries(`"requestId" = 'req-hook-2'`);
    expect(changed.changes).toEqual({ url: { before: 'http://127.0.0.1:9/in', after: 'http://127.0.0.1:10/elsewhere' }, secret: { before: '[hidden]', after: '[hidden]' } });
    const stored = JSON.stringify(await entries('true'));
    expect(stored).not.toContain('first-secret-value');
    expect(stored).not.toContain('second-secret-value');
  });

  it("records the rows a deletion took with it, under their parent, in the actor's store", async () => {
    const order = await inRequestScope(asClient('orderCreate', 'req-create-3'), () => createOrder(db.prisma, storeId, orderInput('audit-3')));
    await inRequestScope(asClient('orderDelete', 'req-delete'), () => deleteOrder(db.prisma, storeId, order.externalId));
    const deleted = await entries(`"requestId" = 'req-delete'`);
    expect(deleted.find((e) => e.objectKind === 'Order')).toMatchObject({ action: 'DELETE', objectId: order.id, storeId });
    const lines = deleted.filter((e) => e.objectKind === 'OrderLineItem');
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.action === 'DELETE' && l.parentId === order.id && l.storeId === storeId)).toBe(true);
    expect(lines[0].changes.title).toEqual({ before: expect.stringMatching(/^Item /) });
  });

  it('names the database role when a change comes with no request or job (direct SQL)', async () => {
    const order = await createTestOrder(db, storeId);
    await db.sql.query(`UPDATE "Order" SET tags = ARRAY['vip'] WHERE id = $1`, [order.id]);
    const [entry] = await entries(`"objectId" = $1 AND action = 'UPDATE'`, [order.id]);
    expect(entry).toMatchObject({ actorKind: 'SYSTEM', door: 'database', operation: null, requestId: null, storeId });
    expect(entry.actorId).toEqual(expect.any(String));
    expect(entry.changes).toEqual({ tags: { before: null, after: ['vip'] } });
  });

  it('is not written while audit.disabled is on (the bench comparison, a dump being loaded)', async () => {
    const before = await count();
    await db.prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL audit.disabled = 'on'`);
      await tx.location.create({ data: { id: newId('location'), storeId, name: 'Unrecorded' } });
    });
    expect(await count()).toBe(before);
  });
});

describe('a write that fails', () => {
  it('leaves no entry when its transaction rolls back', async () => {
    const before = await count();
    const locationId = newId('location');
    await expect(
      inRequestScope(asClient('locationCreate', 'req-rollback'), () =>
        inTransaction(db.prisma, async (tx) => {
          await tx.location.create({ data: { id: locationId, storeId, name: 'Gone' } });
          throw new Error('refused after writing');
        }),
      ),
    ).rejects.toThrow('refused after writing');
    expect(await db.prisma.location.findUnique({ where: { id: locationId } })).toBeNull();
    expect(await count()).toBe(before);
  });

  it('leaves no entry when the domain refuses it part way (a duplicate order, a return already processed)', async () => {
    await inRequestScope(asClient('orderCreate', 'req-dup-1'), () => createOrder(db.prisma, storeId, orderInput('audit-dup')));
    const order = await createTestOrder(db, storeId);
    const ret = await insertTestReturn(db, storeId, order, { status: 'complete' });
    const before = await count();
    const duplicate = await inRequestScope(asClient('orderCreate', 'req-dup-2'), () => createOrder(db.prisma, storeId, orderInput('audit-dup')).catch((e: unknown) => e));
    expect(isDomainError(duplicate)).toBe(true);
    const refused = await inRequestScope(asClient('returnProcess', 'req-refused'), () => processReturn(db.prisma, storeId, { id: ret.id }).catch((e: unknown) => e));
    expect(isDomainError(refused)).toBe(true);
    expect(await count()).toBe(before);
  });
});

describe('jobs', () => {
  it('names the demo seeding as the actor of everything it writes', async () => {
    const seeded = await seedDemo(db.prisma);
    const actors = await db.sql.query<{ actorKind: string; actorId: string; door: string; n: number }>(
      `SELECT "actorKind", "actorId", door, count(*)::int AS n FROM "AuditEntry" WHERE "storeId" = $1 GROUP BY 1, 2, 3`,
      [seeded.storeId],
    );
    expect(actors).toEqual([{ actorKind: 'JOB', actorId: 'demo-seed', door: 'job', n: expect.any(Number) }]);
    expect(actors[0].n).toBeGreaterThan(1000);
    // Seeding the demo writes ~7,000 statements: 40 s on a quiet 2-core machine, over 100 s on a
    // loaded one; demo.test.ts gives its own seeding the same 300 s.
  }, 300_000);
});

describe('retention', () => {
  let fresh: Database;
  let freshStore: string;

  beforeAll(async () => {
    fresh = await createTestDatabase();
    freshStore = (await createStore(fresh.prisma, { name: 'Old store' })).id;
    for (let i = 0; i < 4; i++) await fresh.prisma.location.create({ data: { id: newId('location'), storeId: freshStore, name: `Shelf ${i}` } });
  });
  afterAll(async () => fresh?.close());

  /** Entry ids oldest first; ids follow time, so the oldest `n` of those not yet aged are aged `days` days. */
  async function age(n: number, days: number): Promise<string[]> {
    const rows = await fresh.sql.query<{ id: string }>(
      `UPDATE "AuditEntry" SET "occurredAt" = (now() AT TIME ZONE 'UTC') - interval '1 day' * $2
        WHERE id IN (SELECT id FROM "AuditEntry" WHERE "occurredAt" > (now() AT TIME ZONE 'UTC') - interval '1 day' ORDER BY id LIMIT $1) RETURNING id::text`,
      [n, days],
    );
    return rows.map((r) => r.id);
  }
  const remaining = async (ids: string[]) => (await fresh.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM "AuditEntry" WHERE id = ANY($1::bigint[])`, [ids]))[0].n;

  it('deletes the entries older than the retention age, a bounded batch per statement, and nothing younger', async () => {
    const old = await age(5, 400);
    const young = await age(2, 300);
    expect(old).toHaveLength(5);
    expect(await pruneAuditTrail(fresh.prisma, { retentionDays: 365, batchSize: 2, maxBatches: 1 })).toBe(2);
    expect(await remaining(old)).toBe(3);
    expect(await pruneAuditTrail(fresh.prisma, { retentionDays: 365, batchSize: 2 })).toBe(3);
    expect(await remaining(old)).toBe(0);
    expect(await remaining(young)).toBe(2);
    expect(await pruneAuditTrail(fresh.prisma, { retentionDays: 365 })).toBe(0);
  });

  it('runs in the background work with AUDIT_RETENTION_DAYS', async () => {
    const [{ n: before }] = await fresh.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM "AuditEntry"`);
    const old = await fresh.sql.query<{ id: string }>(`SELECT id::text FROM "AuditEntry" WHERE "occurredAt" < (now() AT TIME ZONE 'UTC') - interval '30 days'`);
    expect(old.length).toBeGreaterThan(0);
    const config = loadConfig({ AUDIT_RETENTION_DAYS: '30', WEBHOOK_DISPATCHER: 'false' });
    const background = startBackgroundWork({ db: fresh, config, logger: createLogger('silent'), pruneIntervalMs: 20 });
    try {
      const deadline = Date.now() + 10_000;
      while ((await remaining(old.map((r) => r.id))) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      await background.stop();
    }
    expect(await remaining(old.map((r) => r.id))).toBe(0);
    const [{ n: after }] = await fresh.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM "AuditEntry"`);
    expect(after).toBe(before - old.length);
  });
});
