// A shopper's data export and erasure (issue 36), on a store holding two people: one seeded
// into every table that can hold a shopper's data, through the doors and the domain, with
// webhook deliveries refused by a subscriber that quotes what it got; the other beside them.
// The export must hold every place the first one's data lives and nothing of the other; the
// erasure must leave none of their values in any text or JSON column of any table (read from the
// database's catalog), in the bodies kept for webhook replays or in kept answers, while amounts,
// counts and the other person's data stay as they were; a second erasure changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertCustomer } from '../../src/domain/customers.ts';
import { recordCustomEvent } from '../../src/domain/customEvents.ts';
import { createOrder } from '../../src/domain/orders.ts';
import { eraseCustomer, eraseStoreCustomerData } from '../../src/domain/privacy/erasure.ts';
import { EXPORT_KINDS, exportPage, type ExportRecord } from '../../src/domain/privacy/export.ts';
import { findPerson, personKeyOf, type PersonKey } from '../../src/domain/privacy/person.ts';
import { PERSONAL_DATA } from '../../src/domain/privacy/personalData.ts';
import { replayWebhookSubscription } from '../../src/domain/webhooks.ts';
import {
  GRACE,
  ZOE,
  fold,
  scanDatabase,
  seedPerson,
  startEchoReceiver,
  storedAnswersQuoting,
  subscribeToEverything,
  tableDigests,
  valuesIn,
  type EchoReceiver,
  type Hit,
  type SeededPerson,
} from '../support/privacyFixtures.ts';
import { createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { startTestDispatcher, waitFor } from '../webhooks/support.ts';

let server: TestServer;
let store: TestStore;
let receiver: EchoReceiver;
let subscriptionId: string;
let zoe: SeededPerson;
let grace: SeededPerson;

async function exportAll(named: { email?: string; customerId?: string }, storeId = store.storeId): Promise<ExportRecord[]> {
  const person = await findPerson(server.db.prisma, storeId, personKeyOf(named));
  const records: ExportRecord[] = [];
  for (let after: { kindIndex: number; id: string } | null = null; ; ) {
    // Small pages, so that the walk crosses kinds and pages within a kind.
    const page = await exportPage(server.db.prisma, storeId, person, after, 7);
    records.push(...page.records);
    if (!page.hasMore) return records;
    const last = page.records.at(-1)!;
    after = { kindIndex: EXPORT_KINDS.findIndex((k) => k.kind === last.kind), id: last.id };
  }
}

/** Every `id` member anywhere in the records: the rows (and children) the export holds. */
function idsIn(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) idsIn(item, into);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'id' && (typeof item === 'string' || typeof item === 'number')) into.add(String(item));
      else idsIn(item, into);
    }
  }
  return into;
}

async function deliveriesSettled(): Promise<boolean> {
  return (await server.db.prisma.webhookDelivery.count({ where: { subscriptionId, status: 'PENDING' } })) === 0;
}

beforeAll(async () => {
  server = await startTestServer({ webhooksAllowLoopback: true });
  store = await createTestStore(server.db);
  receiver = await startEchoReceiver();
  subscriptionId = await subscribeToEverything(server, store, receiver.url);
  zoe = await seedPerson(server, store, ZOE);
  grace = await seedPerson(server, store, GRACE);
  // Every delivery is refused by a subscriber that quotes the body in its answer, which the
  // delivery log keeps: four attempts each, then discarded.
  const dispatcher = startTestDispatcher(server.db);
  try {
    await waitFor(deliveriesSettled, 'every delivery attempted to the end', 60_000, 50);
  } finally {
    await dispatcher.stop(100);
  }
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

describe('the map of personal data', () => {
  it('accounts for every text and JSON column of every table in the database, and for no other', async () => {
    const columns = await server.db.sql.query<{ table: string; column: string }>(
      `SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name <> '_prisma_migrations'
         AND (data_type IN ('text', 'character varying', 'json', 'jsonb') OR udt_name IN ('_text', '_varchar', '_jsonb'))`,
      [],
    );
    const inDatabase = columns.map(({ table, column }) => `${table}.${column}`).sort();
    const mapped = Object.entries(PERSONAL_DATA)
      .flatMap(([table, byColumn]) => Object.keys(byColumn).map((column) => `${table}.${column}`))
      .sort();
    expect(mapped).toEqual(inDatabase);
  });

  it('finds the seeded person in every place the map says holds personal data', async () => {
    const hits = await scanDatabase(server.db, ZOE);
    const holding = new Set(hits.map((h) => `${h.table}.${h.column}`));
    const erased = Object.entries(PERSONAL_DATA).flatMap(([table, byColumn]) =>
      Object.entries(byColumn).flatMap(([column, handling]) => ('erase' in handling ? [`${table}.${column}`] : [])),
    );
    // Each place erasure rewrites holds the seeded person (so the erasure test below proves something for each) ...
    expect(erased.filter((place) => !holding.has(place))).toEqual([]);
    // ... and where else the values are found is a search document, the overview's copy of a return's reasons, or text the map keeps on purpose and erasure deletes.
    expect([...holding].filter((place) => !erased.includes(place)).sort()).toEqual([
      'Customer.searchText',
      'Order.searchText',
      'PersistedQuery.query',
      'Return.searchText',
      'ReturnOverviewFact.items',
      'ReturnsOverviewRollup.key',
    ]);
    expect(await storedAnswersQuoting(server.db, ZOE)).toBeGreaterThan(0);
  });
});

describe('customerDataExport', () => {
  it('holds every record the person has, every value seeded, and nothing of the other person', async () => {
    const records = await exportAll({ email: ZOE.email.toUpperCase() });
    const byKind = (kind: string) => records.filter((r) => r.kind === kind).map((r) => r.id).sort();
    expect(byKind('customer')).toEqual([zoe.customerId, zoe.phoneProfileId].sort());
    expect(byKind('order')).toEqual([...zoe.orderIds].sort());
    expect(byKind('return')).toEqual([...zoe.returnIds].sort());
    expect(byKind('custom_event')).toEqual(zoe.customEventIds);
    expect(byKind('storefront_event')).toEqual([...zoe.storefrontEventIds].sort());

    const { prisma } = server.db;
    const subjects = [
      zoe.customerId,
      zoe.phoneProfileId,
      ...zoe.orderIds,
      ...zoe.returnIds,
      ...zoe.customEventIds,
      ...zoe.storefrontEventIds,
      ...(await prisma.fulfillment.findMany({ where: { orderId: { in: zoe.orderIds } } })).map((f) => f.id),
    ];
    const events = await prisma.event.findMany({ where: { subjectId: { in: subjects } }, select: { id: true } });
    expect(byKind('webhook_event')).toEqual(events.map((e) => e.id).sort());
    expect(byKind('audit_entry').length).toBeGreaterThan(0);

    // Every row of the person's, children included, by id.
    const held = idsIn(records);
    const expected = [
      ...(await prisma.orderLineItem.findMany({ where: { orderId: { in: zoe.orderIds } } })).map((r) => r.id),
      ...(await prisma.fulfillmentTrackingEvent.findMany({ where: { fulfillment: { orderId: { in: zoe.orderIds } } } })).map((r) => r.id),
      ...(await prisma.returnItem.findMany({ where: { returnId: { in: zoe.returnIds } } })).map((r) => r.id),
      ...(await prisma.returnNote.findMany({ where: { returnId: { in: zoe.returnIds } } })).map((r) => r.id),
      ...(await prisma.webhookDelivery.findMany({ where: { event: { subjectId: { in: subjects } } } })).map((r) => r.id),
      ...(await prisma.deliveryAttempt.findMany({ where: { delivery: { event: { subjectId: { in: subjects } } } } })).map((r) => r.id),
    ];
    expect(expected.length).toBeGreaterThan(20);
    expect(expected.filter((id) => !held.has(id))).toEqual([]);
    const customer = records.find((r) => r.id === zoe.customerId)!.data as { customFieldValues: unknown[]; subscriptions: unknown[]; phoneNumberKeys: unknown[] };
    expect(customer.customFieldValues).toHaveLength(4);
    expect(customer.subscriptions).toHaveLength(1);
    expect(customer.phoneNumberKeys).toHaveLength(0);

    // Every value seeded is in the export.
    const text = JSON.stringify(records);
    expect(valuesIn(text, ZOE).sort()).toEqual(valuesIn(Object.values(ZOE).join('\n'), ZOE).sort());
    expect(valuesIn(text, GRACE)).toEqual([]);
    for (const id of [grace.customerId, ...grace.orderIds, ...grace.returnIds, ...grace.customEventIds, ...grace.storefrontEventIds]) expect(held.has(id)).toBe(false);
  });

  it('is the same by customer id, and reads timestamps as UTC and amounts as exact text', async () => {
    const byId = await exportAll({ customerId: zoe.customerId });
    const byEmail = await exportAll({ email: ZOE.email });
    expect(byId.map((r) => r.id)).toEqual(byEmail.map((r) => r.id));
    const order = byId.find((r) => r.id === zoe.orderIds[0])!.data as Record<string, unknown>;
    expect(order).toMatchObject({ totalPrice: '65.0000', placedAt: '2026-11-01T09:00:00.000Z', customerEmail: ZOE.email });
    expect(order).not.toHaveProperty('searchText');
  });

  it('refuses an unknown customer id and an invalid e-mail, and finds nothing for an e-mail nobody has', async () => {
    await expect(findPerson(server.db.prisma, store.storeId, { customerId: 'cus_nobody' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(() => personKeyOf({ email: 'not an e-mail' })).toThrow(expect.objectContaining({ code: 'INVALID' }));
    expect(() => personKeyOf({ email: ZOE.email, customerId: zoe.customerId })).toThrow(expect.objectContaining({ code: 'INVALID' }));
    expect(await exportAll({ email: 'nobody@example.net' })).toEqual([]);
  });
});

describe('customerErase', () => {
  let graceBefore: ExportRecord[];
  let totalsBefore: unknown;
  let countsBefore: Record<string, number>;

  const totals = () => server.db.sql.query(`SELECT count(*)::int AS orders, sum("totalPrice")::text AS total, sum("shippingCost")::text AS shipping FROM "Order"`, []);
  const rowCounts = async () => {
    const { prisma } = server.db;
    return {
      customers: await prisma.customer.count(),
      orders: await prisma.order.count(),
      lines: await prisma.orderLineItem.count(),
      returns: await prisma.return.count(),
      items: await prisma.returnItem.count(),
      notes: await prisma.returnNote.count(),
      customEvents: await prisma.customEvent.count(),
      storefrontEvents: await prisma.storefrontEvent.count(),
      subscriptions: await prisma.customerSubscription.count(),
      deliveries: await prisma.webhookDelivery.count({ where: { event: { topic: { not: 'customer.redacted' } } } }),
    };
  };

  beforeAll(async () => {
    graceBefore = await exportAll({ email: GRACE.email });
    totalsBefore = await totals();
    countsBefore = await rowCounts();
  });

  it('replaces every value of the person everywhere, keeps amounts, counts and the other person, and announces customer.redacted', async () => {
    const erasure = await eraseCustomer(server.db.prisma, store.storeId, personKeyOf({ email: ZOE.email.toUpperCase() }));
    expect(erasure.customerIds).toEqual([zoe.customerId, zoe.phoneProfileId]);
    expect(erasure.counts).toMatchObject({
      customers: 2,
      customerPhoneNumbers: 1,
      customFieldValues: 4,
      customerSubscriptions: 2,
      orders: 3,
      returns: 2,
      returnNotes: 2,
      customEvents: 1,
      storefrontEvents: 2,
      storedAnswers: 1,
      persistedQueries: 1,
    });
    for (const kind of ['customFieldOptions', 'fulfillmentTrackingEvents', 'returnItems', 'webhookEvents', 'webhookDeliveries', 'deliveryAttempts', 'auditEntries'] as const) {
      expect(erasure.counts[kind], kind).toBeGreaterThan(0);
    }

    const left: Hit[] = await scanDatabase(server.db, ZOE);
    expect(left).toEqual([]);
    expect(await storedAnswersQuoting(server.db, ZOE)).toBe(0);

    expect(await totals()).toEqual(totalsBefore);
    expect(await rowCounts()).toEqual(countsBefore);
    expect(await exportAll({ email: GRACE.email })).toEqual(graceBefore);
    expect((await scanDatabase(server.db, GRACE)).length).toBeGreaterThan(10);

    const event = await server.db.prisma.event.findUniqueOrThrow({ where: { id: erasure.eventId! }, include: { deliveries: true } });
    expect(event).toMatchObject({ topic: 'customer.redacted', subjectId: zoe.customerId, deliveries: [{ subscriptionId, status: 'PENDING' }] });
    expect(event.data).toMatchObject({ customerIds: erasure.customerIds, orderIds: [...zoe.orderIds].sort(), returnIds: [...zoe.returnIds].sort(), counts: erasure.counts });

    const customer = await server.db.prisma.customer.findUniqueOrThrow({ where: { id: zoe.customerId } });
    expect(customer).toMatchObject({ email: null, firstName: '[redacted]', lastName: '[redacted]', name: '[redacted]', phoneNumbers: [], location: null });
    expect(customer.redactedAt).toBeInstanceOf(Date);
    const order = await server.db.prisma.order.findUniqueOrThrow({ where: { id: zoe.orderIds[0] }, include: { lineItems: true } });
    expect(order).toMatchObject({ customerEmail: '[redacted]', customerId: zoe.customerId, externalId: `ORD-${ZOE.tag}-1`, currency: 'USD' });
    expect(order.totalPrice?.toString()).toBe('65');
    expect(order.shippingAddress).toEqual({ address1: '[redacted]', city: '[redacted]', postalCode: '[redacted]', country: '[redacted]' });
    expect(order.lineItems.map((l) => [l.sku, l.quantity, l.price?.toString()]).sort()).toEqual([
      ['CAP-1', 1, '10'],
      ['TEE-1', 2, '25'],
    ]);
  });

  it('leaves no value of the person in the bodies kept for replays: a replay delivers them redacted', async () => {
    receiver.accept();
    const sent = receiver.bodies.length;
    await replayWebhookSubscription(server.db.prisma, store.storeId, subscriptionId, new Date(0));
    const dispatcher = startTestDispatcher(server.db);
    try {
      await waitFor(deliveriesSettled, 'the replay delivered', 60_000, 50);
    } finally {
      await dispatcher.stop(100);
    }
    const replayed = receiver.bodies.slice(sent);
    expect(replayed.length).toBeGreaterThan(20);
    expect(replayed.filter((body) => valuesIn(body, ZOE).length > 0)).toEqual([]);
    expect(replayed.some((body) => valuesIn(body, GRACE).length > 0)).toBe(true);
  });

  it('changes nothing more when run again, answering zero counts', async () => {
    const before = await tableDigests(server.db);
    for (const key of [{ email: ZOE.email }, { customerId: zoe.customerId }, { customerId: zoe.phoneProfileId }] as PersonKey[]) {
      const again = await eraseCustomer(server.db.prisma, store.storeId, key);
      expect(again.eventId).toBeNull();
      expect(Object.values(again.counts).every((n) => n === 0), JSON.stringify(again.counts)).toBe(true);
    }
    expect(await tableDigests(server.db)).toEqual(before);
  });

  it('starts a new customer for later data with the same e-mail, and no lookup finds the erased one', async () => {
    const later = await upsertCustomer(server.db.prisma, store.storeId, { email: ZOE.email, firstName: 'New' });
    expect(later.created).toBe(true);
    expect(later.customer.id).not.toBe(zoe.customerId);
    const order = await createOrder(server.db.prisma, store.storeId, {
      orderId: `ORD-${ZOE.tag}-later`,
      createdAt: '2026-11-25T09:00:00Z',
      customer: { email: ZOE.email },
      lineItems: [{ id: 'L1', productId: 'ext-tee', title: 'Trail Tee', quantity: 1 }],
    });
    expect(order.customerId).toBe(later.customer.id);
    await expect(recordCustomEvent(server.db.prisma, store.storeId, { eventName: 'Came back', customer: { id: zoe.customerId } })).rejects.toMatchObject({ code: 'INVALID' });
    const erased = await server.db.prisma.customer.findUniqueOrThrow({ where: { id: zoe.customerId } });
    expect(erased.firstName).toBe('[redacted]');
    // Exporting the new customer's e-mail finds the new data, not what was erased.
    const records = await exportAll({ email: ZOE.email });
    expect(records.filter((r) => r.kind === 'customer').map((r) => r.id)).toEqual([later.customer.id]);
    expect(records.filter((r) => r.kind === 'order').map((r) => r.id)).toEqual([order.id]);
  });
});

describe('storeCustomerDataErase', () => {
  it("erases every shopper's data of the store in batches, touching no other store, and changes nothing when run again", async () => {
    const leaving = await createTestStore(server.db, { name: 'Leaving store' });
    await seedPerson(server, leaving, { ...GRACE, tag: 'gl', email: 'gracie.leaving@example.org' });
    await seedPerson(server, leaving, { ...ZOE, tag: 'zl', email: 'zoelle.leaving@example.com', phone: '+14155550177' });
    const stayingBefore = await exportAll({ email: GRACE.email });
    const orders = await server.db.sql.query(`SELECT count(*)::int AS n, sum("totalPrice")::text AS total FROM "Order" WHERE "storeId" = $1`, [leaving.storeId]);

    const erasure = await eraseStoreCustomerData(server.db.prisma, leaving.storeId, 3);
    expect(erasure.batches).toBeGreaterThan(10);
    expect(erasure.counts.customers).toBe(4);
    expect(erasure.counts.orders).toBe(6);

    const customers = await server.db.prisma.customer.findMany({ where: { storeId: leaving.storeId } });
    expect(customers.every((c) => c.email === null && c.redactedAt !== null && c.phoneNumbers.length === 0)).toBe(true);
    const orderRows = await server.db.prisma.order.findMany({ where: { storeId: leaving.storeId } });
    expect(orderRows.every((o) => o.customerEmail === null || o.customerEmail === '[redacted]')).toBe(true);
    expect(await server.db.sql.query(`SELECT count(*)::int AS n, sum("totalPrice")::text AS total FROM "Order" WHERE "storeId" = $1`, [leaving.storeId])).toEqual(orders);
    // What the store keeps holds none of its shoppers' values (the other store keeps its own).
    const leftInStore = await server.db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "Event" e WHERE e."storeId" = $1 AND (strpos(search_fold(e.data::text), $2) > 0 OR strpos(search_fold(e.data::text), $3) > 0)`,
      [leaving.storeId, fold('gracie.leaving@example.org'), fold(GRACE.lastName)],
    );
    expect(leftInStore).toEqual([{ n: 0 }]);
    const otherLeft = await server.db.sql.query<{ table: string }>(
      `SELECT 'CustomEvent' AS table FROM "CustomEvent" WHERE "storeId" = $1 AND strpos(data::text, $2) > 0
       UNION ALL SELECT 'StorefrontEvent' FROM "StorefrontEvent" WHERE "storeId" = $1 AND strpos(payload::text, $3) > 0
       UNION ALL SELECT 'AuditEntry' FROM "AuditEntry" WHERE "storeId" = $1 AND strpos(search_fold(changes::text), $4) > 0
       UNION ALL SELECT 'ReturnNote' FROM "ReturnNote" n JOIN "Return" r ON r.id = n."returnId" WHERE r."storeId" = $1 AND n.content <> '[redacted]'`,
      [leaving.storeId, GRACE.colour, GRACE.anonymousId, fold(GRACE.lastName)],
    );
    expect(otherLeft).toEqual([]);
    expect(await exportAll({ email: GRACE.email })).toEqual(stayingBefore);

    const before = await tableDigests(server.db);
    const again = await eraseStoreCustomerData(server.db.prisma, leaving.storeId, 3);
    expect(Object.values(again.counts).every((n) => n === 0), JSON.stringify(again.counts)).toBe(true);
    expect(await tableDigests(server.db)).toEqual(before);
  });
});
