// End to end, returns and webhooks, with a client generated from the reference document
// (openapi-fetch typed by the published `lib/openapi.d.ts`; no cast, no hand-written
// request type), every answer validated against the document: webhooks of both kinds ->
// order create -> custom order sync (the same order, updated in place) -> return create
// (the document's body) -> list / get / status / comments / process -> tags -> the payloads
// received on a loopback receiver, each validated against its published shape -> replay ->
// delete -> bulk product upload -> inventory items of the uploaded products.
// (Fulfillments and shipment statuses run through the same client in referenceClient.test.ts.)
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { systemLookup } from '../../src/domain/webhooks.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { referenceClient, referenceWebhookProblems } from '../support/reference.ts';
import { emit, loopbackCertificate, startReceiver, waitFor, type ReceivedRequest, type Receiver } from '../webhooks/support.ts';
import { testContexts } from '../support/contexts.ts';

let server: TestServer;
let store: TestStore;
let receiver: Receiver;
let dispatcher: WebhookDispatcher;

beforeAll(async () => {
  server = await startTestServer({ webhooksAllowLoopback: true });
  store = await createTestStore(server.db, { name: 'Harbour Goods' });
  // The document allows https callbacks only: the receiver serves https with a certificate the dispatcher is told to trust.
  const tls = loopbackCertificate();
  receiver = await startReceiver(undefined, tls);
  dispatcher = new WebhookDispatcher({
    db: server.db,
    logger: createLogger('silent'),
    policy: { allowLoopback: true, lookup: systemLookup },
    newContext: testContexts(server.db),
    pollIntervalMs: 20,
    trustedCa: tls.cert,
  });
  dispatcher.start();
});
afterAll(async () => {
  await dispatcher?.stop(100);
  await receiver?.close();
  await server?.close();
});

const client = () => referenceClient(server.url, store.secret);

// The other returns platform publishes its return webhook as a field list, not a JSON Schema:
// these are the documented fields this service sends, with their documented types.
const money = { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' };
const LOOP_RETURN_WEBHOOK = {
  type: 'object',
  required: ['topic', 'trigger', 'shop_id', 'id', 'state', 'created_at', 'edited_at', 'total', 'order_id', 'order_name', 'currency', 'line_items'],
  properties: {
    topic: { const: 'return' },
    trigger: { enum: ['return.created', 'return.updated', 'return.closed'] },
    id: { type: 'string' },
    state: { enum: ['open', 'cancelled', 'closed', 'expired', 'review'] },
    created_at: { type: 'string', format: 'date-time' },
    edited_at: { type: ['string', 'null'] },
    total: money,
    return_total: money,
    order_name: { type: 'string' },
    customer: { type: ['string', 'null'] },
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
    labels: { type: 'array' },
    line_items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['line_item_id', 'product_id', 'sku', 'title', 'price', 'discount', 'tax', 'refund'],
        properties: { price: money, discount: money, tax: money, refund: money, title: { type: 'string' } },
      },
    },
  },
};
const validateLoop = new Ajv2020({ strict: false, validateFormats: false }).compile(LOOP_RETURN_WEBHOOK);

async function defaultLocationId(): Promise<string> {
  const res = await graphql(server, store.secret, '{ store { defaultLocation { id } } }');
  return (res.data as { store: { defaultLocation: { id: string } } }).store.defaultLocation.id;
}

/** The value, or a failed test naming what was missing. */
function present<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`${what} is missing`);
  return value;
}

const bodies = (path: string) => receiver.requests.filter((r: ReceivedRequest) => r.path === path).map((r) => r.body as unknown as Record<string, unknown>);

describe('returns and webhooks with a client generated from the reference document', () => {
  it('creates webhooks of both kinds, runs a return through its life, and delivers each change in both published shapes', async () => {
    const api = client();
    const storeId = store.storeId;

    const redoHook = await api.POST('/stores/{storeId}/webhooks', {
      params: { path: { storeId } },
      body: { webhook: { callback: { url: `${receiver.url}/redo`, auth: { bearer: { token: 'tok_redo' } } }, topic: 'return', kind: 'redo', externalId: 'e2e-redo', backfill: false } },
    });
    expect(redoHook.response.status).toBe(201);
    const loopHook = await api.POST('/stores/{storeId}/webhooks', {
      params: { path: { storeId } },
      body: { webhook: { callback: { url: `${receiver.url}/loop`, auth: null }, topic: 'return', kind: 'loop', externalId: null } },
    });
    const redoId = present(redoHook.data?.webhook?.id, 'the redo webhook id');
    const loopId = present(loopHook.data?.webhook?.id, 'the loop webhook id');
    expect(loopHook.data?.webhook?.kind).toBe('loop');
    const listed = await api.GET('/stores/{storeId}/webhooks', { params: { path: { storeId } } });
    expect(listed.data?.webhooks.map((w) => w.id).sort()).toEqual([redoId, loopId].sort());

    const order = await api.POST('/stores/{storeId}/orders', {
      params: { path: { storeId } },
      body: {
        orderId: 'E2E-R1',
        createdAt: '2026-07-01T09:00:00Z',
        lineItems: [{ id: 'L1', productId: 'prd-merchant-1', title: 'Canvas Tote', quantity: 2, variantId: null, imageUrl: null, sku: 'TOTE-1', price: 30, discount: null }],
        customer: { email: 'shopper@example.com', phoneNumber: null, name: null },
        totalPrice: 60,
        currencyCode: 'USD',
      },
    });
    expect(order.response.status).toBe(200);

    // The merchant's platform syncs the same order: updated in place, never duplicated.
    const money = (amount: string) => ({ presentmentMoney: { amount, currencyCode: 'USD' }, shopMoney: { amount, currencyCode: 'USD' } });
    const synced = await api.POST('/stores/{storeId}/custom/orders', {
      params: { path: { storeId } },
      body: {
        id: 'E2E-R1',
        type: 'order',
        createdAt: '2026-07-01T09:00:00Z',
        updatedAt: '2026-07-01T10:00:00Z',
        presentmentCurrency: 'USD',
        shopCurrency: 'USD',
        customer: { email: 'shopper@example.com', firstName: 'Sam', lastName: 'Shopper' },
        lineItems: [{ id: 'L1', quantity: 2, priceSet: money('30.00'), title: 'Canvas Tote', productId: 'prd-merchant-1', sku: 'TOTE-1' }],
        orderDiscounts: [],
        shippingLines: [],
        fulfillments: [],
        shippingAddress: { address1: '5 Elm St', city: 'Springfield', provinceCode: 'IL', zip: '62701', countryCode: 'US' },
      },
    });
    expect(synced.response.status).toBe(200);
    expect(await server.db.prisma.order.count({ where: { storeId, externalId: 'E2E-R1' } })).toBe(1);

    const created = await api.POST('/stores/{storeId}/returns', {
      params: { path: { storeId } },
      body: {
        data: {
          provider: 'shopify',
          externalOrderId: 'E2E-R1',
          items: [{ lineItemId: 'L1', quantity: 1, reason: 'Too small', compensation: 'refund' }],
          shippingAddress: { line1: '5 Elm St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' },
        },
      },
    });
    expect(created.response.status).toBe(201);
    const returnId = created.data!.return.id;

    const list = await api.GET('/stores/{storeId}/returns', { params: { path: { storeId } } });
    expect(list.data?.returns.map((r) => r.id)).toContain(returnId);
    const got = await api.GET('/returns/{returnId}', { params: { path: { returnId } } });
    expect(got.data?.return.status).toBe('open');

    const flagged = await api.PUT('/returns/{returnId}/status', { params: { path: { returnId } }, body: { status: 'flagged' } });
    expect(flagged.response.status).toBe(204);
    const status = await api.GET('/returns/{returnId}/status', { params: { path: { returnId } } });
    expect(status.data?.status).toBe('flagged');
    await api.PUT('/returns/{returnId}/status', { params: { path: { returnId } }, body: { status: 'open' } });

    await api.POST('/returns/{returnId}/comments', { params: { path: { returnId } }, body: { comment: { message: 'Box was dented' } } });
    const comments = await api.GET('/returns/{returnId}/comments', { params: { path: { returnId } } });
    expect(comments.data?.comments.map((c) => ('message' in c ? c.message : c.image))).toEqual(['Box was dented']);

    const tag = await api.PUT('/stores/{storeId}/return-tags/{name}', { params: { path: { storeId, name: 'fragile' } }, body: { pillTheme: 'DANGER' } });
    expect(tag.response.ok).toBe(true);
    const tags = await api.GET('/stores/{storeId}/return-tags', { params: { path: { storeId } } });
    expect(JSON.stringify(tags.data)).toContain('fragile');

    const item = got.data!.return.items[0];
    const processed = await api.POST('/returns/{returnId}/process', { params: { path: { returnId } }, body: { products: [{ _id: item.id }] } });
    expect(processed.response.status).toBe(200);
    expect((await api.GET('/returns/{returnId}/status', { params: { path: { returnId } } })).data?.status).toBe('complete');

    // created, flagged, reopened, commented, completed: five events, each in both shapes, in order.
    await waitFor(() => bodies('/redo').length >= 5 && bodies('/loop').length >= 5, 'five deliveries of each kind');
    const redo = bodies('/redo');
    for (const body of redo) expect(referenceWebhookProblems('return', body)).toEqual([]);
    expect(redo.map((b) => b.type)).toEqual(['created', 'updated', 'updated', 'updated', 'updated']);
    expect(redo[0]).toMatchObject({ merchantName: 'Harbour Goods', return: { id: returnId }, order: { id: expect.any(String) } });
    expect(receiver.requests.find((r) => r.path === '/redo')?.headers.authorization).toBe('Bearer tok_redo');
    expect(receiver.requests.find((r) => r.path === '/loop')?.headers.authorization).toBeUndefined();

    const loop = bodies('/loop');
    for (const body of loop) expect(validateLoop(body), JSON.stringify(validateLoop.errors)).toBe(true);
    expect(loop.map((b) => b.trigger)).toEqual(['return.created', 'return.updated', 'return.updated', 'return.updated', 'return.closed']);
    expect(loop.at(-1)).toMatchObject({ topic: 'return', state: 'closed', order_name: expect.any(String), customer: 'shopper@example.com' });

    const replayed = await api.POST('/webhooks/{webhookId}/replay', { params: { path: { webhookId: loopId } }, body: { start: '2000-01-01T00:00:00Z' } });
    expect(replayed.response.status).toBe(202);
    await waitFor(() => bodies('/loop').length >= 10, 'the replayed deliveries');
    // A replay sends each event again as it was announced, with the return as it is now.
    const again = bodies('/loop').slice(5);
    expect(again.map((b) => b.trigger)).toEqual(loop.map((b) => b.trigger));
    expect(again.every((b) => b.state === 'closed')).toBe(true);

    const removed = await api.DELETE('/webhooks/{webhookId}', { params: { path: { webhookId: redoId } } });
    expect(removed.response.status).toBe(204);
    const after = await api.GET('/webhooks/{webhookId}', { params: { path: { webhookId: redoId } } });
    expect(after.response.status).toBe(404);

    const uploaded = await api.POST('/stores/{storeId}/products/bulk-upload', {
      params: { path: { storeId } },
      body: {
        products: [
          {
            title: 'Harbour Jacket',
            external_id: 'EXT-JACKET',
            options: [{ name: 'Size', values: ['M', 'L'] }],
            variants: [
              { sku: 'JACKET-M', price: 8900, currency: 'USD', option_values: ['M'] },
              { sku: 'JACKET-L', price: 8900, currency: 'USD', option_values: ['L'] },
            ],
          },
        ],
      },
    });
    expect(uploaded.response.status).toBe(200);
    const productIds = (uploaded.data?.results ?? []).flatMap((result) => ('products' in result ? result.products.map((product) => product.id) : []));
    expect(productIds).toHaveLength(2);
    // Inventory items are products with units on hand: the warehouse receives the jacket (v3).
    const received = await graphql(
      server,
      store.secret,
      `mutation($input: InventoryAdjustInput!) { inventoryAdjust(input: $input) { userErrors { message } } }`,
      { input: { productId: productIds[0], locationId: await defaultLocationId(), quantityDelta: 7, reason: 'received' } },
    );
    expect(received.data).toEqual({ inventoryAdjust: { userErrors: [] } });
    const inventoryItem = await api.GET('/stores/{storeId}/inventory-items/{inventoryItemId}', { params: { path: { storeId, inventoryItemId: productIds[0] } } });
    expect(inventoryItem.response.status).toBe(200);
    expect(inventoryItem.data?.inventory_item).toMatchObject({ id: productIds[0], quantity: 7 });
  });

  it('discards at once, without retrying, a delivery whose return no longer exists', async () => {
    const subscription = await server.db.prisma.webhookSubscription.create({
      data: { id: newId('webhookSubscription'), storeId: store.storeId, url: `${receiver.url}/gone`, topics: ['return.created'], payload: 'REDO' },
    });
    const eventId = await emit(server.db, store.storeId, 'return.created', 'ffffffffffffffffffffffff');
    const delivery = await waitFor(async () => {
      const found = await server.db.prisma.webhookDelivery.findFirst({ where: { eventId, subscriptionId: subscription.id } });
      return found?.status !== 'PENDING' && found;
    }, 'the delivery to settle');
    expect(delivery).toMatchObject({ status: 'DISCARDED', attemptCount: 1, lastError: 'return ffffffffffffffffffffffff no longer exists' });
    expect(bodies('/gone')).toEqual([]);
  });
});
