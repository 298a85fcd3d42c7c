// What both soaks share (`npm run soak`, one instance killed; `npm run soak:cluster`,
// instances behind a load balancer): the store they write to, the mixed writes (REST
// customer upserts, REST orders that commit stock, v3 inventory adjustments), and the
// checks afterwards: every acknowledged write is in the database, every webhook event
// reached its subscriber in the order the outbox recorded per subject.
import { SCOPES } from '../../src/auth/scopes.ts';
import type { Database } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import type { Topic } from '../../src/domain/events.ts';
import { newId } from '../../src/domain/ids.ts';
import { createApiClient, createStore } from '../../src/domain/stores.ts';
import { createWebhookSubscription } from '../../src/domain/webhooks.ts';
import type { ReceivedRequest } from '../webhooks/support.ts';
import { LOOPBACK_ALLOWED } from '../support/contexts.ts';

export const PRODUCTS = 8;

export type WriteKind = 'customer' | 'order' | 'adjustment';
export const WRITE_KINDS: readonly WriteKind[] = ['customer', 'order', 'adjustment'];
/** Every topic the writes announce. */
export const WRITE_TOPICS: readonly Topic[] = ['customer.created', 'customer.updated', 'order.created', 'inventory_level.updated'];

export interface Acknowledged {
  kind: WriteKind;
  /** E-mail, merchant order id or adjustment referenceId: unique per write within a soak. */
  key: string;
}

export interface Fixture {
  storeId: string;
  secret: string;
  /** One per subscriber passed to prepareFixture, in the same order. */
  subscriptionIds: string[];
  levelIds: string[];
  productIds: string[];
}

/**
 * Migrates the database and creates the store, an API client with every scope, products with
 * little stock (so orders soon commit past it while adjustments keep adding) and a webhook
 * subscription per subscriber.
 */
export async function prepareFixture(db: Database, subscribers: { url: string; topics: readonly Topic[] }[]): Promise<Fixture> {
  await applyMigrations(db);
  const { id: storeId } = await createStore(db.prisma, { name: 'Soak store' });
  const { secret } = await createApiClient(db.prisma, { storeId, name: 'soak', scopes: SCOPES });
  const store = await db.prisma.store.findUniqueOrThrow({ where: { id: storeId } });
  const productIds: string[] = [];
  const levelIds: string[] = [];
  for (let p = 0; p < PRODUCTS; p++) {
    const { id: productId } = await db.prisma.product.create({ data: { id: newId('product'), storeId, title: `Soak product ${p}`, sku: `SOAK-${p}` } });
    const { id: levelId } = await db.prisma.inventoryLevel.create({
      data: { id: newId('inventoryLevel'), storeId, productId, locationId: store.defaultLocationId!, quantity: 5 },
    });
    productIds.push(productId);
    levelIds.push(levelId);
  }
  const subscriptionIds: string[] = [];
  for (const subscriber of subscribers) {
    subscriptionIds.push((await createWebhookSubscription(db.prisma, storeId, { url: subscriber.url, topics: [...subscriber.topics] }, LOOPBACK_ALLOWED)).id);
  }
  return { storeId, secret, subscriptionIds, productIds, levelIds };
}

/** The key of write `n`, unique per prefix (a soak round or phase). */
export function writeKey(kind: WriteKind, prefix: string, n: number): string {
  return kind === 'customer' ? `${prefix}-${n}@soak.example.com` : `${prefix}-${n}`;
}

/**
 * What became of one write: acknowledged; failed without a verdict on the write (no answer,
 * a 5xx, or a v3 error the service raised rather than the input), so it may or may not have
 * committed; or refused (any other answer: the write or the service is wrong).
 */
export type WriteOutcome =
  | { result: 'acknowledged' }
  | { result: 'failed'; reason: string }
  | { result: 'refused'; message: string };

/** v3 error codes that say the service, not the write, failed. */
const SERVICE_ERROR_CODES = new Set(['INTERNAL_SERVER_ERROR', 'UNAVAILABLE']);

/** One write of `kind` to the service at `baseUrl`, the n-th of its soak. */
export async function write(baseUrl: string, fixture: Fixture, kind: WriteKind, key: string, n: number): Promise<WriteOutcome> {
  const headers = { authorization: `Bearer ${fixture.secret}`, 'content-type': 'application/json' };
  let response: Response;
  let text: string;
  try {
    if (kind === 'customer') {
      response = await fetch(`${baseUrl}/v2.2/stores/${fixture.storeId}/customers`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ email: key, firstName: 'Soak', lastName: String(n) }),
      });
    } else if (kind === 'order') {
      const product = n % PRODUCTS;
      response = await fetch(`${baseUrl}/v2.2/stores/${fixture.storeId}/orders`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          orderId: key,
          createdAt: new Date().toISOString(),
          lineItems: [{ id: '1', productId: fixture.productIds[product], title: `Soak product ${product}`, quantity: 1 + (n % 3) }],
        }),
      });
    } else {
      response = await fetch(`${baseUrl}/v3/graphql`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          query: 'mutation($input: InventoryAdjustInput!) { inventoryAdjust(input: $input) { inventoryLevel { id } userErrors { message } } }',
          variables: { input: { inventoryLevelId: fixture.levelIds[n % PRODUCTS], quantityDelta: 1, reason: 'soak', referenceId: key } },
        }),
      });
    }
    text = await response.text();
  } catch {
    return { result: 'failed', reason: 'no answer' };
  }
  if (response.status >= 500) return { result: 'failed', reason: `HTTP ${response.status}` };
  const refused = { result: 'refused', message: `${kind} ${key} refused: ${response.status} ${text.slice(0, 300)}` } as const;
  if (response.status >= 300) return refused;
  if (kind === 'adjustment') {
    const body = JSON.parse(text) as {
      data?: { inventoryAdjust?: { inventoryLevel: unknown; userErrors: unknown[] } | null } | null;
      errors?: { extensions?: { code?: string } }[];
    };
    const code = body.errors?.[0]?.extensions?.code;
    if (code && SERVICE_ERROR_CODES.has(code)) return { result: 'failed', reason: `v3 ${code}` };
    if (!body.data?.inventoryAdjust?.inventoryLevel || body.data.inventoryAdjust.userErrors.length > 0) return refused;
  }
  return { result: 'acknowledged' };
}

/** A description of every acknowledged write the database does not hold. */
export async function missingWrites(db: Database, storeId: string, acknowledged: Acknowledged[]): Promise<string[]> {
  const customers = new Set((await db.prisma.customer.findMany({ where: { storeId }, select: { email: true } })).map((c) => c.email));
  const orders = new Set((await db.prisma.order.findMany({ where: { storeId }, select: { externalId: true } })).map((o) => o.externalId));
  const adjustments = new Set(
    (await db.prisma.inventoryAdjustment.findMany({ where: { reason: 'soak' }, select: { referenceId: true } })).map((a) => a.referenceId),
  );
  const present = { customer: customers, order: orders, adjustment: adjustments };
  return acknowledged.filter((w) => !present[w.kind].has(w.key)).map((w) => `acknowledged ${w.kind} ${w.key} is missing`);
}

export interface DeliveryCheck {
  failures: string[];
  /** Deliveries the outbox recorded for the subscription. */
  events: number;
  /** Requests whose Webhook-Id the subscriber had already received. */
  duplicates: number;
}

/**
 * Compares what one subscription's subscriber received (`requests`, in arrival order) with
 * the outbox: every delivery DELIVERED, and per subject every event received in the order
 * of the deliveries' `sequence`. A repeat is allowed only right behind itself (the delivery
 * in flight when a dispatcher died, sent again when its lease expired).
 */
export async function checkDeliveries(db: Database, subscriptionId: string, requests: ReceivedRequest[]): Promise<DeliveryCheck> {
  const failures: string[] = [];
  const deliveries = await db.prisma.webhookDelivery.findMany({
    where: { subscriptionId },
    orderBy: { sequence: 'asc' },
    select: { eventId: true, subjectId: true, status: true },
  });
  const notDelivered = deliveries.filter((d) => d.status !== 'DELIVERED');
  if (notDelivered.length > 0) failures.push(`${notDelivered.length} deliveries are not DELIVERED (first: ${notDelivered[0].eventId} ${notDelivered[0].status})`);
  const recorded = new Map<string, string[]>();
  for (const d of deliveries) recorded.set(d.subjectId, [...(recorded.get(d.subjectId) ?? []), d.eventId]);
  const seen = new Set<string>();
  let duplicates = 0;
  const arrived = new Map<string, string[]>();
  for (const { headers, body } of requests) {
    const webhookId = String(headers['webhook-id']);
    if (seen.has(webhookId)) duplicates++;
    seen.add(webhookId);
    const list = arrived.get(body.subjectId) ?? [];
    if (list.at(-1) !== body.id) list.push(body.id);
    arrived.set(body.subjectId, list);
  }
  for (const [subject, expected] of recorded) {
    const got = arrived.get(subject) ?? [];
    if (got.join() !== expected.join()) failures.push(`subject ${subject}: received ${got.length} events out of order or incomplete (expected ${expected.length})`);
  }
  return { failures, events: deliveries.length, duplicates };
}

