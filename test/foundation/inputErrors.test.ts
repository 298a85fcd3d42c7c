// Bad variables and scalars are the caller's fault on every door: BAD_USER_INPUT, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
});
afterAll(async () => server?.close());

const query = `query ($status: InboundShipmentStatus, $min: DateTime, $first: Int) {
  inboundShipments(first: $first, status: $status, createdAtMin: $min) { nodes { id } }
}`;

describe('variable coercion errors', () => {
  it.each([
    ['an unknown enum value', { status: 'LOST_AT_SEA' }],
    ['an Int out of range', { first: 2 ** 40 }],
    ['a date-time that is not on the calendar', { min: '2026-02-30T12:00:00Z' }],
    ['a date-time without a time zone', { min: '2026-02-01T12:00:00' }],
  ])('%s is BAD_USER_INPUT', async (_name, variables) => {
    const res = await graphql(server, store.secret, query, variables);
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.data ?? null).toBeNull();
  });

  it('a valid date-time passes', async () => {
    const res = await graphql(server, store.secret, query, { min: '2026-02-28T12:00:00Z' });
    expect(res.errors).toBeUndefined();
  });
});
