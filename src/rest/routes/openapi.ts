// GET /v2.2/openapi.json: the OpenAPI 3.1 document of every v2.2 route, served
// without credentials. Built once, on first request, from the route table.
import type { Route } from '../../http/routeTable.ts';
import { buildOpenApiDocument } from '../openapi.ts';

const OPENAPI_SCHEMA = {
  type: 'object',
  description: 'An OpenAPI 3.1 document',
  required: ['openapi', 'info', 'paths'],
  properties: { openapi: { type: 'string', pattern: '^3\\.1\\.' }, info: { type: 'object' }, paths: { type: 'object' } },
};

/** `routes` is read at the first request, so the document can list every route including itself. */
export function openApiRoute(routes: () => readonly Route[]): Route {
  let body: string | undefined;
  return {
    method: 'GET',
    path: '/openapi.json',
    scopes: [],
    public: true,
    doc: {
      summary: 'OpenAPI document of this interface',
      tag: 'Merchant Admin',
      description: 'This document: every route, parameter, header, request and response schema and error body of v2.2. No credentials needed.',
      responses: { '200': { description: 'The OpenAPI 3.1 document', schema: OPENAPI_SCHEMA } },
    },
    async handle() {
      body ??= JSON.stringify(buildOpenApiDocument(routes()));
      return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body };
    },
  };
}
