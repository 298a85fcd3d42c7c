// describeSofaAnswers on a small schema and the document SOFA writes for it: links, nulls,
// depth-limited answers, inputs and path parameters as /v3/rest serves them.
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { describeSofaAnswers, sofaLinks, type SofaOpenApiDocument } from '../../src/rest/sofaDocument.ts';

const schema = buildSchema(`
  type Query { order(id: ID!): Order  orders(first: Int): OrderConnection  customer(email: String!): Customer }
  type Mutation { placeOrder(input: PlaceOrderInput!): PlaceOrderPayload! }
  type Order { id: ID!  name: String!  note: String  status: Status  customer: Customer!  related: [Order!]! }
  type Customer { id: ID!  lastOrder: Order }
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
    paths: { '/order/{id}': { get: { parameters: [{ in: 'path', name: 'id', required: false }, { in: 'query', name: 'x', required: false }] } } },
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
        Customer: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, lastOrder: ref('Order') } },
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
  const described = describeSofaAnswers(sofaDocument(), schema, links, '/v3/rest');
  const schemas = described.components!.schemas!;

  it('finds the models (a by-id route) and where a route answers them whole', () => {
    expect([...links.models]).toEqual([['Order', 'order']]);
    expect(links.subjects).toEqual(['OrderEdge.node', 'PlaceOrderPayload.order']);
  });

  it('links a model below a subject, and keeps it whole where a route answers it', () => {
    expect(schemas.Customer.properties!.lastOrder).toEqual({ anyOf: [ref('OrderLink'), { type: 'null' }] });
    expect(schemas.Order.properties!.related).toEqual({ type: ['array', 'null'], items: ref('OrderLink') });
    expect(schemas.OrderEdge.properties!.node).toEqual({ anyOf: [ref('Order'), { type: 'null' }] });
    expect(schemas.PlaceOrderPayload.properties!.order).toEqual({ anyOf: [ref('Order'), { type: 'null' }] });
    expect(schemas.OrderLink).toMatchObject({ type: 'object', required: ['id'], properties: { id: { type: 'string' } } });
    expect(schemas.OrderLink.description).toContain('GET /v3/rest/order/{id}');
  });

  it('allows null where GraphQL does, and no longer requires an answered object SOFA may cut', () => {
    expect(schemas.Order.required).toEqual(['id', 'name']);
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
});
