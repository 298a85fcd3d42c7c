// Bad variables and scalars are the caller's fault on every door: BAD_USER_INPUT, never a 500.
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.ts';
import { createApp } from '../../src/process/server.ts';
import { call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

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

// The input check every door runs (src/inputText.ts): U+0000 and lone surrogates in any
// string, and nesting past the bound, are refused with the door's 400 naming the member,
// before anything reaches the database.
describe('text the database cannot store, and hostile nesting', () => {
  const customers = () => `/v2.2/stores/${store.storeId}/customers`;

  it('a REST path id with U+0000 is a 400 problem naming the parameter', async () => {
    const res = await call(server, 'GET', '/v2.2/returns/%00', { secret: store.secret });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ errors: [{ path: 'returnId' }] });
  });

  it.each([
    ['U+0000', 'Ada\u0000'],
    ['a lone surrogate', 'Ada\ud800'],
  ])('%s in a body member is a 400 naming the member, and nothing is written', async (_name, firstName) => {
    const res = await call(server, 'PUT', customers(), { secret: store.secret, body: { email: 'nul@example.com', firstName } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errors: [{ path: 'firstName' }] });
    expect(await server.db.prisma.customer.count({ where: { storeId: store.storeId } })).toBe(0);
  });

  it('U+0000 in a query value is a 400 naming it, on REST and on the compat door (its 422)', async () => {
    const rest = await call(server, 'GET', `${customers()}?email=a%00b`, { secret: store.secret });
    expect(rest.status).toBe(400);
    expect(rest.body).toMatchObject({ errors: [{ path: 'email' }] });
    const warehouse = await call(server, 'GET', '/api/v1/warehouse/return/list?order_name=%00', { secret: store.secret });
    expect(warehouse.status).toBe(422);
    expect(warehouse.body).toMatchObject({ error: { http_code: 422 } });
  });

  it('a body nested thousands deep is a 400, not a stack overflow', async () => {
    const deep = '['.repeat(5_000) + ']'.repeat(5_000);
    const res = await fetch(`${server.url}/v2.2/stores/${store.storeId}/custom/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${store.secret}`, 'content-type': 'application/json' },
      body: `{"type":"order","order":${deep}}`,
    });
    expect(res.status).toBe(400);
  });

  it('v3: U+0000 in a string literal or a variable is BAD_USER_INPUT', async () => {
    const withLiteral = '{ returns(first: 1, orderName: "a\\u0000") { nodes { id } } }';
    const literal = await graphql(server, store.secret, withLiteral);
    expect(literal.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    // The check's answer is kept per parsed document, which the server reuses for the same text: a second send is refused too.
    expect((await graphql(server, store.secret, withLiteral)).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect((await graphql(server, store.secret, '{ returns(first: 1, orderName: "a") { nodes { id } } }')).errors).toBeUndefined();
    const variable = await graphql(server, store.secret, 'query ($name: String) { returns(first: 1, orderName: $name) { nodes { id } } }', { name: 'a\u0000' });
    expect(variable.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('/v3/rest: U+0000 in a path id is a 400 problem; an unknown id or another store\'s is a 404 problem', async () => {
    expect((await call(server, 'GET', '/v3/rest/order/%00', { secret: store.secret })).status).toBe(400);
    const unknown = await call(server, 'GET', '/v3/rest/order/ord_doesnotexist', { secret: store.secret });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('the dashboard and portal refuse U+0000 in the address with a 400 page', async () => {
    expect((await fetch(`${server.url}/portal/%00`)).status).toBe(400);
  });
});

// A GET carries variables and extensions as JSON text in the query string: text that is not
// JSON is the caller's malformed request, answered as the same mistake by POST is.
describe('v3 GET parameters that are not JSON', () => {
  let logged: { level: number | string; msg: string }[];
  let quiet: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    logged = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logged.push(JSON.parse(line));
        done();
      },
    });
    const app = createApp({ db: server.db, config: server.config, logger: createLogger('warn', sink) });
    await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
    quiet = { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.shutdown(1_000) };
  });
  afterAll(async () => quiet?.close());

  it.each(['variables', 'extensions'])('%s that is not JSON is BAD_USER_INPUT with the status a POST gets, and logs no error', async (parameter) => {
    const operation = '{ returns(first: 1) { nodes { id } } }';
    const byPost = await call(quiet, 'POST', '/v3/graphql', { secret: store.secret, body: { query: operation, [parameter]: 'not json' } });
    const byGet = await call(quiet, 'GET', `/v3/graphql?query=${encodeURIComponent(operation)}&${parameter}=not%20json`, { secret: store.secret });
    const codeOf = (answer: { body: unknown }) => (answer.body as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code;
    expect(codeOf(byPost)).toBe('BAD_USER_INPUT');
    expect([codeOf(byGet), byGet.status]).toEqual(['BAD_USER_INPUT', byPost.status]);
    expect(logged.filter((line) => line.level === 'error' || line.level === 50)).toEqual([]);
  });
});
