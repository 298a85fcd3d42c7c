// POST /stores/{storeId}/returns/bulk: returns imported from other systems, with no order,
// their items naming products the bulk product upload answered. Each return gets its own
// result; imported returns are ordinary returns afterwards (REST reads, lists, the v3
// query, the state machine, return.created). Every answer is checked against the reference.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowCounts } from '../support/counts.ts';
import { call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
let shirt: string;
let cap: string;
let foreignProduct: string;

async function uploadProducts(owner: TestStore, products: unknown[]): Promise<string[]> {
  const res = await call(server, 'POST', `/v2.2/stores/${owner.storeId}/products/bulk-upload`, { secret: owner.secret, body: { products } });
  const results = (res.body as { results: { products: { id: string }[] }[] }).results;
  return results.map((r) => r.products[0].id);
}

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other store' });
  [shirt, cap] = await uploadProducts(store, [
    { title: 'Shirt', variants: [{ sku: 'SHIRT-M', price: 2500, currency: 'USD', upc: '012345678905' }] },
    { title: 'Cap', variants: [{ sku: 'CAP-1', price: 1000, currency: 'USD' }] },
  ]);
  [foreignProduct] = await uploadProducts(other, [{ title: 'Theirs', variants: [{ sku: 'THEIRS', price: 100, currency: 'USD' }] }]);
});
afterAll(async () => server?.close());

const importReturns = (body: unknown, secret = store.secret, storeId = store.storeId) =>
  call(server, 'POST', `/v2.2/stores/${storeId}/returns/bulk`, { secret, body });

interface Answer {
  totalCount: number;
  processedCount: number;
  errorCount: number;
  results: { status: string; index: number; returnId?: string; error?: string }[];
}

const address = { line1: '1 Dock Rd', line2: 'Bay 4', city: 'Reno', state: 'NV', postalCode: '89501', country: 'US', name: 'Warehouse', phone: '+15550000' };

describe('POST /stores/{storeId}/returns/bulk', () => {
  it('imports returns without an order; they read like any return (REST, list, v3) and emit return.created', async () => {
    const res = await importReturns({
      returns: [
        {
          products: [
            { productId: shirt, quantity: 2, reason: 'Too big', condition: 'new', variantTitle: 'M' },
            { productId: cap, quantity: 1, sku: 'CAP-OVERRIDE', barcode: 'B-1', productTitle: 'Blue cap' },
          ],
          customer: { firstName: 'Ada', lastName: 'Lovelace', email: 'Ada@Example.com' },
          externalReferenceId: 'RMA-1001',
          trackingNumber: '1Z-IN',
          carrier: 'UPS',
          notes: 'Scanned at dock',
          currency: 'USD',
          shippingAddress: { line1: '5 Home St', city: 'Austin', country: 'US' },
          merchantAddress: address,
        },
        // Without a customer e-mail the list below would answer `source.emailAddress: ""`, which the
        // document's read schema refuses (format email) although its import makes the customer optional.
        { products: [{ productId: cap, quantity: 3 }], customer: { email: 'second@example.com' } },
      ],
    });
    expect(res.status).toBe(200);
    const answer = res.body as Answer;
    expect(answer).toMatchObject({ totalCount: 2, processedCount: 2, errorCount: 0 });
    expect(answer.results.map((r) => [r.status, r.index])).toEqual([['created', 0], ['created', 1]]);
    const id = answer.results[0].returnId!;

    const read = await call(server, 'GET', `/v2.2/returns/${id}`, { secret: store.secret });
    expect(read.status).toBe(200);
    const body = read.body as { return: Record<string, unknown> & { items: Record<string, unknown>[] }; order: { id: string } };
    expect(body.order.id).toBe('');
    expect(body.return.source).toMatchObject({ name: { given: 'Ada', surname: 'Lovelace' }, emailAddress: 'ada@example.com', mailingAddress: { line1: '5 Home St', city: 'Austin' } });
    expect(body.return.destination).toMatchObject({ mailingAddress: { line1: '1 Dock Rd', city: 'Reno' } });
    expect(body.return.items.map((i) => [i.productId, i.sku, i.quantity, (i.productValueNoTaxNoAdjustment as { amount: { amount: string } }).amount.amount])).toEqual([
      [shirt, 'SHIRT-M', 2, '25.00'],
      [cap, 'CAP-OVERRIDE', 1, '10.00'],
    ]);
    expect(body.return.shipment).toMatchObject({ carrier: 'UPS', tracker: '1Z-IN' });

    const listed = await call(server, 'GET', `/v2.2/stores/${store.storeId}/returns`, { secret: store.secret });
    expect((listed.body as { returns: { id: string }[] }).returns.map((r) => r.id)).toEqual(expect.arrayContaining(answer.results.map((r) => r.returnId)));

    const v3 = await graphql(server, store.secret, 'query($id: ID!) { return(id: $id) { order { id } externalReferenceId customerEmail notes { content } items { title sku barcode condition variantTitle product { id } orderLineItem { id } amount { amount } } } }', { id });
    expect(v3.data).toEqual({
      return: {
        order: null,
        externalReferenceId: 'RMA-1001',
        customerEmail: 'ada@example.com',
        notes: [{ content: 'Scanned at dock' }],
        items: [
          { title: 'Shirt', sku: 'SHIRT-M', barcode: '012345678905', condition: 'new', variantTitle: 'M', product: { id: shirt }, orderLineItem: null, amount: { amount: '50.00' } },
          { title: 'Blue cap', sku: 'CAP-OVERRIDE', barcode: 'B-1', condition: null, variantTitle: null, product: { id: cap }, orderLineItem: null, amount: { amount: '10.00' } },
        ],
      },
    });
    expect(await server.db.prisma.event.count({ where: { topic: 'return.created', subjectId: { in: answer.results.map((r) => r.returnId!) } } })).toBe(2);
  });

  it('an imported return runs the state machine: completing it refunds its items at their unit prices', async () => {
    const [result] = ((await importReturns({ returns: [{ products: [{ productId: shirt, quantity: 2 }] }] })).body as Answer).results;
    expect((await call(server, 'PUT', `/v2.2/returns/${result.returnId}/status`, { secret: store.secret, body: { status: 'complete' } })).status).toBe(204);
    const done = await server.db.prisma.return.findUniqueOrThrow({ where: { id: result.returnId } });
    expect([done.status, done.totalRefund.toString()]).toEqual(['complete', '50']);
    expect((await call(server, 'PUT', `/v2.2/returns/${result.returnId}/status`, { secret: store.secret, body: { status: 'open' } })).status).toBe(204);
  });

  it('reports each refused return by index and creates the others', async () => {
    const res = await importReturns({
      returns: [
        { products: [{ productId: 'prd_unknown', quantity: 1 }] },
        { products: [{ productId: foreignProduct, quantity: 1 }] },
        { products: [{ productId: shirt, quantity: 0 }] },
        { products: [{ productId: shirt, quantity: 1 }], currency: 'dollars' },
        { products: [{ productId: shirt, quantity: 1 }], customer: { email: 'not-an-email' } },
        { products: [{ productId: cap, quantity: 1 }] },
      ],
    });
    expect(res.status).toBe(200);
    const answer = res.body as Answer;
    expect(answer).toMatchObject({ totalCount: 6, processedCount: 1, errorCount: 5 });
    expect(answer.results.map((r) => r.status)).toEqual(['error', 'error', 'error', 'error', 'error', 'created']);
    expect(answer.results[0].error).toContain('products.0.productId: product prd_unknown not found');
    expect(answer.results[1].error).toContain(`product ${foreignProduct} not found`);
    expect(answer.results[2].error).toContain('products.0.quantity');
    expect(answer.results[3].error).toContain('currency');
    expect(answer.results[4].error).toContain('customer.email');
    expect(answer.results.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('an idempotency key makes a retry answer the same return, once', async () => {
    const body = { returns: [{ products: [{ productId: cap, quantity: 1 }], idempotencyKey: 'import-7' }] };
    const first = ((await importReturns(body)).body as Answer).results[0];
    const counts = await rowCounts(server.db);
    const again = ((await importReturns(body)).body as Answer).results[0];
    expect(again).toEqual(first);
    expect(await rowCounts(server.db)).toEqual(counts);
    const changed = ((await importReturns({ returns: [{ products: [{ productId: cap, quantity: 2 }], idempotencyKey: 'import-7' }] })).body as Answer).results[0];
    expect(changed).toMatchObject({ status: 'error', error: expect.stringContaining('idempotency key') });
  });

  it('refuses a malformed body with 400 and writes nothing', async () => {
    const counts = await rowCounts(server.db);
    const bodies: [unknown, string][] = [
      [{}, 'returns'],
      [{ returns: [] }, 'returns'],
      [{ returns: Array.from({ length: 101 }, () => ({ products: [{ productId: cap, quantity: 1 }] })) }, 'returns'],
      [{ returns: [{}] }, 'returns.0.products'],
      [{ returns: [{ products: [{ quantity: 1 }] }] }, 'returns.0.products.0.productId'],
      [{ returns: [{ products: [{ productId: cap, quantity: 'two' }] }] }, 'returns.0.products.0.quantity'],
      [{ returns: [{ products: [{ productId: cap, quantity: 1 }], notes: null }] }, 'returns.0.notes'],
      [{ returns: [{ products: [{ productId: cap, quantity: 1 }], shippingAddress: { line1: 'x' } }] }, 'returns.0.shippingAddress.city'],
    ];
    for (const [body, field] of bodies) {
      const res = await importReturns(body);
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect((res.body as { detail: string }).detail).toContain(field);
    }
    expect(await rowCounts(server.db)).toEqual(counts);
  });

  it("refuses another store's path (403) and a client without returns_write", async () => {
    const counts = await rowCounts(server.db);
    expect((await importReturns({ returns: [{ products: [{ productId: cap, quantity: 1 }] }] }, store.secret, other.storeId)).status).toBe(403);
    expect(await rowCounts(server.db)).toEqual(counts);
    const theirs = await importReturns({ returns: [{ products: [{ productId: cap, quantity: 1 }] }] }, other.secret, other.storeId);
    expect((theirs.body as Answer).results[0]).toMatchObject({ status: 'error', error: expect.stringContaining('not found') });
  });
});
