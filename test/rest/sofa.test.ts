// /v3/rest: SOFA's routes generated from the v3 schema answer with the same
// authentication and scope refusals as /v3/graphql, as problem+json with the status
// of the error's code, and SOFA's OpenAPI document lists them.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrder } from '../../src/domain/orders.ts';
import { CheckedDocument, formatAjvErrors } from '../support/documentCheck.ts';
import { addApiClient, call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
});
afterAll(async () => server?.close());

type Problem = { type: string; title: string; status: number; detail: string; instance?: string; errors?: { path: string; message: string }[] };

function expectProblem(response: Awaited<ReturnType<typeof call>>, status: number): Problem {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  const body = response.body as Problem;
  expect(body).toMatchObject({ type: 'about:blank', status, detail: expect.any(String) });
  return body;
}

describe('/v3/rest (SOFA)', () => {
  it('serves a query as GET and a mutation as POST, with the same data as /v3/graphql', async () => {
    const created = await call(server, 'POST', '/v3/rest/upsert-customer', {
      secret: store.secret,
      body: { input: { email: 'ada@example.com', firstName: 'Ada' } },
    });
    expect(created.status, created.text).toBe(200);
    const customerId = (created.body as { customer: { id: string } }).customer.id;
    expect(customerId).toMatch(/^cus_/);

    const one = await call(server, 'GET', '/v3/rest/customer?email=ada@example.com', { secret: store.secret });
    expect(one.status, one.text).toBe(200);
    expect(one.body).toMatchObject({ id: customerId, email: 'ada@example.com', firstName: 'Ada' });

    const list = await call(server, 'GET', '/v3/rest/customers?first=5', { secret: store.secret });
    expect(list.status, list.text).toBe(200);
    const viaGraphQL = await graphql(server, store.secret, '{ customers(first: 5) { nodes { id email } } }');
    // Routes whose generated selection reaches a field with a required argument (Product.attribute(name)) work too.
    for (const path of ['/v3/rest/returns?first=2', '/v3/rest/inventory-levels?first=2', '/v3/rest/inbound-shipments?first=2', '/v3/rest/products?first=2']) {
      const response = await call(server, 'GET', path, { secret: store.secret });
      expect(response.status, `${path}: ${response.text}`).toBe(200);
    }
    const ids = (list.body as { edges: { node: { id: string } }[] }).edges.map((e) => e.node.id);
    expect(ids).toEqual((viaGraphQL.data!.customers as { nodes: { id: string }[] }).nodes.map((n) => n.id));
  });

  it('refuses missing, malformed and unknown secrets with 401 like /v3/graphql', async () => {
    for (const secret of [undefined, 'not-a-real-secret']) {
      const rest = await call(server, 'GET', '/v3/rest/customers?first=1', { secret });
      const body = expectProblem(rest, 401);
      const gql = await graphql(server, secret, '{ customers(first: 1) { nodes { id } } }');
      expect(gql.status).toBe(401);
      expect(gql.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
      expect(body.detail).toBe(gql.errors?.[0].message);
    }
    expectProblem(await call(server, 'GET', '/v3/rest/customers', { headers: { authorization: 'Basic abc' } }), 401);
  });

  it('refuses a missing scope with 403, the FORBIDDEN of /v3/graphql', async () => {
    const ordersOnly = await addApiClient(server.db, store.storeId, ['orders_read']);
    const gql = await graphql(server, ordersOnly.secret, '{ customers(first: 1) { nodes { id } } }');
    expect(gql.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const rest = expectProblem(await call(server, 'GET', '/v3/rest/customers?first=1', { secret: ordersOnly.secret }), 403);
    expect(rest.detail).toBe(gql.errors?.[0].message);
    expect(rest.instance).toBe('/v3/rest/customers?first=1');

    const write = await call(server, 'POST', '/v3/rest/upsert-customer', { secret: ordersOnly.secret, body: { input: { email: 'x@example.com' } } });
    expectProblem(write, 403);
  });

  it('answers bad input with 400 and an unknown route with 404, as problem+json', async () => {
    const badInput = await call(server, 'POST', '/v3/rest/upsert-customer', { secret: store.secret, body: { input: { email: 'not an e-mail' } } });
    const gql = await graphql(server, store.secret, 'mutation($input: CustomerUpsertInput!) { upsertCustomer(input: $input) { customer { id } } }', {
      input: { email: 'not an e-mail' },
    });
    expect(gql.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expectProblem(badInput, 400);

    expectProblem(await call(server, 'POST', '/v3/rest/upsert-customer', { secret: store.secret, body: '{not json' }), 400);
    expectProblem(await call(server, 'GET', '/v3/rest/customers?first=banana', { secret: store.secret }), 400);
    expectProblem(await call(server, 'GET', '/v3/rest/no-such-thing', { secret: store.secret }), 404);
    expectProblem(await call(server, 'GET', '/v3/rest/customer/cus_x', { secret: store.secret }), 404);
    expectProblem(await call(server, 'GET', '/v3/rest/upsert-customer', { secret: store.secret }), 404);
  });

  it('links a nested object that has a route of its own by its id, and answers each route\'s subject whole', async () => {
    const order = await createOrder(server.db.prisma, store.storeId, {
      orderId: 'sofa-links',
      createdAt: new Date().toISOString(),
      lineItems: [{ id: 'hat', productId: 'hat', title: 'Hat', quantity: 2, price: 5 }],
    });
    const lineId = (await server.db.prisma.orderLineItem.findFirstOrThrow({ where: { orderId: order.id } })).id;
    // A mutation's payload carries its subject whole.
    const created = await call(server, 'POST', '/v3/rest/create-return', {
      secret: store.secret,
      body: { input: { orderId: order.id, items: [{ lineItemId: lineId, quantity: 1, reason: 'too small' }] } },
    });
    expect(created.status, created.text).toBe(200);
    const payload = (created.body as { return: Record<string, unknown> }).return;
    expect(payload).toMatchObject({ status: 'OPEN', order: { id: order.id } });
    expect(payload.order).toEqual({ id: order.id });

    // A list's items are whole, once each, beside their cursors; below them an order (GET /v3/rest/order/:id) is its id,
    // an order line (no route of its own) is whole.
    const list = await call(server, 'GET', '/v3/rest/returns?first=5', { secret: store.secret });
    expect(list.status, list.text).toBe(200);
    const page = list.body as { edges: { cursor: string; node: Record<string, unknown> }[]; pageInfo: unknown };
    expect(Object.keys(page).sort()).toEqual(['edges', 'pageInfo']);
    const node = page.edges.find((edge) => edge.node.id === payload.id)!.node;
    expect(node).toMatchObject({ status: 'OPEN', order: { id: order.id } });
    expect(node.order).toEqual({ id: order.id });
    const [item] = node.items as Record<string, unknown>[];
    expect(item).toMatchObject({ quantity: 1, reason: 'too small', orderLineItem: { id: lineId, title: 'Hat', quantity: 2 } });
    expect(item.product).toBeNull();

    // The link leads to the whole order.
    const linked = await call(server, 'GET', `/v3/rest/order/${order.id}`, { secret: store.secret });
    expect(linked.status, linked.text).toBe(200);
    expect(linked.body).toMatchObject({ id: order.id, name: order.name, lineItems: [{ id: lineId, title: 'Hat' }] });

    // The document describes the links, and each answer conforms to it.
    const document = (await call(server, 'GET', '/v3/rest/openapi.json')).body as {
      components: { schemas: Record<string, { properties?: Record<string, { $ref?: string; anyOf?: unknown[] }>; required?: string[] }> };
    };
    const schemas = document.components.schemas;
    expect(schemas.Return.properties!.order).toMatchObject({ anyOf: [{ $ref: '#/components/schemas/OrderLink' }, { type: 'null' }] });
    expect(schemas.OrderLink.required).toEqual(['id']);
    // A subject is whole, and a page's items are always there.
    expect(schemas.ReturnEdge.properties!.node).toMatchObject({ $ref: '#/components/schemas/Return' });
    expect(schemas.ReturnEdge.required).toEqual(expect.arrayContaining(['node', 'cursor']));
    expect(schemas.ReturnConnection.required).toEqual(expect.arrayContaining(['edges', 'pageInfo']));
    // A non-null field SOFA leaves out where its type recurs along a route (its depth limit) is not required:
    // GET /v3/rest/order/{id} answers no line's `order`.
    expect(schemas.OrderLineItem.required).not.toContain('order');
    const checked = new CheckedDocument(document, 'sofa');
    for (const [method, path, answer] of [
      ['post', '/create-return', created],
      ['get', '/returns', list],
      ['get', '/order/{id}', linked],
    ] as const) {
      const validate = checked.validatorAt(['paths', path, method, 'responses', '200', 'content', 'application/json', 'schema']);
      expect(validate(answer.body), `${method} ${path}: ${formatAjvErrors(validate)}`).toBe(true);
    }
  });

  it("publishes SOFA's OpenAPI document without credentials, listing every query and mutation", async () => {
    const response = await call(server, 'GET', '/v3/rest/openapi.json');
    expect(response.status).toBe(200);
    const doc = response.body as { openapi: string; servers: { url: string }[]; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.servers).toEqual([{ url: '/v3/rest' }]);
    expect(doc.paths['/customers']).toHaveProperty('get');
    expect(doc.paths['/customer']).toHaveProperty('get');
    expect(doc.paths['/product/{id}']).toHaveProperty('get');
    expect(doc.paths['/upsert-customer']).toHaveProperty('post');
    expect(Object.keys(doc.paths).length).toBeGreaterThan(50);
    const validation = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(validation.errors ?? [], JSON.stringify(validation.errors)).toEqual([]);
    expect(validation.valid).toBe(true);
  });
});
