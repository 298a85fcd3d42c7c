// End to end with a client generated from the reference document: openapi-fetch typed by
// the published `lib/openapi.d.ts` (no cast, no hand-written request type). Every answer is
// also validated against the document's schema for its operation and status.
// Covered here (part B of issue 9): order create with every nullable field null ->
// fulfillment + shipment status -> GET order -> inventory items -> inventory level detail
// -> inbound shipment detail -> DELETE order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { seedLevel, seedLocation, seedProduct, seedShipment } from '../support/inventoryFixtures.ts';
import { referenceClient } from '../support/reference.ts';

let server: TestServer;
let store: TestStore;
let locationId: string;
let productId: string;
let levelId: string;
let shipmentId: string;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  locationId = await seedLocation(server.db, store.storeId, 'Main');
  productId = await seedProduct(server.db, store.storeId, { title: 'Shirt', sku: 'SHIRT-1' });
  levelId = await seedLevel(server.db, { storeId: store.storeId, productId, locationId, quantity: 12 });
  shipmentId = (await seedShipment(server.db, { storeId: store.storeId, locationId, status: 'RECEIVED', items: [{ productId, quantity: 5, receivedQuantity: 3, damagedQuantity: 1 }] })).id;
});
afterAll(async () => server?.close());

const client = () => referenceClient(server.url, store.secret);

describe('a client generated from the reference document', () => {
  it('creates an order with nulls, fulfills and tracks it, reads it back, then reads inventory and deletes the order', async () => {
    const api = client();
    const storeId = store.storeId;

    const created = await api.POST('/stores/{storeId}/orders', {
      params: { path: { storeId } },
      body: {
        orderId: 'E2E-1',
        createdAt: '2026-07-01T09:00:00Z',
        lineItems: [{ id: 'L1', productId, title: 'Shirt', quantity: 2, variantId: null, imageUrl: null, sku: null, price: 20, discount: null }],
        customer: { email: 'e2e@example.com', phoneNumber: null, name: null },
        shipping: { method: null, cost: null, address: { address1: '1 Main St', address2: null, city: 'Reno', province: null, country: 'US', postalCode: null } },
        billingAddress: { address2: null },
        totalPrice: 40,
        totalTax: null,
        tags: null,
        currencyCode: 'USD',
        locationId,
      },
    });
    expect(created.response.status).toBe(200);
    expect(created.data?.externalOrderId).toBe('E2E-1');

    const fulfilled = await api.POST('/stores/{storeId}/orders/{orderId}/fulfillments', {
      params: { path: { storeId, orderId: 'E2E-1' } },
      body: { fulfillmentId: 'F-1', lineItems: [{ id: 'L1', quantity: 2 }], tracking: { carrier: 'UPS', code: '1Z999' } },
    });
    expect(fulfilled.data?.fulfillment.status).toBe('pre_transit');

    const tracked = await api.POST('/stores/{storeId}/orders/{orderId}/fulfillments/{fulfillmentId}/shipment-status', {
      params: { path: { storeId, orderId: 'E2E-1', fulfillmentId: 'F-1' } },
      body: { status: 'out_for_delivery', message: 'On the truck', datetime: '2026-07-02T08:00:00Z', location: { city: 'Reno', state: 'NV', country: null, postalCode: null } },
    });
    expect(tracked.data?.fulfillment.trackingHistory).toHaveLength(1);

    const order = await api.GET('/stores/{storeId}/orders/{orderId}', { params: { path: { storeId, orderId: created.data!.orderId } } });
    expect(order.data).toMatchObject({ orderId: 'E2E-1', fulfillments: [{ id: 'F-1', status: 'out_for_delivery', trackingNumber: '1Z999' }] });

    const items = await api.GET('/stores/{storeId}/inventory-items', { params: { path: { storeId }, query: { location_id: locationId } } });
    expect(items.data?.inventory_items).toEqual([expect.objectContaining({ id: productId, quantity: 12, kind: 'PRODUCT' })]);
    const item = await api.GET('/stores/{storeId}/inventory-items/{inventoryItemId}', { params: { path: { storeId, inventoryItemId: productId } } });
    expect(item.data?.inventory_item.locations).toEqual([{ location_id: locationId, location_name: 'Main', quantity: 12 }]);

    const level = await api.GET('/stores/{storeId}/inventory-levels/{inventoryLevelId}', { params: { path: { storeId, inventoryLevelId: levelId } } });
    expect(level.data?.inventory_level).toMatchObject({ id: levelId, committed: 2, external_ids: null });

    const shipment = await api.GET('/stores/{storeId}/inbound-shipments/{inboundShipmentId}', { params: { path: { storeId, inboundShipmentId: shipmentId } } });
    expect(shipment.data?.inbound_shipment).toMatchObject({ damaged_count: 1, missing_count: 1, items: [{ missing_quantity: 1 }], transfer_orders: [], files: [] });

    const deleted = await api.DELETE('/stores/{storeId}/orders/{orderId}', { params: { path: { storeId, orderId: 'E2E-1' } } });
    expect(deleted.data).toEqual({ success: true, orderId: created.data!.orderId, externalOrderId: 'E2E-1' });
    const gone = await api.GET('/stores/{storeId}/orders/{orderId}', { params: { path: { storeId, orderId: 'E2E-1' } } });
    expect(gone.response.status).toBe(404);
    expect(gone.error).toEqual({ error: expect.any(String) });
  });
});
