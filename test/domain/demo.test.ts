// The demo data (src/domain/demo.ts): what it promises to show (returns in every status an
// operation reaches, refunds and store credit, variants with stock at two locations and an
// oversold level, an inbound shipment at sea with its purchase orders, customers with custom
// fields and consent, a webhook delivery log of delivered, retried and discarded deliveries),
// that its webhook subscription is never attempted, that it is the same on every fresh
// database, and that seeding again changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundWork } from '../../src/process/background.ts';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { DEMO_USER_EMAIL, seedDemo, type DemoSeed } from '../../src/domain/demo.ts';
import { DEMO_WEBHOOK_URL } from '../../src/domain/demo/webhooks.ts';
import { availableOf } from '../../src/domain/inventory.ts';
import { Decimal } from '../../src/domain/money.ts';
import { createApiClient, createStore } from '../../src/domain/stores.ts';
import { createWebhookSubscription, recordFinishedDeliveries } from '../../src/domain/webhooks.ts';
import { checkLogin } from '../../src/auth/merchantUsers.ts';
import { createLogger } from '../../src/observability/logger.ts';
import type { Metrics } from '../../src/observability/metrics.ts';
import { createTestDatabase } from '../support/db.ts';
import { rowCounts } from '../support/counts.ts';
import { emit, startReceiver, startTestDispatcher, waitFor } from '../webhooks/support.ts';
import { LOOPBACK_ALLOWED } from '../support/contexts.ts';

let db: Database;
let seed: Extract<DemoSeed, { seeded: true }>;
let storeId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const started = performance.now();
  const result = await seedDemo(db.prisma);
  process.stdout.write(`seeding the demo data took ${Math.round(performance.now() - started)} ms (${db.kind})\n`);
  if (!result.seeded) throw new Error('a fresh database was already seeded');
  seed = result;
  storeId = seed.storeId;
}, 300_000);
afterAll(async () => db?.close());

const count = <T>(items: T[], predicate: (item: T) => boolean) => items.filter(predicate).length;

describe('the demo store', () => {
  it('is a merchant linked to a fulfillment service, with an API client and a dashboard user', async () => {
    const store = await db.prisma.store.findUniqueOrThrow({
      where: { id: storeId },
      include: { fulfillmentServices: { include: { fulfillmentService: { include: { locations: true } } } }, locations: true, defaultLocation: true },
    });
    expect(store).toMatchObject({ name: 'Demo Outfitters', kind: 'MERCHANT', originCity: 'San Francisco', defaultLocation: { name: 'Main Warehouse' } });
    expect(store.locations.map((l) => l.name)).toEqual(['Main Warehouse']);
    expect(store.fulfillmentServices.map((link) => [link.fulfillmentService.kind, link.fulfillmentService.locations.map((l) => l.name)])).toEqual([
      ['FULFILLMENT_SERVICE', ['Rapid Reno DC']],
    ]);
    expect(seed.secret).toMatch(/^sk_/);
    expect(seed.login.email).toBe(DEMO_USER_EMAIL);
    expect(await checkLogin(db.prisma, storeId, DEMO_USER_EMAIL, seed.login.password)).toEqual({ id: expect.stringMatching(/^usr_/) });
  });
});

describe('returns', () => {
  const returns = () =>
    db.prisma.return.findMany({
      where: { storeId },
      include: { items: true, notes: true, statusChanges: true, order: { select: { name: true, customerEmail: true } } },
      orderBy: { number: 'asc' },
    });

  it('are in every status an operation leads to; nothing leads to in_transit, delivered, needs_review or in_review', async () => {
    const all = await returns();
    const byStatus = Object.fromEntries(['open', 'in_transit', 'delivered', 'needs_review', 'in_review', 'flagged', 'complete', 'rejected', 'deleted'].map((s) => [s, count(all, (r) => r.status === s)]));
    expect(byStatus).toEqual({ open: 25, in_transit: 0, delivered: 0, needs_review: 0, in_review: 0, flagged: 5, complete: 34, rejected: 6, deleted: 3 });
  });

  it('were processed with refunds, with store credit and with both, item by item, and as exchanges', async () => {
    const complete = (await returns()).filter((r) => r.status === 'complete');
    const refunded = complete.filter((r) => new Decimal(r.totalRefund).gt(0));
    const credited = complete.filter((r) => new Decimal(r.totalStoreCredit).gt(0));
    expect(refunded.length).toBeGreaterThanOrEqual(20);
    expect(credited.length).toBeGreaterThanOrEqual(8);
    expect(count(complete, (r) => refunded.includes(r) && credited.includes(r))).toBe(3);
    // Every processed refund or credit item has its amount recorded, and the totals add up.
    for (const ret of complete) {
      const live = ret.items.filter((i) => i.removedAt === null);
      const sum = (outcome: string) => live.filter((i) => i.outcome === outcome).reduce((total, i) => total.plus(i.refundAmount!), new Decimal(0));
      expect(sum('refund').equals(ret.totalRefund), `return ${ret.number}`).toBe(true);
      expect(sum('credit').equals(ret.totalStoreCredit), `return ${ret.number}`).toBe(true);
    }
    // Processed item by item: one item refused (taken off), the rest completed.
    expect(count(complete, (r) => r.items.some((i) => i.removedAt !== null))).toBe(3);
    expect(count(complete, (r) => r.items.every((i) => i.outcome === 'exchange'))).toBe(2);
  });

  it('were flagged, closed (rejected), reset from rejected and from complete, deleted, and had items removed', async () => {
    const all = await returns();
    const operations = (r: (typeof all)[number]) =>
      [...r.statusChanges].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.operation === 'create' ? -1 : 0)).map((c) => `${c.operation}:${c.toStatus}`);
    const resets = all.filter((r) => r.statusChanges.some((c) => c.operation === 'reset'));
    expect(resets.map((r) => r.statusChanges.find((c) => c.operation === 'reset')!.fromStatus).sort()).toEqual(['complete', 'complete', 'rejected', 'rejected', 'rejected', 'rejected']);
    expect(count(resets, (r) => r.status === 'open')).toBe(4);
    expect(count(resets, (r) => r.status === 'complete')).toBe(2);
    expect(count(all, (r) => r.statusChanges.some((c) => c.operation === 'flag') && r.status === 'complete')).toBe(3);
    expect(count(all, (r) => r.status === 'open' && r.items.some((i) => i.removedAt !== null))).toBe(3);
    for (const ret of all) expect(operations(ret)[0]).toBe('create:open');
    expect(all.every((r) => r.status !== 'rejected' || r.statusChanges.some((c) => c.operation === 'reject'))).toBe(true);
  });

  it('have notes, tags and shipping labels with carrier and tracking number', async () => {
    const all = await returns();
    expect(count(all, (r) => r.notes.length > 0)).toBeGreaterThanOrEqual(30);
    expect(count(all, (r) => r.tags.length > 0)).toBeGreaterThanOrEqual(20);
    const tags = await db.prisma.returnTag.findMany({ where: { storeId }, orderBy: { name: 'asc' } });
    expect(tags.map((t) => t.name)).toEqual(['damaged', 'final-sale', 'fraud-check', 'restock', 'vip', 'wrong-size']);
    expect(new Set(all.flatMap((r) => r.tags))).toEqual(new Set(tags.map((t) => t.name)));
    const labelled = all.filter((r) => r.trackingNumber !== null);
    expect(labelled.length).toBeGreaterThanOrEqual(40);
    for (const ret of labelled) expect(ret).toMatchObject({ carrier: expect.stringMatching(/^(USPS|UPS)$/), labelUrl: expect.stringMatching(/^https:/), labelUpdatedAt: expect.any(Date) });
    expect(new Set(labelled.map((r) => r.labelStatus))).toEqual(new Set([null, 'pre_transit', 'in_transit', 'delivered']));
    expect(await db.prisma.invoiceItem.count({ where: { invoice: { storeId }, kind: 'RETURN_PROCESSING_FEE' } })).toBe(all.length);
  });

  it('include order #1001 (ada@example.com, processed) and #1002 (grace@example.com, open, labelled) for the portal', async () => {
    const all = await returns();
    expect(all.find((r) => r.order?.name === '#1001')).toMatchObject({ status: 'complete', order: { customerEmail: 'ada@example.com' } });
    expect(all.find((r) => r.order?.name === '#1002')).toMatchObject({ status: 'open', order: { customerEmail: 'grace@example.com' }, trackingNumber: expect.any(String) });
  });
});

describe('catalogue and stock', () => {
  it('has product families with option values, images and attributes', async () => {
    const families = await db.prisma.productFamily.findMany({
      where: { storeId },
      include: { options: { orderBy: { position: 'asc' } }, images: true, attributes: true, products: { include: { options: true, images: true, attributes: true } } },
      orderBy: { title: 'asc' },
    });
    expect(families.map((f) => [f.title, f.options.map((o) => `${o.name}:${o.values.join(',')}`), f.products.length])).toEqual([
      ['Canvas Cap', ['Colour:Khaki,Navy'], 2],
      ['Ridge Runner Trail Shoe', ['Size:8,9,10,11', 'Width:Regular,Wide'], 8],
      ['Summit Hoodie', ['Colour:Charcoal,Forest', 'Size:S,M,L,XL'], 8],
      ['Trail Tee', ['Colour:Red,Blue,Green', 'Size:S,M,L'], 9],
    ]);
    for (const family of families) {
      expect(family.images).toHaveLength(2);
      expect(family.attributes.length).toBeGreaterThan(0);
      for (const product of family.products) {
        expect(product.options).toHaveLength(family.options.length);
        expect(product.images).toHaveLength(1);
        expect(product.attributes.length).toBeGreaterThan(0);
      }
    }
    expect(await db.prisma.product.count({ where: { storeId, familyId: null } })).toBe(2);
  });

  it('has stock at the warehouse and at the fulfillment service, one level oversold by the orders', async () => {
    const levels = await db.prisma.inventoryLevel.findMany({ where: { storeId }, include: { location: true, product: { select: { sku: true } } } });
    const at = (name: string) => levels.filter((l) => l.location.name === name);
    expect(at('Main Warehouse')).toHaveLength(29);
    expect(at('Rapid Reno DC').length).toBeGreaterThanOrEqual(13);
    const oversold = levels.filter((l) => availableOf(l) < 0);
    expect(oversold.map((l) => [l.product.sku, l.location.name])).toEqual([['RUN-11-WIDE', 'Main Warehouse']]);
    expect(oversold[0].committed).toBeGreaterThan(oversold[0].quantity);
    const lines = await db.prisma.orderLineItem.findMany({ where: { committedLevelId: oversold[0].id } });
    expect(lines.reduce((sum, l) => sum + l.oversoldQuantity, 0)).toBe(oversold[0].committed - oversold[0].quantity);
    // Units held for a wholesale order, and caps received damaged.
    expect(levels.filter((l) => l.reserved > 0).map((l) => [l.product.sku, l.reserved]).sort()).toEqual([
      ['CAP-KHAKI', 2],
      ['HOOD-CHARCOAL-L', 12],
    ]);
    expect(count(levels, (l) => l.committed > 0 && availableOf(l) >= 0)).toBeGreaterThan(20);
  });

  it('has an inbound shipment in transit with two purchase orders, one received, one partly received and one pending', async () => {
    const shipments = await db.prisma.inboundShipment.findMany({
      where: { storeId },
      include: { purchaseOrders: { include: { purchaseOrder: true } }, items: true, location: true },
    });
    const byStatus = (status: string) => shipments.filter((s) => s.status === status);
    expect(shipments.map((s) => s.status).sort()).toEqual(['IN_TRANSIT', 'PARTIALLY_RECEIVED', 'PENDING', 'RECEIVED']);
    const [atSea] = byStatus('IN_TRANSIT');
    expect(atSea.purchaseOrders.map((p) => [p.purchaseOrder.name, p.purchaseOrder.status]).sort()).toEqual([
      ['PO-1001', 'ORDERED'],
      ['PO-1004', 'ORDERED'],
    ]);
    expect(atSea).toMatchObject({ carrier: 'Maersk', trackingNumber: expect.any(String), estimatedArrivalDate: expect.any(Date) });
    expect(byStatus('RECEIVED')[0].purchaseOrders[0].purchaseOrder.status).toBe('RECEIVED');
    const partial = byStatus('PARTIALLY_RECEIVED')[0];
    expect(partial.purchaseOrders[0].purchaseOrder.status).toBe('PARTIALLY_RECEIVED');
    expect(partial.items.reduce((sum, i) => sum + i.damagedQuantity, 0)).toBe(2);
    expect(byStatus('PENDING')[0].location.name).toBe('Rapid Reno DC');
    expect((await db.prisma.purchaseOrder.findMany({ where: { storeId }, orderBy: { name: 'asc' } })).map((p) => p.status)).toEqual([
      'ORDERED',
      'RECEIVED',
      'PARTIALLY_RECEIVED',
      'ORDERED',
      'DRAFT',
    ]);
  });
});

describe('customers and orders', () => {
  it('has customers with custom fields and e-mail and SMS subscriptions', async () => {
    const customers = await db.prisma.customer.findMany({ where: { storeId }, include: { customFields: { include: { declaration: true } }, subscriptions: true } });
    expect(customers).toHaveLength(90);
    expect(customers.every((c) => c.customFields.some((f) => f.declaration.name === 'loyalty_tier'))).toBe(true);
    const declarations = await db.prisma.customFieldDeclaration.findMany({ where: { storeId }, orderBy: { name: 'asc' } });
    expect(declarations.map((d) => [d.name, d.type])).toEqual([
      ['favourite_activity', 'STRING'],
      ['loyalty_tier', 'STRING'],
      ['member_since', 'DATE'],
      ['shoe_size', 'NUMBER'],
      ['vip', 'BOOLEAN'],
    ]);
    const subscriptions = customers.flatMap((c) => c.subscriptions);
    expect(new Set(subscriptions.map((s) => `${s.channel}:${s.kind}:${s.status}`))).toEqual(
      new Set(['EMAIL:MARKETING:CONFIRMED', 'EMAIL:MARKETING:UNSUBSCRIBED', 'SMS:MARKETING:SUBSCRIBED', 'SMS:MARKETING:CONFIRMED', 'SMS:MARKETING:UNSUBSCRIBED', 'SMS:TRANSACTIONAL:SUBSCRIBED']),
    );
    expect(count(customers, (c) => c.subscriptions.length > 0)).toBeGreaterThanOrEqual(60);
  });

  it('has 200 orders over the last six weeks, #1001 first, customers with several orders, one to four lines', async () => {
    const orders = await db.prisma.order.findMany({ where: { storeId }, include: { lineItems: true, fulfillments: true }, orderBy: { placedAt: 'asc' } });
    expect(orders).toHaveLength(200);
    expect(orders.map((o) => o.name)).toEqual(Array.from({ length: 200 }, (_, i) => `#${1001 + i}`));
    expect(orders[0]).toMatchObject({ externalId: 'DEMO-1001', customerEmail: 'ada@example.com', currency: 'USD' });
    expect(orders[1]).toMatchObject({ externalId: 'DEMO-1002', customerEmail: 'grace@example.com' });
    const span = orders[orders.length - 1].placedAt.getTime() - orders[0].placedAt.getTime();
    expect(span).toBeGreaterThan(35 * 86_400_000);
    expect(Date.now() - orders[0].placedAt.getTime()).toBeLessThan(43 * 86_400_000);
    expect(new Set(orders.map((o) => o.lineItems.length))).toEqual(new Set([1, 2, 3, 4]));
    const perCustomer = new Map<string, number>();
    for (const order of orders) if (order.customerId) perCustomer.set(order.customerId, (perCustomer.get(order.customerId) ?? 0) + 1);
    expect(count([...perCustomer.values()], (n) => n >= 4)).toBeGreaterThanOrEqual(10);
    expect(count(orders, (o) => o.customerId === null)).toBeGreaterThan(0);
    // Orders of the last two weeks older than two days have shipped, and some older ones show their delivery; the fulfillment service fulfils some.
    const age = (o: { placedAt: Date }) => Date.now() - o.placedAt.getTime();
    expect(orders.filter((o) => age(o) > 2.1 * 86_400_000 && age(o) < 13.9 * 86_400_000).every((o) => o.fulfillments.length === 1)).toBe(true);
    expect(count(orders, (o) => age(o) > 14 * 86_400_000 && o.fulfillments.length === 1)).toBeGreaterThan(20);
    const groups = await db.prisma.fulfillmentGroup.findMany({ where: { order: { storeId } }, include: { location: true } });
    expect(count(groups, (g) => g.location?.name === 'Rapid Reno DC')).toBeGreaterThan(20);
  });
});

describe('webhooks', () => {
  it('has a disabled subscription on loopback with delivered, retried and discarded deliveries, none pending', async () => {
    const [subscription] = await db.prisma.webhookSubscription.findMany({ where: { storeId } });
    expect(subscription).toMatchObject({ url: DEMO_WEBHOOK_URL, enabled: false });
    expect(new URL(subscription.url).hostname).toBe('127.0.0.1');
    const deliveries = await db.prisma.webhookDelivery.findMany({ where: { subscriptionId: subscription.id }, include: { attempts: true, event: true } });
    const delivered = deliveries.filter((d) => d.status === 'DELIVERED');
    expect(count(delivered, (d) => d.attemptCount === 1)).toBeGreaterThanOrEqual(20);
    expect(count(delivered, (d) => d.attemptCount > 1)).toBeGreaterThanOrEqual(5);
    expect(count(deliveries, (d) => d.status === 'DISCARDED' && d.attemptCount === 8 && d.lastError !== null)).toBeGreaterThanOrEqual(3);
    expect(count(deliveries, (d) => d.status === 'PENDING')).toBe(0);
    for (const delivery of deliveries) {
      expect(delivery.attempts).toHaveLength(delivery.attemptCount);
      expect(delivery).toMatchObject({ queued: true, lockedBy: null, completedAt: expect.any(Date) });
      expect(delivery.event.storeId).toBe(storeId);
      expect(subscription.topics).toContain(delivery.event.topic);
    }
    expect(await db.prisma.webhookQueue.count({ where: { subscriptionId: subscription.id } })).toBe(0);
    // No delivery at all is waiting, for any subscription.
    expect(await db.prisma.webhookDelivery.count({ where: { status: 'PENDING' } })).toBe(0);
  });

  it('is never attempted: neither a dispatcher nor the service background work tries it, while they deliver for another store', async () => {
    const receiver = await startReceiver();
    const other = await createStore(db.prisma, { name: 'Control store' });
    await createApiClient(db.prisma, { storeId: other.id, name: 'control', scopes: ['returns_read'] });
    await createWebhookSubscription(db.prisma, other.id, { url: `${receiver.url}/hook`, topics: ['order.created'] }, LOOPBACK_ALLOWED);
    const demo = await db.prisma.webhookSubscription.findFirstOrThrow({ where: { storeId } });
    const demoHistory = () =>
      db.prisma.webhookDelivery.findMany({ where: { subscriptionId: demo.id }, orderBy: { id: 'asc' }, include: { attempts: { orderBy: { attemptNumber: 'asc' } } } });
    const historyBefore = await demoHistory();
    const before = await rowCounts(db);
    let attempts = 0;
    const dispatcher = startTestDispatcher(db, { onAttempt: () => attempts++ });
    // The service's own background work (its dispatcher and the history's pruning), beside a quick test dispatcher.
    const background = startBackgroundWork({
      db,
      config: { ...loadConfig({ LOG_LEVEL: 'silent' }), webhooksAllowLoopback: true },
      logger: createLogger('silent'),
      metrics: { webhookAttempt: () => attempts++ } as unknown as Metrics,
      pruneIntervalMs: 100,
    });
    try {
      await emit(db, other.id, 'order.created', 'ord_control', { n: 1 });
      await waitFor(() => receiver.requests.length > 0, 'the control store\u2019s delivery');
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    } finally {
      await dispatcher.stop(100);
      await background.stop();
      await receiver.close();
    }
    // Whichever dispatcher took it, the control store's event was attempted once, and nothing else was.
    expect(receiver.requests.map((r) => r.body.storeId)).toEqual([other.id]);
    expect(attempts).toBe(1);
    const after = await rowCounts(db);
    // The control store's event, its delivery, its attempt and its queue are all that was written.
    expect({ events: after.Event - before.Event, deliveries: after.WebhookDelivery - before.WebhookDelivery, attempts: after.DeliveryAttempt - before.DeliveryAttempt }).toEqual({
      events: 1,
      deliveries: 1,
      attempts: 1,
    });
    expect(await demoHistory()).toEqual(historyBefore);
    expect(await db.prisma.webhookQueue.count({ where: { subscriptionId: demo.id } })).toBe(0);
  });
});

describe('recording finished deliveries', () => {
  it('refuses events of other topics and attempts that contradict the outcome, and then writes nothing', async () => {
    const subscription = await db.prisma.webhookSubscription.findFirstOrThrow({ where: { storeId } });
    const [orderEvent, customerEvent] = await Promise.all(
      (['order.created', 'customer.created'] as const).map((topic) => db.prisma.event.findFirstOrThrow({ where: { storeId, topic }, select: { id: true } })),
    );
    const at = new Date();
    const ok = { startedAt: at, durationMs: 40, responseStatus: 200, error: null };
    const failed = { startedAt: at, durationMs: 40, responseStatus: 500, error: 'HTTP 500' };
    const before = await rowCounts(db);
    await expect(
      recordFinishedDeliveries(db.prisma, storeId, subscription.id, [
        { eventId: customerEvent.id, status: 'DELIVERED', attempts: [ok] },
        { eventId: orderEvent.id, status: 'DELIVERED', attempts: [failed] },
        { eventId: orderEvent.id, status: 'DISCARDED', attempts: [ok, failed] },
        { eventId: orderEvent.id, status: 'DISCARDED', attempts: [] },
      ]),
    ).rejects.toMatchObject({
      issues: [
        { path: 'deliveries.0.eventId', message: expect.stringContaining('customer.created, not a topic of the subscription') },
        { path: 'deliveries.1.attempts.0', message: 'the last attempt of a DELIVERED delivery is answered 2xx' },
        { path: 'deliveries.2.attempts.0', message: 'only the last attempt of a DELIVERED delivery is answered 2xx' },
        { path: 'deliveries.3.attempts', message: 'must list 1 to 100 attempts' },
      ],
    });
    await expect(recordFinishedDeliveries(db.prisma, 'str_other', subscription.id, [])).rejects.toThrow(/not found/);
    expect(await rowCounts(db)).toEqual(before);
  });
});

/**
 * The demo store's content without ids and timestamps: every record named by what it says
 * (SKU, order name, return number ...), lists sorted by content.
 */
async function content(database: Database, id: string) {
  const sorted = <T>(items: T[]) => items.map((item) => JSON.stringify(item)).sort();
  const [products, levels, shipments, purchaseOrders, customers, orders, returns, tags, subscriptions, events, adjustments, attributes, families] = await Promise.all([
    database.prisma.product.findMany({ where: { storeId: id }, include: { options: { select: { value: true } }, images: { select: { url: true, altText: true, position: true } }, attributes: { select: { value: true, attribute: { select: { name: true } } } }, family: { select: { title: true } } } }),
    database.prisma.inventoryLevel.findMany({ where: { storeId: id }, include: { product: { select: { sku: true } }, location: { select: { name: true } } } }),
    database.prisma.inboundShipment.findMany({ where: { storeId: id }, include: { location: { select: { name: true } }, items: { include: { product: { select: { sku: true } } } }, purchaseOrders: { select: { purchaseOrder: { select: { name: true } } } } } }),
    database.prisma.purchaseOrder.findMany({ where: { storeId: id }, include: { items: { include: { product: { select: { sku: true } } } } } }),
    database.prisma.customer.findMany({ where: { storeId: id }, include: { customFields: { include: { declaration: { select: { name: true } } } }, subscriptions: true } }),
    database.prisma.order.findMany({ where: { storeId: id }, include: { lineItems: true, fulfillmentGroups: { include: { location: { select: { name: true } } } }, fulfillments: { include: { trackingEvents: true, lineItems: { select: { quantity: true } } } }, customer: { select: { email: true } } } }),
    database.prisma.return.findMany({ where: { storeId: id }, include: { items: { include: { orderLineItem: { select: { externalId: true } } } }, notes: true, statusChanges: true, order: { select: { name: true } }, destinationLocation: { select: { name: true } } } }),
    database.prisma.returnTag.findMany({ where: { storeId: id } }),
    database.prisma.webhookSubscription.findMany({ where: { storeId: id }, include: { deliveries: { include: { attempts: true, event: { select: { topic: true } } } } } }),
    database.prisma.event.groupBy({ by: ['topic'], where: { storeId: id }, _count: { _all: true } }),
    database.prisma.inventoryAdjustment.findMany({ where: { level: { storeId: id } }, include: { level: { select: { product: { select: { sku: true } }, location: { select: { name: true } } } } } }),
    database.prisma.attribute.findMany({ where: { storeId: id } }),
    database.prisma.productFamily.findMany({ where: { storeId: id }, include: { options: true, images: true, attributes: { select: { value: true } } } }),
  ]);
  const skuOf = new Map(products.map((p) => [p.id, p.sku]));
  return {
    attributes: sorted(attributes.map((a) => [a.name, a.displayName, a.type, a.description])),
    families: sorted(families.map((f) => [f.title, f.description, f.vendor, f.tags, f.options.map((o) => [o.name, o.position, o.values]).sort(), f.images.map((i) => [i.url, i.position]).sort(), sorted(f.attributes.map((a) => a.value))])),
    products: sorted(products.map((p) => [p.sku, p.title, p.family?.title, p.price?.toString(), p.cost?.toString(), p.upc, p.tags, p.options.map((o) => o.value).sort(), p.images, sorted(p.attributes.map((a) => [a.attribute.name, a.value]))])),
    levels: sorted(levels.map((l) => [l.product.sku, l.location.name, l.quantity, l.committed, l.reserved])),
    adjustments: sorted(adjustments.map((a) => [a.level.product.sku, a.level.location.name, a.reason, a.quantityDelta, a.committedDelta, a.reservedDelta, a.referenceId?.startsWith('ord_') ? 'order' : a.referenceId?.startsWith('inb_') ? 'shipment' : a.referenceId])),
    shipments: sorted(shipments.map((s) => [s.status, s.carrier, s.trackingNumber, s.location.name, s.freightCost?.toString(), s.purchaseOrders.map((p) => p.purchaseOrder.name).sort(), sorted(s.items.map((i) => [i.product.sku, i.quantity, i.receivedQuantity, i.damagedQuantity]))])),
    purchaseOrders: sorted(purchaseOrders.map((p) => [p.name, p.vendor, p.status, sorted(p.items.map((i) => [i.product.sku, i.quantity, i.receivedQuantity, i.damagedQuantity, i.unitCost?.toString()]))])),
    customers: sorted(customers.map((c) => [c.email, c.name, c.phoneNumbers, c.location, sorted(c.customFields.map((f) => [f.declaration.name, f.stringValue, f.numberValue?.toString(), f.booleanValue, f.dateValue?.toISOString()])), sorted(c.subscriptions.map((s) => [s.channel, s.kind, s.status, s.address, s.triggerAutomations]))])),
    orders: sorted(orders.map((o) => [o.name, o.externalId, o.customerEmail, o.customer?.email, o.totalPrice?.toString(), o.totalTax?.toString(), o.totalDiscount?.toString(), o.shippingMethod, o.tags, o.fulfillmentGroups.map((g) => g.location?.name), sorted(o.lineItems.map((l) => [l.externalId, l.sku, l.productId ? skuOf.get(l.productId) : null, l.quantity, l.price?.toString(), l.discount?.toString(), l.oversoldQuantity])), sorted(o.fulfillments.map((f) => [f.externalId, f.status, f.trackingCompany, f.trackingNumber, f.lineItems.length, sorted(f.trackingEvents.map((e) => [e.status, e.message, e.city]))]))])),
    returns: sorted(returns.map((r) => [r.number, r.order?.name, r.status, r.type, r.totalRefund.toString(), r.totalStoreCredit.toString(), r.tags, r.carrier, r.trackingNumber, r.labelStatus, r.destinationLocation?.name, sorted(r.notes.map((n) => n.content)), sorted(r.statusChanges.map((c) => [c.operation, c.fromStatus, c.toStatus])), sorted(r.items.map((i) => [i.orderLineItem?.externalId, i.quantity, i.reason, i.customerComment, i.outcome, i.removedAt === null, i.refundAmount?.toString()]))])),
    tags: sorted(tags.map((t) => [t.name, t.pillTheme])),
    webhooks: sorted(subscriptions.map((s) => [s.url, s.topics, s.enabled, sorted(s.deliveries.map((d) => [d.event.topic, d.status, d.attemptCount, d.lastError, sorted(d.attempts.map((a) => [a.attemptNumber, a.durationMs, a.responseStatus, a.error]))]))])),
    events: sorted(events.map((e) => [e.topic, e._count._all])),
  };
}

describe('seeding', () => {
  it('gives every fresh database the same content (ids and times aside)', async () => {
    const other = await createTestDatabase();
    try {
      const second = await seedDemo(other.prisma);
      expect(second.seeded).toBe(true);
      const [mine, theirs] = await Promise.all([content(db, storeId), content(other, second.storeId)]);
      for (const key of Object.keys(mine) as (keyof typeof mine)[]) expect(theirs[key], key).toEqual(mine[key]);
      expect(mine.returns.length).toBe(73);
      expect(mine.orders.length).toBe(200);
    } finally {
      await other.close();
    }
  }, 300_000);

  it('a second seed finds the demo store and changes nothing', async () => {
    const before = await rowCounts(db);
    const snapshot = await content(db, storeId);
    expect(await seedDemo(db.prisma)).toEqual({ seeded: false, storeId });
    expect(await rowCounts(db)).toEqual(before);
    expect(await content(db, storeId)).toEqual(snapshot);
  });
});
