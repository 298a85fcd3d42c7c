// Storefront coverage: the price rule's edges (minimum, maximum, rounding, eligible
// products, zero cart, mixed currencies), the public routes' escaping and store
// isolation, the settings mutation's refusals, and coverage sold on an order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrder } from '../../src/domain/orders.ts';
import { addApiClient, call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
let shippingId: string;
let returnShippingId: string;

const HOSTILE_TITLE = `<script>alert("x")</script> & 'Ship'`;
const HOSTILE_DESCRIPTION = '<img src=x onerror=alert(1)>';

const UPDATE = `mutation($input: CoverageSettingsInput!) {
  coverageSettingsUpdate(input: $input) { coverageProduct { id type enabled percentage minimumPrice maximumPrice } userErrors { code field message } }
}`;

type Payload = { coverageSettingsUpdate: { coverageProduct: { id: string } | null; userErrors: { code: string; field: string[]; message: string }[] } };

async function configure(secret: string, input: Record<string, unknown>) {
  const res = await graphql(server, secret, UPDATE, { input });
  return (res.data as Payload | undefined)?.coverageSettingsUpdate ?? { coverageProduct: null, userErrors: [], errors: res.errors };
}

const usd = (amount: string, currency = 'USD') => ({ amount, currency });
const line = (id: string, productId: string, amount: string, currency = 'USD') => ({
  id,
  quantity: 1,
  product: { id: productId },
  variant: { id: `${productId}-v` },
  priceTotal: usd(amount, currency),
});

async function quote(storeId: string, lineItems: ReturnType<typeof line>[], total: string, currency = 'USD') {
  return call(server, 'POST', `/v2.2/stores/${storeId}/coverage-products`, { body: { cart: { lineItems, priceTotal: usd(total, currency) } } });
}

type Quote = { coverageProducts: { id: string; price: { amount: string; currency: string }; coverages: { type: string; lineItems: { id: string }[] }[] }[] };

function priceOf(body: unknown, id: string) {
  return (body as Quote).coverageProducts.find((p) => p.id === id);
}

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other store' });
  const shipping = await configure(store.secret, {
    type: 'SHIPPING_FAILURE',
    enabled: true,
    title: HOSTILE_TITLE,
    description: HOSTILE_DESCRIPTION,
    percentage: '5',
    minimumPrice: '1.50',
    maximumPrice: '20',
  });
  const returns = await configure(store.secret, {
    type: 'RETURN_SHIPPING',
    enabled: true,
    percentage: '2.5',
    minimumPrice: '0',
    maximumPrice: '10',
    eligibleProductIds: ['shoe'],
  });
  expect(shipping.userErrors).toEqual([]);
  expect(returns.userErrors).toEqual([]);
  shippingId = shipping.coverageProduct!.id;
  returnShippingId = returns.coverageProduct!.id;
  await configure(other.secret, { type: 'SHIPPING_FAILURE', enabled: true, title: 'Other store secret offer', percentage: '50', minimumPrice: '0', maximumPrice: '1000' });
});
afterAll(async () => server?.close());

describe('pricing a cart (POST coverage-products, no secret)', () => {
  it('charges the minimum below it, the maximum above it, and the percentage between', async () => {
    const small = await quote(store.storeId, [line('l1', 'hat', '10.00')], '10.00');
    expect(small.status).toBe(200);
    expect(priceOf(small.body, shippingId)?.price).toEqual(usd('1.50'));
    const middle = await quote(store.storeId, [line('l1', 'hat', '100.00')], '100.00');
    expect(priceOf(middle.body, shippingId)?.price).toEqual(usd('5.00'));
    const large = await quote(store.storeId, [line('l1', 'hat', '1000.00')], '1000.00');
    expect(priceOf(large.body, shippingId)?.price).toEqual(usd('20.00'));
  });

  it('rounds half-up to the currency digits, exactly, in the cart currency', async () => {
    const cents = await quote(store.storeId, [line('l1', 'hat', '33.30')], '33.30');
    expect(priceOf(cents.body, shippingId)?.price).toEqual(usd('1.67')); // 1.665
    // The bounds are amounts of the cart's currency: 20 is the maximum in yen too.
    const yen = await quote(store.storeId, [line('l1', 'hat', '230', 'JPY')], '230', 'JPY');
    expect(priceOf(yen.body, shippingId)?.price).toEqual(usd('12', 'JPY')); // 11.5
    const yenCapped = await quote(store.storeId, [line('l1', 'hat', '1230', 'JPY')], '1230', 'JPY');
    expect(priceOf(yenCapped.body, shippingId)?.price).toEqual(usd('20', 'JPY'));
    const floatTrap = await quote(store.storeId, [line('l1', 'hat', '0.10'), line('l2', 'hat', '0.20'), line('l3', 'hat', '99.70')], '100.00');
    expect(priceOf(floatTrap.body, shippingId)?.price).toEqual(usd('5.00'));
  });

  it('prices a coverage type over its eligible products only and names the lines it covers', async () => {
    const res = await quote(store.storeId, [line('shoe-line', 'shoe', '40.00'), line('hat-line', 'hat', '60.00')], '100.00');
    expect(priceOf(res.body, returnShippingId)).toEqual({
      id: returnShippingId,
      price: usd('1.00'),
      coverages: [{ type: 'return_shipping', lineItems: [{ id: 'shoe-line' }] }],
    });
    expect(priceOf(res.body, shippingId)?.coverages).toEqual([{ type: 'shipping_failure', lineItems: [{ id: 'shoe-line' }, { id: 'hat-line' }] }]);
    const noShoe = await quote(store.storeId, [line('hat-line', 'hat', '60.00')], '60.00');
    expect(priceOf(noShoe.body, returnShippingId)).toBeUndefined();
  });

  it('offers nothing for a cart without merchandise value, and ignores coverage already in the cart', async () => {
    const empty = await quote(store.storeId, [], '0.00');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ coverageProducts: [] });
    const free = await quote(store.storeId, [line('l1', 'hat', '0.00')], '0.00');
    expect(free.body).toEqual({ coverageProducts: [] });
    const onlyCoverage = await quote(store.storeId, [line('c1', shippingId, '5.00')], '5.00');
    expect(onlyCoverage.body).toEqual({ coverageProducts: [] });
  });

  it('refuses a cart mixing currencies, and bad amounts, naming each line', async () => {
    const mixed = await quote(store.storeId, [line('l1', 'hat', '10.00'), line('l2', 'hat', '10.00', 'EUR')], '20.00');
    expect(mixed.status).toBe(400);
    expect(mixed.headers.get('content-type')).toContain('application/problem+json');
    expect((mixed.body as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(['cart.lineItems.1.priceTotal.currency']);
    const bad = await quote(store.storeId, [line('l1', 'hat', '1e3'), line('l2', 'hat', '-1.00')], '20.00');
    expect(bad.status).toBe(400);
    expect((bad.body as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(['cart.lineItems.0.priceTotal.amount', 'cart.lineItems.1.priceTotal.amount']);
    const shapeless = await call(server, 'POST', `/v2.2/stores/${store.storeId}/coverage-products`, { body: { cart: { lineItems: [{ id: 1 }] } } });
    expect(shapeless.status).toBe(400);
  });

  it("answers each store's own offer only, and 404 for an unknown store", async () => {
    const mine = await quote(store.storeId, [line('l1', 'hat', '100.00')], '100.00');
    expect((mine.body as Quote).coverageProducts.map((p) => p.id).sort()).toEqual([shippingId].sort());
    const theirs = await quote(other.storeId, [line('l1', 'hat', '100.00')], '100.00');
    expect((theirs.body as Quote).coverageProducts).toHaveLength(1);
    expect(priceOf(theirs.body, shippingId)).toBeUndefined();
    expect((theirs.body as Quote).coverageProducts[0].price).toEqual(usd('50.00'));
    const unknown = await quote('str_unknown', [line('l1', 'hat', '100.00')], '100.00');
    expect(unknown.status).toBe(404);
  });
});

describe('the storefront renderings', () => {
  it('escapes merchant text in the checkout buttons and shows no other store', async () => {
    const res = await call(server, 'GET', `/v2.2/stores/${store.storeId}/checkout-buttons-ui`);
    expect(res.status).toBe(200);
    const { html, css } = res.body as { html: string; css: string };
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Ship&#39;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toMatch(/<script|<img/);
    expect(html).toContain(`data-coverage-product-id="${shippingId}"`);
    expect(html).toContain('5% of your order, at least 1.5 and at most 20');
    expect(html).not.toContain('Other store');
    expect(css).toContain('.redo-coverage');
    expect((await call(server, 'GET', '/v2.2/stores/str_unknown/checkout-buttons-ui')).status).toBe(404);
  });

  it('redirects coverage-info to a public page of this server describing the store, escaped', async () => {
    const res = await call(server, 'GET', `/v2.2/stores/${store.storeId}/coverage-info`);
    expect(res.status).toBe(302);
    const location = res.headers.get('location')!;
    expect(location).toBe(`/v2.2/stores/${store.storeId}/coverage-info/page`);
    const page = await fetch(server.url + location);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const text = await page.text();
    expect(text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(text).not.toMatch(/<script|<img/);
    expect(text).not.toContain('Other store');
    expect((await call(server, 'GET', '/v2.2/stores/str_unknown/coverage-info')).status).toBe(404);
  });
});

describe('coverage settings (v3)', () => {
  it('refuses a maximum below the minimum and a percentage over 100, writing nothing', async () => {
    const refused = await configure(store.secret, { type: 'SHIPPING_FAILURE', percentage: '101', minimumPrice: '5', maximumPrice: '4' });
    expect(refused.coverageProduct).toBeNull();
    expect(refused.userErrors.map((e) => e.field)).toEqual([['input', 'percentage'], ['input', 'maximumPrice']]);
    const res = await quote(store.storeId, [line('l1', 'hat', '100.00')], '100.00');
    expect(priceOf(res.body, shippingId)?.price).toEqual(usd('5.00'));
  });

  it('needs products_write to change and products_read to read', async () => {
    const reader = await addApiClient(server.db, store.storeId, ['products_read']);
    const write = await graphql(server, reader.secret, UPDATE, { input: { type: 'SHIPPING_FAILURE', enabled: false } });
    expect(write.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const nobody = await addApiClient(server.db, store.storeId, ['orders_read']);
    const read = await graphql(server, nobody.secret, '{ coverageProducts { id } }');
    expect(read.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const allowed = await graphql(server, reader.secret, '{ coverageProducts { id type enabled } }');
    expect(allowed.data?.coverageProducts).toEqual([
      { id: shippingId, type: 'SHIPPING_FAILURE', enabled: true },
      { id: returnShippingId, type: 'RETURN_SHIPPING', enabled: true },
    ]);
  });
});

describe('coverage sold on an order', () => {
  it('records each line whose product is a coverage product, visible on the v3 order', async () => {
    const order = await createOrder(server.db.prisma, store.storeId, {
      orderId: 'cov-1',
      createdAt: new Date().toISOString(),
      currency: 'USD',
      lineItems: [
        { id: 'a', productId: 'hat', title: 'Hat', quantity: 2, price: 30 },
        { id: 'b', productId: shippingId, title: 'Shipping protection', quantity: 1, price: 3.33 },
      ],
    });
    const res = await graphql(server, store.secret, `query($id: ID!) { order(id: $id) { coverages { type premium { amount currency } coverageProductId } } }`, { id: order.id });
    expect(res.errors).toBeUndefined();
    expect((res.data?.order as { coverages: unknown[] }).coverages).toEqual([{ type: 'SHIPPING_FAILURE', premium: usd('3.33'), coverageProductId: shippingId }]);
    const plain = await createOrder(server.db.prisma, other.storeId, {
      orderId: 'cov-2',
      createdAt: new Date().toISOString(),
      lineItems: [{ id: 'a', productId: shippingId, title: "Someone else's coverage id", quantity: 1, price: 3 }],
    });
    const otherRes = await graphql(server, other.secret, `query($id: ID!) { order(id: $id) { coverages { type } } }`, { id: plain.id });
    expect((otherRes.data?.order as { coverages: unknown[] }).coverages).toEqual([]);
  });
});
