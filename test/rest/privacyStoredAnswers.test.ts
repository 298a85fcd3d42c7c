// Answers kept for Idempotency-Key replays (issue 42): a keyed v3 query's answer holds the
// person's values as JSON writes them (a `"` in a name escaped as `\"`) and an order's shipping
// address; after customerErase, a replay must carry none of them and no stored answer may hold
// them, as bytes in either form.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

const EMAIL = 'ottoline.quarrendon@example.com';
const LAST_NAME = 'Quar"rendon';
const STREET = '41 Wexcombe Crescent';

let server: TestServer;
let store: TestStore;
let orderId: string;

/** A v3 query sent with an Idempotency-Key, as a client retrying a POST would send it. */
function keyedQuery(key: string, query: string, variables: Record<string, unknown>) {
  return call(server, 'POST', '/v3/graphql', { secret: store.secret, headers: { 'idempotency-key': key }, body: { query, variables } });
}

const LAST_NAME_QUERY = 'query LastName($email: String!) { customer(email: $email) { lastName } }';
const ADDRESS_QUERY = 'query Shipping($id: ID!) { order(id: $id) { shippingAddress { address1 } } }';

/** Stored answers holding `value` as bytes, as written or as JSON escapes it. */
async function storedAnswersHolding(value: string): Promise<number> {
  const forms = [...new Set([value, JSON.stringify(value).slice(1, -1)])].map((form) => Buffer.from(form));
  const [row] = await server.db.sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM "IdempotentRequest" r WHERE EXISTS (SELECT 1 FROM unnest($1::bytea[]) f WHERE position(f IN r.body) > 0)`,
    [forms],
  );
  return row.n;
}

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  const upserted = await call(server, 'PUT', `/v2.2/stores/${store.storeId}/customers`, {
    secret: store.secret,
    body: { email: EMAIL, firstName: 'Ottoline', lastName: LAST_NAME },
  });
  expect(upserted.status).toBe(201);
  const address = { address1: STREET, city: 'Hollowmere', postalCode: 'HM4 7QX', country: 'GB' };
  const placed = await call(server, 'POST', `/v2.2/stores/${store.storeId}/orders`, {
    secret: store.secret,
    body: {
      orderId: 'ORD-oq-1',
      createdAt: '2026-11-01T09:00:00Z',
      lineItems: [{ id: 'L1', productId: 'ext-tee', title: 'Trail Tee', sku: 'TEE-1', quantity: 1, price: 25 }],
      customer: { email: EMAIL },
      shipping: { method: 'Ground', cost: 5, address },
      totalPrice: 30,
      currency: 'USD',
    },
  });
  expect(placed.status).toBe(200);
  orderId = (placed.body as { orderId: string }).orderId;
});

afterAll(async () => {
  await server?.close();
});

describe('answers kept for Idempotency-Key replays', () => {
  it('keep none of the erased person: neither a value JSON escapes nor their order address', async () => {
    const lastName = await keyedQuery('last-name', LAST_NAME_QUERY, { email: EMAIL });
    expect(lastName.body).toEqual({ data: { customer: { lastName: LAST_NAME } } });
    const address = await keyedQuery('address', ADDRESS_QUERY, { id: orderId });
    expect(address.body).toEqual({ data: { order: { shippingAddress: { address1: STREET } } } });
    const replayed = await keyedQuery('address', ADDRESS_QUERY, { id: orderId });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await storedAnswersHolding(LAST_NAME)).toBe(1);
    expect(await storedAnswersHolding(STREET)).toBe(1);

    const erased = await graphql(server, store.secret, 'mutation($input: CustomerEraseInput!) { customerErase(input: $input) { counts { storedAnswers } } }', {
      input: { email: EMAIL },
    });
    expect(erased.errors).toBeUndefined();
    expect(erased.data).toEqual({ customerErase: { counts: { storedAnswers: 2 } } });

    expect(await storedAnswersHolding(LAST_NAME)).toBe(0);
    expect(await storedAnswersHolding(STREET)).toBe(0);
    // Sent again with their keys, the queries run again (nothing is replayed) and read the erased records.
    const again = [await keyedQuery('last-name', LAST_NAME_QUERY, { email: EMAIL }), await keyedQuery('address', ADDRESS_QUERY, { id: orderId })];
    for (const answer of again) {
      expect(answer.headers.get('idempotent-replayed')).toBeNull();
      expect(answer.text).not.toContain('Quar');
      expect(answer.text).not.toContain('Wexcombe');
    }
    expect(again[1].body).toEqual({ data: { order: { shippingAddress: { address1: '[redacted]' } } } });
  });
});
