// Assembles the OpenAPI 3.1 document of the v2.2 door. The published reference document
// (src/rest/reference.v2.2.json, vendored by `npm run reference:vendor`) is the door's
// contract: every route it has is described by its operation, verbatim. Routes it lacks
// (our additions) are described from their `doc`, with what the door itself answers
// (authentication, store and scope refusals, rate limits, malformed bodies, internal
// errors), and marked `x-extension: true`.
import fs from 'node:fs';
import type { HttpMethod, JsonSchema, Route, RouteDoc } from '../http/routeTable.ts';
import { IDEMPOTENCY_KEY_RULES } from '../formats/idempotencyKey.ts';
import { ERROR_BODY_SCHEMA } from './schemas.ts';
import { CONDITIONAL_REQUEST_RULES, VALIDATED_CACHE_CONTROL } from '../http/steps/validators.ts';

type Json = Record<string, unknown>;

let reference: Json | undefined;

/** The vendored reference document, read once. */
export function referenceDocument(): Json {
  reference ??= JSON.parse(fs.readFileSync(new URL('./reference.v2.2.json', import.meta.url), 'utf8')) as Json;
  return reference;
}

/** A schema with every `#/components/schemas/...` reference of the reference document replaced by its target. */
function inlined(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(inlined);
  if (schema === null || typeof schema !== 'object') return schema;
  const ref = (schema as Json).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    const schemas = (referenceDocument().components as Record<string, Json>).schemas;
    return inlined(schemas[ref.slice('#/components/schemas/'.length)]);
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, inlined(value)]));
}

/** The JSON request body schema the reference document gives an operation, self-contained (for checkShape). */
const requestSchemas = new Map<string, JsonSchema>();

/** One object per operation, so the validator compiled from it (bodyShape.ts) is compiled once. */
export function referenceRequestSchema(method: HttpMethod, path: string): JsonSchema {
  const key = `${method} ${path}`;
  let schema = requestSchemas.get(key);
  if (!schema) {
    const operation = referenceOperation(method, path)?.operation;
    const content = (operation?.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
    const documented = content?.['application/json']?.schema;
    if (!documented) throw new Error(`the reference document has no JSON request body for ${method} ${path}`);
    schema = inlined(documented) as JsonSchema;
    requestSchemas.set(key, schema);
  }
  return schema;
}

function referenceOperation(method: HttpMethod, path: string): { operation: Json; pathParameters?: unknown[] } | undefined {
  const item = (referenceDocument().paths as Record<string, Json>)[path];
  const operation = item?.[method.toLowerCase()] as Json | undefined;
  if (!operation) return undefined;
  return { operation: structuredClone(operation), pathParameters: item.parameters as unknown[] | undefined };
}

export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  info: { title: string; version: string; description: string };
  paths: Record<string, Partial<Record<Lowercase<HttpMethod>, OpenApiOperation>>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, unknown> };
};

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Record<string, string[]>[];
  parameters: Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, OpenApiResponse>;
  'x-required-scopes'?: string[];
  /** An operation the reference document does not have: our addition. */
  'x-extension'?: true;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, { description: string; schema: JsonSchema; required?: boolean }>;
  content?: Record<string, { schema: JsonSchema }>;
}

/** `info.version` of the interface description. */
export const API_VERSION = '2.2.1';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';
export const JSON_MEDIA_TYPE = 'application/json';

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };
const ERROR_REF = { $ref: '#/components/schemas/Error' };

export const PROBLEM_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'RFC 7807 problem details; `errors` lists each invalid input of a validation failure',
  required: ['type', 'title', 'status', 'detail'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', format: 'uri-reference', description: 'Always about:blank' },
    title: { type: 'string', description: 'Short summary of the status' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string', description: 'Human-readable explanation' },
    instance: { type: 'string', format: 'uri-reference', description: 'Path and query of the request' },
    errors: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['path', 'message'],
        additionalProperties: false,
        properties: {
          path: { type: 'string', description: 'Dotted path of the offending input, e.g. `lineItems.0.quantity` or a query parameter name' },
          message: { type: 'string' },
        },
      },
    },
  },
};

/** The `{error}` body as the document's component names it, its members in the order the document has always listed them. */
const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'The `{error}` body order creation answers for 400, 401 and 409',
  required: ERROR_BODY_SCHEMA.required,
  additionalProperties: false,
  properties: ERROR_BODY_SCHEMA.properties,
};

/** The IETF rate-limit fields (draft-ietf-httpapi-ratelimit-headers-11), as the REST doors (v2.2 and /v3/rest, one budget) send them. */
const IETF_RATE_HEADERS = {
  'RateLimit-Policy': {
    description:
      'The budget of this API client as an IETF structured-field list (draft-ietf-httpapi-ratelimit-headers): policy "rest" (shared by /v2.2 and /v3/rest), `q` requests per window of `w` seconds, e.g. `"rest";q=1200;w=60`',
    schema: { type: 'string', pattern: '^"rest";q=\\d+;w=60$' },
  },
  RateLimit: {
    description: 'What is left of the budget now (draft-ietf-httpapi-ratelimit-headers): `r` requests remaining and `t` seconds until the window ends, e.g. `"rest";r=1187;t=42`',
    schema: { type: 'string', pattern: '^"rest";r=\\d+;t=\\d+$' },
  },
};

/** What the REST doors (v2.2 and /v3/rest) send on every answer past authentication. */
export const RATE_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed per minute for this API client', schema: { type: 'integer', minimum: 1 } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current one-minute window', schema: { type: 'integer', minimum: 0 } },
  ...IETF_RATE_HEADERS,
};

export const RETRY_AFTER = { description: 'Seconds until the rate-limit window ends', schema: { type: 'integer', minimum: 1 }, required: true };

/** `/stores/{storeId}/inventory-levels/{id}` + GET -> `getInventoryLevelsById` (stable and unique per route). */
function operationIdOf(method: HttpMethod, path: string): string {
  const words = path
    .replace(/^\/stores\/\{storeId\}/, '')
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      const word = param ? `by-${param[1]}` : segment;
      return word
        .split(/[-_.]/)
        .filter(Boolean)
        .map((part) => part[0].toUpperCase() + part.slice(1))
        .join('');
    });
  return method.toLowerCase() + (words.join('') || 'Stores');
}

function pathParameters(path: string): Record<string, unknown>[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description: name === 'storeId' ? 'Store identifier (str_...); must be the store of the API secret' : `Identifier of the ${name === 'id' ? 'resource' : name}`,
    schema: { type: 'string' },
  }));
}

function bodyOf(schema: JsonSchema, mediaType: string): OpenApiResponse['content'] {
  return { [mediaType]: { schema } };
}

function problemResponse(description: string, headers?: OpenApiResponse['headers']): OpenApiResponse {
  return { description, ...(headers ? { headers } : {}), content: bodyOf(PROBLEM_REF, PROBLEM_MEDIA_TYPE) };
}

/** A response a route documents, in OpenAPI form. */
function routeResponse(response: RouteDoc['responses'][string]): OpenApiResponse {
  const out: OpenApiResponse = { description: response.description };
  if (response.headers) out.headers = { ...response.headers };
  if (response.mediaType) out.content = bodyOf(response.problem ? PROBLEM_REF : (response.schema ?? { type: 'string' }), response.mediaType);
  else if (response.problem) out.content = bodyOf(PROBLEM_REF, PROBLEM_MEDIA_TYPE);
  else if (response.schema) out.content = bodyOf(response.schema, JSON_MEDIA_TYPE);
  return out;
}

/** What the door answers before or around the route: added unless the route documents the status itself. */
function doorResponses(route: Route): Record<string, OpenApiResponse> {
  const errorBody = (description: string): OpenApiResponse =>
    route.errorStyle === 'error' ? { description, content: bodyOf(ERROR_REF, JSON_MEDIA_TYPE) } : problemResponse(description);
  const out: Record<string, OpenApiResponse> = {};
  if (!route.public) {
    out['401'] = errorBody('Missing, malformed, unknown or revoked API secret');
    out['403'] = problemResponse(
      route.scopes.length > 0
        ? `The secret belongs to another store, or its client lacks a scope (${route.scopes.join(', ')})`
        : 'The secret belongs to another store',
    );
    out['429'] = problemResponse('Rate limit of the API client exceeded', { 'Retry-After': RETRY_AFTER, ...RATE_HEADERS });
  }
  if (route.doc?.requestBody) {
    out['400'] = errorBody('The body is not JSON, or not valid for this operation');
    out['413'] = problemResponse('The body exceeds 1 MiB');
  }
  out['500'] = problemResponse('Internal error');
  return out;
}

function operationOf(route: Route, doc: RouteDoc): OpenApiOperation {
  const responses: Record<string, OpenApiResponse> = {};
  for (const [status, response] of Object.entries(doc.responses)) responses[status] = routeResponse(response);
  for (const [status, response] of Object.entries(doorResponses(route))) responses[status] ??= response;
  responses.default ??= problemResponse('Any other failure');
  if (!route.public) {
    // The door adds the rate-limit headers to every answer that got past authentication.
    for (const [status, response] of Object.entries(responses)) {
      if (status !== '401' && status !== '403') response.headers = { ...RATE_HEADERS, ...response.headers };
    }
  }

  const scopes = [...route.scopes];
  const description = [doc.description, scopes.length > 0 ? `Required scopes: ${scopes.join(', ')}.` : undefined].filter(Boolean).join('\n\n');
  const operation: OpenApiOperation = {
    operationId: operationIdOf(route.method, route.path),
    summary: doc.summary,
    ...(description ? { description } : {}),
    tags: [doc.tag],
    security: route.public ? [] : [{ bearerAuth: [] }],
    parameters: [
      ...pathParameters(route.path),
      ...(doc.parameters ?? []).map((p) => ({ ...p, required: p.required ?? false })),
    ],
    responses,
  };
  if (doc.requestBody) {
    operation.requestBody = {
      required: doc.requestBody.required,
      ...(doc.requestBody.description ? { description: doc.requestBody.description } : {}),
      content: bodyOf(doc.requestBody.schema, JSON_MEDIA_TYPE),
    };
  }
  if (!route.public) operation['x-required-scopes'] = scopes;
  return operation;
}

/** What the answer of a GET carries for polling (conditionalRequests.ts); a 304 carries the same. */
export const VALIDATOR_HEADERS = {
  ETag: {
    description: 'Strong validator of this answer, for this API client and this request (query string, Accept, Accept-Encoding); send it back in If-None-Match',
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description: `\`${VALIDATED_CACHE_CONTROL}\`: a client may keep the answer but asks again (with If-None-Match) before each use; no shared cache keeps it`,
    schema: { type: 'string' },
  },
  Vary: { description: 'What the answer depends on besides its URL: `Authorization, Accept, Accept-Encoding`', schema: { type: 'string' } },
} satisfies OpenApiResponse['headers'];

export const IF_NONE_MATCH_PARAMETER = { name: 'If-None-Match', in: 'header', required: false, description: CONDITIONAL_REQUEST_RULES, schema: { type: 'string' } };

export const NOT_MODIFIED_DESCRIPTION = 'Not Modified: the answer whose ETag was sent in If-None-Match is current; no body';

/** Every GET of a client takes If-None-Match: its 200 carries the validator, and an unchanged answer is a 304. */
function withValidators(route: Route, operation: Record<string, unknown>): void {
  const responses = operation.responses as Record<string, OpenApiResponse>;
  if (route.method !== 'GET' || route.public || !responses['200']) return;
  operation.parameters = [...((operation.parameters as unknown[] | undefined) ?? []), IF_NONE_MATCH_PARAMETER];
  responses['200'].headers = { ...responses['200'].headers, ...VALIDATOR_HEADERS };
  responses['304'] ??= { description: NOT_MODIFIED_DESCRIPTION, headers: VALIDATOR_HEADERS };
}

const IDEMPOTENCY_KEY_PARAMETER = { $ref: '#/components/parameters/idempotency-key.param' };

/**
 * Every write takes the reference's Idempotency-Key parameter (idempotentRequests.ts), with
 * the answers the key adds: 409 while the first request with the key still runs, 422 when
 * the key was used with another request. Routes that read the key themselves document it already.
 */
function withIdempotencyKey(route: Route, operation: Record<string, unknown>): void {
  if (route.method === 'GET' || route.public || route.ownsIdempotencyKey) return;
  operation.parameters = [...((operation.parameters as unknown[] | undefined) ?? []), IDEMPOTENCY_KEY_PARAMETER];
  const responses = operation.responses as Record<string, OpenApiResponse>;
  // In the body and media type the door answers that status on this route with (rest/door.ts failure()).
  const refusal = (status: number, description: string, headers?: OpenApiResponse['headers']): OpenApiResponse => {
    if (route.errorStyle === 'error' && (route.errorStatuses ?? [400, 401, 409]).includes(status)) {
      return { description, ...(headers ? { headers } : {}), content: bodyOf(ERROR_REF, JSON_MEDIA_TYPE) };
    }
    const mediaType = route.jsonErrorStatuses?.includes(status) ? JSON_MEDIA_TYPE : PROBLEM_MEDIA_TYPE;
    return { description, ...(headers ? { headers } : {}), content: bodyOf(PROBLEM_REF, mediaType) };
  };
  responses['409'] ??= refusal(409, 'A request with the same Idempotency-Key is still being processed: retry after Retry-After seconds', {
    'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
  });
  responses['422'] ??= refusal(422, 'The Idempotency-Key was already used by this API client with a different request');
}

export function buildOpenApiDocument(routes: readonly Route[]): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const tags = new Set<string>();
  for (const route of routes) {
    const key = route.method.toLowerCase() as Lowercase<HttpMethod>;
    const fromReference = referenceOperation(route.method, route.path);
    if (!fromReference && !route.doc) throw new Error(`${route.method} ${route.path} is neither in the reference document nor documented`);
    const item = (paths[route.path] ??= {}) as Record<string, unknown>;
    if (item[key]) throw new Error(`two routes document ${route.method} ${route.path}`);
    if (fromReference) {
      item[key] = fromReference.operation;
      if (fromReference.pathParameters) item.parameters = fromReference.pathParameters;
      for (const tag of (fromReference.operation.tags as string[] | undefined) ?? []) tags.add(tag);
    } else {
      item[key] = { ...operationOf(route, route.doc!), 'x-extension': true };
      tags.add(route.doc!.tag);
    }
    withIdempotencyKey(route, item[key] as Record<string, unknown>);
    withValidators(route, item[key] as Record<string, unknown>);
  }
  const referenceComponents = referenceDocument().components as Record<string, Record<string, unknown>>;
  return {
    openapi: '3.1.0',
    info: {
      title: 'Returns, Orders, Customers and Inventory Service: REST interface',
      version: API_VERSION,
      description:
        'Versioned REST interface (v2.2). Lists are paginated with `page-size` / `page-continue` (also accepted as the headers ' +
        '`X-Page-Size` / `X-Page-Continue`); the next cursor is in the `X-Page-Next` response header while more results exist. ' +
        'Errors are `application/problem+json` except the `{error}` bodies of order creation. ' +
        `${IDEMPOTENCY_KEY_RULES} Return creation keeps the reference's own rule (a replay answers 200 with the return first made; ` +
        'another request under the key is 409).',
    },
    servers: [{ url: '/v2.2', description: 'This server' }],
    tags: [...tags].sort().map((name) => ({ name })),
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      ...referenceComponents,
      schemas: { ...referenceComponents.schemas, Problem: PROBLEM_SCHEMA, Error: ERROR_SCHEMA },
      securitySchemes: {
        ...referenceComponents.securitySchemes,
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API secret> of an API client of the store' },
      },
    },
  };
}
