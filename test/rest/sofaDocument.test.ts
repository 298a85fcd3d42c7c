// describeSofaAnswers on a small schema and the document SOFA writes for it: links, nulls,
// depth-limited answers, inputs, path parameters and refusals as /v3/rest serves them.
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { describeSofaAnswers, sofaLeftOut, sofaLinks, type SofaOpenApiDocument } from '../../src/rest/sofaDocument.ts';

const schema = buildSchema(`
  type Query { order(id: ID!): Order  orders(first: Int): OrderConnection  customer(email: String!): Customer }
  type Mutation { placeOrder(input: PlaceOrderInput!): PlaceOrderPayload! }
  type Order { id: ID!  name: String!  note: String  status: Status  customer: Customer!  related: [Order!]! }
  type Customer { id: ID!  lastOrder: Order  firstOrder: Order! }
  type OrderConnection { edges: [OrderEdge!]!  pageInfo: PageInfo! }
  type OrderEdge { node: Order!  cursor: String! }
  type PageInfo { hasNextPage: Boolean! }
  type PlaceOrderPayload { order: Order! }
  input PlaceOrderInput { address: AddressInput!  note: String }
  input AddressInput { line1: String! }
  enum Status { OPEN CLOSED }
`);

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** What SOFA's generator writes for that schema (the parts describeSofaAnswers reads). */
function sofaDocument(): SofaOpenApiDocument {
  return {
    openapi: '3.0.1',
    paths: {
      '/order/{id}': { get: { parameters: [{ in: 'path', name: 'id', required: false }, { in: 'query', name: 'x', required: false }], responses: { 200: { description: '' } } } },
      '/place-order': {
        post: {
          parameters: [{ in: 'query', name: 'input', required: true, schema: ref('PlaceOrderInput') }],
          requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { input: ref('PlaceOrderInput') }, required: ['input'] } } } },
          responses: { 200: { description: '', content: { 'application/json': { schema: ref('PlaceOrderPayload') } } } },
        },
      },
    },
    components: {
      schemas: {
        Order: {
          type: 'object',
          required: ['id', 'name', 'customer', 'related'],
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            note: { type: 'string' },
            status: { type: 'string', enum: ['OPEN', 'CLOSED'] },
            customer: ref('Customer'),
            related: { type: 'array', items: ref('Order') },
          },
        },
        Customer: { type: 'object', required: ['id', 'firstOrder'], properties: { id: { type: 'string' }, lastOrder: ref('Order'), firstOrder: ref('Order') } },
        OrderConnection: { type: 'object', required: ['edges', 'pageInfo'], properties: { edges: { type: 'array', items: ref('OrderEdge') }, pageInfo: ref('PageInfo') } },
        PageInfo: { type: 'object', required: ['hasNextPage'], properties: { hasNextPage: { type: 'boolean' } } },
        OrderEdge: { type: 'object', required: ['node', 'cursor'], properties: { node: ref('Order'), cursor: { type: 'string' } } },
        PlaceOrderPayload: { type: 'object', required: ['order'], properties: { order: ref('Order') } },
        PlaceOrderInput: { type: 'object', required: ['address'], properties: { address: ref('AddressInput'), note: { type: 'string' } } },
        AddressInput: { type: 'object', required: ['line1'], properties: { line1: { type: 'string' } } },
      },
    },
  };
}

describe('the /v3/rest document', () => {
  const links = sofaLinks(schema);
  const described = describeSofaAnswers(sofaDocument(), schema, links, { basePath: '/v3/rest', depthLimit: 1 });
  const schemas = described.components!.schemas!;

  it('finds the models (a by-id route) and where a route answers them whole', () => {
    expect([...links.models]).toEqual([['Order', 'order']]);
    expect(links.subjects).toEqual(['OrderEdge.node', 'PlaceOrderPayload.order']);
  });

  it('links a model below a subject, and keeps it whole where a route answers it', () => {
    expect(schemas.Customer.properties!.lastOrder).toEqual({ anyOf: [ref('OrderLink'), { type: 'null' }] });
    expect(schemas.Order.properties!.related).toEqual({ type: 'array', items: ref('OrderLink') });
    expect(schemas.OrderEdge.properties!.node).toEqual(ref('Order'));
    expect(schemas.PlaceOrderPayload.properties!.order).toEqual(ref('Order'));
    expect(schemas.OrderLink).toMatchObject({ type: 'object', required: ['id'], properties: { id: { type: 'string' } } });
    expect(schemas.OrderLink.description).toContain('GET /v3/rest/order/{id}');
  });

  it('finds the fields some route leaves out where a type recurs along its selection', () => {
    // GET /order/{id}: Order > customer > firstOrder and lastOrder would be an Order again.
    expect(sofaLeftOut(schema, links, 1)).toEqual(new Map([['Customer', new Set(['lastOrder', 'firstOrder'])]]));
  });

  it('requires what GraphQL has non-null and every route answers, allows null where GraphQL does', () => {
    expect(schemas.Order.required).toEqual(['id', 'name', 'customer', 'related']);
    expect(schemas.OrderConnection.required).toEqual(['edges', 'pageInfo']);
    expect(schemas.OrderConnection.properties!.edges).toEqual({ type: 'array', items: ref('OrderEdge') });
    expect(schemas.OrderEdge.required).toEqual(['node', 'cursor']);
    expect(schemas.PlaceOrderPayload.required).toEqual(['order']);
    // Non-null, but left out of the answers of GET /order/{id}.
    expect(schemas.Customer.required).toEqual(['id']);
    expect(schemas.Customer.properties!.firstOrder).toEqual({ anyOf: [ref('OrderLink'), { type: 'null' }] });
    expect(schemas.Order.properties!.note).toEqual({ type: ['string', 'null'] });
    expect(schemas.Order.properties!.status).toEqual({ type: ['string', 'null'], enum: ['OPEN', 'CLOSED', null] });
    expect(schemas.Order.properties!.name).toEqual({ type: 'string' });
  });

  it("keeps what a request must send required, and a path parameter required", () => {
    expect(schemas.PlaceOrderInput.required).toEqual(['address']);
    expect(schemas.PlaceOrderInput.properties!.address).toEqual(ref('AddressInput'));
    expect(described.paths!['/order/{id}'].get.parameters).toEqual([
      { in: 'path', name: 'id', required: true },
      { in: 'query', name: 'x', required: false },
    ]);
    expect(described.openapi).toBe('3.1.0');
  });

  it('takes a mutation\'s input in its body only', () => {
    const operation = described.paths!['/place-order'].post;
    expect(operation.parameters).toEqual([]);
    expect(operation.requestBody).toMatchObject({ content: { 'application/json': { schema: { required: ['input'] } } } });
  });

  it('documents every refusal of every route with the one Problem schema', () => {
    expect(schemas.Problem).toMatchObject({ required: ['type', 'title', 'status', 'detail'], properties: { errors: { type: 'array' } } });
    const problem = { 'application/problem+json': { schema: ref('Problem') } };
    const shared = described.components!.responses!;
    for (const response of Object.values(shared)) expect(response.content).toEqual(problem);
    expect(shared.Unavailable.headers!['Retry-After']).toMatchObject({ required: true });
    const responses = (path: string, method: string) => described.paths![path][method].responses as Record<string, { $ref?: string; content?: unknown }>;
    const statuses = (path: string, method: string) =>
      Object.fromEntries(Object.entries(responses(path, method)).map(([status, response]) => [status, response.$ref?.replace('#/components/responses/', '')]));
    expect(statuses('/order/{id}', 'get')).toEqual({
      200: undefined, 400: 'BadInput', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 429: undefined, 500: 'InternalError', 503: 'Unavailable',
    });
    expect(statuses('/place-order', 'post')).toEqual({
      200: undefined, 400: 'BadInput', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 409: 'Conflict', 413: 'PayloadTooLarge', 422: 'IdempotencyKeyReused',
      429: undefined, 500: 'InternalError', 503: 'Unavailable',
    });
    expect(responses('/place-order', 'post')['429'].content).toEqual(problem);
  });
});
