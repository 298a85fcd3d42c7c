// A fixed set of order creations through the REST door and v3, and what each answered and
// wrote, compared with __fixtures__/orderAnswers.json: that file was recorded by the order
// path as it stood before issue 46 rewrote it into a few set-based statements, so any answer,
// row, ledger entry, event or audit entry that the rewrite changes shows here. Generated ids
// and times differ from run to run; each is replaced by a name that says what it is (an
// order's id by its name, a line's by its order and position, a level's by its product and
// location), so the rest is compared byte for byte.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { call, createTestStore, linkFulfillmentService, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;
const names = new Map<string, string>();

/** Every known id and every generated time of `value` replaced by its stable name. */
function stable(value: unknown): unknown {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
  if (text === undefined) return value;
  const replaced = text
    .replace(/\b[a-z]{2,4}_[0-9a-z]{20}\b/g, (id) => names.get(id) ?? `<unnamed ${id.slice(0, id.indexOf('_'))}>`)
    // Times the service takes from the clock; the fixed request times are in 2025.
    .replace(/20[2-9][6-9]-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?/g, '<now>');
  return JSON.parse(replaced);
}

async function location(storeId: string, name: string): Promise<string> {
  const id = newId('location');
  await server.db.prisma.location.create({ data: { id, storeId, name, street1: `${name} street`, city: 'Reno', stateCode: 'NV', postalCode: '89502', countryCode: 'US' } });
  names.set(id, `location ${name}`);
  return id;
}

async function product(title: string, sku: string, stock: Record<string, number>): Promise<string> {
  const id = newId('product');
  await server.db.prisma.product.create({ data: { id, storeId: store.storeId, title, sku } });
  names.set(id, `product ${title}`);
  for (const [locationId, quantity] of Object.entries(stock)) {
    const levelId = newId('inventoryLevel');
    await server.db.prisma.inventoryLevel.create({ data: { id: levelId, storeId: store.storeId, productId: id, locationId, quantity, committed: 1 } });
  }
  return id;
}

let warehouse: string;
let serviceLocation: string;
let shirt: string;

beforeAll(async () => {
  server = await startTestServer({}, { WEBHOOKS_ALLOW_LOOPBACK: 'true', WEBHOOK_DISPATCHER: 'false' });
  store = await createTestStore(server.db, { name: 'Golden store' });
  names.set(store.storeId, 'store');
  names.set(store.clientId, 'api client');
  const { defaultLocationId } = await server.db.prisma.store.update({
    where: { id: store.storeId },
    data: { originName: 'Head office', originStreet1: '1 Market St', originCity: 'San Francisco', originStateCode: 'CA', originPostalCode: '94105', originCountryCode: 'US' },
  });
  names.set(defaultLocationId!, 'location default');
  const service = await createTestStore(server.db, { kind: 'FULFILLMENT_SERVICE', name: '3PL' });
  names.set(service.storeId, 'fulfillment service');
  await linkFulfillmentService(server.db.prisma, store.storeId, service.storeId);
  warehouse = await location(store.storeId, 'Main warehouse');
  serviceLocation = await location(service.storeId, '3PL Reno');
  await server.db.prisma.store.update({ where: { id: store.storeId }, data: { defaultLocationId: warehouse } });
  shirt = await product('Shirt', 'SHIRT-1', { [warehouse]: 10, [serviceLocation]: 5 });
  await product('Mug', 'MUG-1', { [warehouse]: 3 });
  await product('Poster', 'POSTER-1', { [serviceLocation]: 2 });
  const coverage = await server.db.prisma.coverageProduct.create({
    data: { id: newId('coverageProduct'), storeId: store.storeId, type: 'SHIPPING_FAILURE', enabled: true, title: 'Shipping protection', percentage: '2', minimumPrice: '1', maximumPrice: '20' },
  });
  names.set(coverage.id, 'coverage product');
  const subscription = await server.db.prisma.webhookSubscription.create({
    data: { id: newId('webhookSubscription'), storeId: store.storeId, url: 'http://127.0.0.1:9/hook', topics: ['order.created', 'inventory_level.updated'] },
  });
  names.set(subscription.id, 'subscription');
  const customer = await call(server, 'PUT', `/v2.2/stores/${store.storeId}/customers`, { secret: store.secret, body: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Shopper' } });
  names.set((customer.body as { id: string }).id, 'customer ada');
});
afterAll(async () => server?.close());

const line = (id: string, fields: Record<string, unknown>) => ({ id, productId: `ext-${id}`, title: `Line ${id}`, quantity: 1, ...fields });

/** The REST requests, in the order they are sent. */
const REST_ORDERS: [string, () => Record<string, unknown>][] = [
  [
    'a full order of lines matched by sku, for a known customer',
    () => ({
      orderId: 'G-1001',
      createdAt: '2025-03-01T10:00:00+01:00',
      customer: { id: 'c-1', email: 'ADA@example.com', phoneNumber: '+1 555 0100', name: 'Ada Shopper', firstName: 'Ada', lastName: 'Shopper' },
      shipping: { method: 'Ground', cost: 4.5, address: { address1: '1 Main St', address2: null, city: 'Reno', province: 'NV', country: 'US', postalCode: '89501' } },
      billingAddress: { address1: '2 Bill St', city: 'Reno' },
      totalPrice: 63.3,
      subtotalPrice: 55,
      totalTax: 3.8,
      totalDiscount: 0,
      tags: ['web', ' sale ', 'web'],
      currencyCode: 'usd',
      lineItems: [
        line('a', { sku: 'SHIRT-1', quantity: 2, price: 20, discount: 1.25, variantId: 'v-1', imageUrl: 'https://example.com/a.png' }),
        line('b', { sku: 'MUG-1', quantity: 1, price: 15 }),
      ],
    }),
  ],
  ['an oversold line: more mugs than are available', () => ({ orderId: 'G-1002', createdAt: '2025-03-01T11:00:00Z', lineItems: [line('m', { sku: 'MUG-1', quantity: 5, price: 15 })] })],
  [
    'two lines of one product: the shortfall falls on the last',
    () => ({ orderId: 'G-1003', createdAt: '2025-03-01T12:00:00Z', lineItems: [line('s1', { sku: 'SHIRT-1', quantity: 4 }), line('s2', { productId: shirt, quantity: 6 }), line('x', { sku: 'NONE' })] }),
  ],
  [
    "at a linked fulfillment service's location, one product never stocked there",
    () => ({
      orderId: 'G-1004',
      createdAt: '2025-03-01T13:00:00Z',
      locationId: serviceLocation,
      currencyCode: 'EUR',
      lineItems: [line('p', { sku: 'POSTER-1', quantity: 3 }), line('g', { sku: 'MUG-1', quantity: 1 }), line('s', { sku: 'SHIRT-1', quantity: 1 })],
    }),
  ],
  ['a line of coverage sold at checkout', () => ({ orderId: 'G-1005', createdAt: '2025-03-01T14:00:00Z', lineItems: [line('s', { sku: 'SHIRT-1' }), { id: 'cov', productId: [...names].find(([, n]) => n === 'coverage product')![0], title: 'Protection', quantity: 1, price: 1.5 }] })],
  ['the same orderId again', () => ({ orderId: 'G-1001', createdAt: '2025-03-01T10:00:00Z', lineItems: [line('a', { sku: 'SHIRT-1' })] })],
  ['a quantity of 0 and a duplicate line id', () => ({ orderId: 'G-bad-1', createdAt: '2025-03-01T10:00:00Z', lineItems: [line('a', { quantity: 0 }), line('a', {})] })],
  ['an unknown location', () => ({ orderId: 'G-bad-2', createdAt: '2025-03-01T10:00:00Z', locationId: 'loc_nowhere', lineItems: [line('a', {})] })],
  ['too many decimal places and a bad e-mail', () => ({ orderId: 'G-bad-3', createdAt: '2025-03-01T10:00:00Z', totalPrice: 1.23456, customer: { email: 'nobody' }, lineItems: [line('a', {})] })],
  ['a bad currency and a bad date', () => ({ orderId: 'G-bad-4', createdAt: 'yesterday', currencyCode: 'EURO', lineItems: [line('a', {})] })],
];

const ORDER_FIELDS = `
  id name externalId placedAt currency tags customer { id }
  submittedCustomer { externalId email phoneNumber name firstName lastName }
  totalPrice { amount currency } subtotalPrice { amount currency } totalTax { amount } totalDiscount { amount } shippingCost { amount }
  shippingMethod shippingAddress { address1 address2 city province country postalCode } billingAddress { address1 address2 city }
  fulfillmentLocation { id }
  lineItems { id externalId position title quantity sku price { amount currency } discount { amount } product { id } externalProductId externalVariantId imageUrl oversoldQuantity fulfillmentLocation { id } order { id } }
  createdAt updatedAt`;
const CREATE = `mutation ($input: OrderInput!) { orderCreate(input: $input) { ${ORDER_FIELDS} } }`;

/** The v3 requests, sent after the REST ones. */
const V3_ORDERS: [string, () => Record<string, unknown>][] = [
  [
    'v3: an order in JPY with every field',
    () => ({
      orderId: 'G-2001',
      createdAt: '2025-04-01T08:00:00-04:00',
      currency: 'JPY',
      totalPrice: '1500',
      subtotalPrice: 1400,
      totalTax: '100',
      totalDiscount: '0',
      tags: ['web'],
      locationId: warehouse,
      customer: { id: 'cust-1', email: 'ada@example.com', firstName: 'Ada' },
      shipping: { method: 'Post', cost: '0', address: { address1: '1-1 Chiyoda', city: 'Tokyo', country: 'JP' } },
      billingAddress: { address1: 'Bill 1' },
      lineItems: [line('j1', { sku: 'SHIRT-1', quantity: 2, price: '700.5' }), line('j2', { sku: 'MUG-1', quantity: 1, price: '99' })],
    }),
  ],
  ['v3: the same orderId again', () => ({ orderId: 'G-2001', createdAt: '2025-04-01T08:00:00Z', lineItems: [line('a', {})] })],
  ['v3: no lines', () => ({ orderId: 'G-bad-5', createdAt: '2025-04-01T08:00:00Z', lineItems: [] })],
];

/** Names the ids an answer or the rows of an order bring. */
async function nameOrders(): Promise<void> {
  const orders = await server.db.prisma.order.findMany({ where: { storeId: store.storeId }, include: { lineItems: true, fulfillmentGroups: true, coverages: true } });
  for (const order of orders) {
    names.set(order.id, `order ${order.name}`);
    for (const line of order.lineItems) names.set(line.id, `order ${order.name} line ${line.position}`);
    order.fulfillmentGroups.forEach((group, i) => names.set(group.id, `order ${order.name} group ${i}`));
    for (const coverage of order.coverages) names.set(coverage.id, `order ${order.name} coverage`);
  }
  const levels = await server.db.prisma.inventoryLevel.findMany({ where: { storeId: store.storeId }, include: { product: true, location: true } });
  for (const level of levels) names.set(level.id, `level ${level.product.title} at ${level.location.name}`);
  const customers = await server.db.prisma.customer.findMany({ where: { storeId: store.storeId } });
  for (const customer of customers) if (!names.has(customer.id)) names.set(customer.id, `customer ${customer.email}`);
}

it('answers and writes what the order path answered and wrote before issue 46', async () => {
  const answers: Record<string, unknown>[] = [];
  for (const [name, body] of REST_ORDERS) {
    const response = await call(server, 'POST', `/v2.2/stores/${store.storeId}/orders`, { secret: store.secret, body: body() });
    answers.push({ name, status: response.status, contentType: response.headers.get('content-type'), text: response.text });
  }
  for (const [name, input] of V3_ORDERS) {
    const response = await call(server, 'POST', '/v3/graphql', { secret: store.secret, body: { query: CREATE, variables: { input: input() } } });
    answers.push({ name, status: response.status, text: response.text });
  }
  await nameOrders();

  const orders = await server.db.prisma.order.findMany({
    where: { storeId: store.storeId },
    orderBy: { name: 'asc' },
    include: { lineItems: { orderBy: { position: 'asc' } }, fulfillmentGroups: true, coverages: true },
  });
  const levels = await server.db.prisma.inventoryLevel.findMany({ where: { storeId: store.storeId }, include: { adjustments: true } });
  const levelRows = levels
    .map(({ adjustments, ...level }) => ({
      ...level,
      adjustments: adjustments.map((a) => stable(a) as Record<string, string>).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    }))
    .map((level) => stable(level) as { id: string })
    .sort((a, b) => a.id.localeCompare(b.id));
  const events = await server.db.prisma.event.findMany({ where: { storeId: store.storeId }, include: { deliveries: { select: { subscriptionId: true, subjectId: true, status: true } } } });
  const eventRows = events
    .map(({ id: _id, ...event }) => JSON.stringify(stable(event)))
    .sort()
    .map((text) => JSON.parse(text) as unknown);
  const audit = await server.db.sql.query<Record<string, unknown>>(
    `SELECT "objectKind", "objectId", "parentKind", "parentId", action, "actorKind", "actorId", door, operation, changes FROM "AuditEntry" WHERE "storeId" = $1 AND "objectKind" <> 'Customer'`,
    [store.storeId],
  );
  const auditRows = audit
    .map((entry) => JSON.stringify(stable(entry)))
    .sort()
    .map((text) => JSON.parse(text) as unknown);
  const { nextOrderNumber } = await server.db.prisma.store.findUniqueOrThrow({ where: { id: store.storeId } });
  const invoiceItems = await server.db.prisma.invoiceItem.findMany({ where: { invoice: { storeId: store.storeId } } });

  const recorded = {
    answers: stable(answers),
    nextOrderNumber,
    orders: stable(orders),
    levels: levelRows,
    events: eventRows,
    invoiceItems: invoiceItems.map((item) => stable({ ...item, id: undefined, invoiceId: undefined })),
    audit: auditRows,
  };
  await expect(`${JSON.stringify(recorded, null, 2)}\n`).toMatchFileSnapshot('./__fixtures__/orderAnswers.json');
});
