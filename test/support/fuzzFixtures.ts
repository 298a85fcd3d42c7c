// One store's worth of everything the fuzzer can name by id: made through /v3/graphql as a
// client would, then every id read back per kind, so a request can be given a real id of the
// kind its parameter names (and another store's id of that kind, which must be as unknown).
import { ID_PREFIXES, type IdKind } from '../../src/domain/ids.ts';
import { graphql, type TestServer, type TestStore } from './server.ts';

/** What ids are known by: the service's id kinds, plus those not made by `newId`. */
export type FixtureKind = IdKind | 'return' | 'returnTag' | 'productFamilyImage';

export interface Fixtures {
  store: TestStore;
  /** One real id (a name for return tags) per kind. */
  ids: Partial<Record<FixtureKind, string>>;
  /**
   * The merchant's references: an order's own id (also the fixture webhook's externalId, so one
   * `externalId` serves both), a line's, a return's number and order name, the customer's e-mail.
   */
  orderExternalId: string;
  lineExternalId: string;
  returnNumber: number;
  orderName: string;
  customerEmail: string;
}

// A public address as the webhook policy wants; nothing is ever delivered (no dispatcher runs in tests).
const HOOK_URL = 'https://93.184.215.14/fuzz-hook';

async function mutate<T>(server: TestServer, store: TestStore, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const result = await graphql(server, store.secret, query, variables);
  if (result.errors?.length || !result.data) throw new Error(`fixture mutation failed: ${JSON.stringify(result.errors)}\n${query}`);
  return result.data as T;
}

/** Rows of each kind, made through the schema's mutations in the order their references need. */
export async function seedFixtures(server: TestServer, store: TestStore, label: string): Promise<Fixtures> {
  const run = <T>(query: string, variables: Record<string, unknown> = {}) => mutate<T>(server, store, query, variables);
  const sku = `FUZZ-${label}`;
  const orderExternalId = `fuzz-order-${label}`;
  const customerEmail = `fuzz-${label}@example.com`;
  const made = await run<{
    locationCreate: { location: { id: string } };
    productCreate: { product: { id: string } };
    productFamilyCreate: { productFamily: { id: string } };
  }>(
    `mutation ($sku: String!, $email: String!, $externalId: String!) {
      locationCreate(input: { name: "Fuzz warehouse", city: "Springfield", countryCode: "US" }) { location { id } }
      productCreate(input: { title: "Fuzz shirt", sku: $sku, price: "12.50", currency: "USD" }) { product { id } }
      productFamilyCreate(input: { title: "Fuzz family" }) { productFamily { id } }
      attributeCreate(input: { name: "fabric", displayName: "Fabric", type: SHORT_TEXT }) { attribute { id } }
      upsertCustomer(input: { email: $email, firstName: "Fuzz" }) { customer { id } }
      upsertReturnTag(name: "fuzz-tag", pillTheme: "NORMAL") { name }
      billingSettingsUpdate(input: { returnProcessingFee: "1.50" }) { __typename }
      coverageSettingsUpdate(input: { type: SHIPPING_FAILURE, enabled: true, percentage: "2", minimumPrice: "0.50", maximumPrice: "9" }) { coverageProduct { id } }
      saveReturnWebhook(input: { url: "${HOOK_URL}", payload: REDO, externalId: $externalId }) { subscription { id } }
    }`,
    { sku, email: customerEmail, externalId: orderExternalId },
  );
  const locationId = made.locationCreate.location.id;
  const productId = made.productCreate.product.id;
  const productFamilyId = made.productFamilyCreate.productFamily.id;

  const lineExternalId = 'fuzz-line-1';
  const stock = await run<{ createOrder: { id: string; name: string }; purchaseOrderCreate: { purchaseOrder: { id: string } } }>(
    `mutation ($productId: ID!, $productRef: String!, $productFamilyId: ID!, $locationId: ID!, $orderId: String!, $line: String!) {
      productImageCreate(productId: $productId, input: { url: "https://93.184.215.14/shirt.png", altText: "Shirt" }) { image { id } }
      productFamilyImageCreate(productFamilyId: $productFamilyId, input: { url: "https://93.184.215.14/family.png" }) { image { id } }
      inventoryAdjust(input: { productId: $productId, locationId: $locationId, quantityDelta: 20, reason: "fuzz stock" }) { __typename }
      createOrder(input: {
        orderId: $orderId, createdAt: "2026-01-05T10:00:00Z", locationId: $locationId, currency: "USD",
        lineItems: [
          { id: $line, productId: $productRef, title: "Fuzz shirt", quantity: 3, price: "12.50" },
          { id: "fuzz-line-2", productId: "ext-sticker", title: "Sticker", quantity: 2, price: "1.00" }
        ]
      }) { id name }
      purchaseOrderCreate(input: { name: "PO-${label}", vendor: "Fuzz mills", currency: "USD", items: [{ productId: $productId, quantity: 5, unitCost: "4.00" }] }) { purchaseOrder { id } }
    }`,
    { productId, productRef: productId, productFamilyId, locationId, orderId: orderExternalId, line: lineExternalId },
  );
  const orderId = stock.createOrder.id;

  const returned = await run<{ createReturn: { return: { id: string; number: number } } }>(
    `mutation ($orderId: ID!, $line: String!, $locationId: ID!, $productId: ID!) {
      createReturn(input: { orderId: $orderId, items: [{ lineItemId: $line, quantity: 1, reason: "Too small", outcome: REFUND }], notes: "fuzz" }) { return { id number } }
      createFulfillment(orderId: "${orderExternalId}", input: { fulfillmentId: "fuzz-fulfillment", lineItems: [{ id: "fuzz-line-2", quantity: 1 }], tracking: { carrier: "UPS", code: "1Z999" } }) { id }
      inboundShipmentCreate(input: { locationId: $locationId, carrier: "UPS", currency: "USD", items: [{ productId: $productId, quantity: 4 }] }) { inboundShipment { id } }
    }`,
    { orderId, line: lineExternalId, locationId, productId },
  );
  const returnId = returned.createReturn.return.id;
  await run(`mutation ($id: ID!) { addReturnNote(id: $id, content: "fuzz note") { id } setReturnTags(id: $id, tags: ["fuzz-tag"]) { id } }`, { id: returnId });

  return {
    store,
    ids: { ...(await idsByKind(server, store.storeId)), return: returnId, returnTag: 'fuzz-tag' },
    orderExternalId,
    lineExternalId,
    returnNumber: returned.createReturn.return.number,
    orderName: stock.createOrder.name,
    customerEmail,
  };
}

/** The first id of each kind in the store's rows, read back rather than threaded through every answer above. */
async function idsByKind(server: TestServer, storeId: string): Promise<Partial<Record<FixtureKind, string>>> {
  const p = server.db.prisma;
  const first = async (rows: Promise<{ id: string } | null>) => (await rows)?.id;
  const byStore = { where: { storeId }, select: { id: true } } as const;
  const entries: [FixtureKind, string | undefined][] = [
    ['store', storeId],
    ['location', await first(p.location.findFirst(byStore))],
    ['product', await first(p.product.findFirst(byStore))],
    ['productFamily', await first(p.productFamily.findFirst(byStore))],
    ['productImage', await first(p.productImage.findFirst({ where: { product: { storeId } }, select: { id: true } }))],
    ['productFamilyImage', await first(p.productFamilyImage.findFirst({ where: { family: { storeId } }, select: { id: true } }))],
    ['attribute', await first(p.attribute.findFirst(byStore))],
    ['inventoryLevel', await first(p.inventoryLevel.findFirst(byStore))],
    ['inboundShipment', await first(p.inboundShipment.findFirst(byStore))],
    ['inboundShipmentItem', await first(p.inboundShipmentItem.findFirst({ where: { shipment: { storeId } }, select: { id: true } }))],
    ['purchaseOrder', await first(p.purchaseOrder.findFirst(byStore))],
    ['purchaseOrderItem', await first(p.purchaseOrderItem.findFirst({ where: { purchaseOrder: { storeId } }, select: { id: true } }))],
    ['order', await first(p.order.findFirst(byStore))],
    ['orderLineItem', await first(p.orderLineItem.findFirst({ where: { order: { storeId } }, select: { id: true } }))],
    ['fulfillment', await first(p.fulfillment.findFirst(byStore))],
    ['customer', await first(p.customer.findFirst(byStore))],
    ['webhookSubscription', await first(p.webhookSubscription.findFirst(byStore))],
    ['webhookDelivery', await first(p.webhookDelivery.findFirst({ where: { subscription: { storeId } }, select: { id: true } }))],
    ['event', await first(p.event.findFirst(byStore))],
    ['apiClient', await first(p.apiClient.findFirst(byStore))],
    ['coverageProduct', await first(p.coverageProduct.findFirst(byStore))],
    ['invoice', await first(p.invoice.findFirst(byStore))],
    ['returnItem', await first(p.returnItem.findFirst({ where: { return: { storeId } }, select: { id: true } }))],
    ['returnNote', await first(p.returnNote.findFirst({ where: { return: { storeId } }, select: { id: true } }))],
  ];
  return Object.fromEntries(entries.filter(([, id]) => id !== undefined));
}

/** An id of the kind's shape that names nothing. */
export function unknownId(kind: FixtureKind): string {
  if (kind === 'return') return 'ffffffffffffffffffffffff';
  if (kind === 'returnTag') return 'no-such-tag';
  const prefix = kind in ID_PREFIXES ? ID_PREFIXES[kind as IdKind] : 'img';
  return `${prefix}_zzzzzzzzzzzzzzzzzzzz`;
}
