// GET /v2.2/openapi.json: served without credentials, a valid OpenAPI 3.1 document
// (linted by @seriousme/openapi-schema-validator). Every route the reference document
// has is described by the reference's operation verbatim (from the vendored copy, which
// must equal the package's document); every other route is an extension (x-extension)
// described with the door's own answers, its JSON Schemas compiled strictly by Ajv 2020.
// The response checker other REST tests use must be able to fail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { restRoutes } from '../../src/rest/routes/index.ts';
import { buildOpenApiDocument, VALIDATOR_HEADERS, type OpenApiOperation } from '../../src/rest/openapi.ts';
import { call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { expectValidRestResponse, findPathTemplate, openApiDocument, restResponseProblems } from '../support/openapi.ts';
import { REFERENCE_PACKAGE } from '../support/reference.ts';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { parse as parseYaml } from 'yaml';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as typeof addFormatsModule;

let server: TestServer;
let store: TestStore;
let served: ReturnType<typeof buildOpenApiDocument>;

beforeAll(async () => {
  server = await startTestServer();
  // The document checks hold the event loop for a while; idle connections must outlive that.
  store = await createTestStore(server.db);
  const res = await call(server, 'GET', '/v2.2/openapi.json');
  expect(res.status).toBe(200);
  served = res.body as typeof served;
});
afterAll(async () => server?.close());

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operations(): [string, string, OpenApiOperation][] {
  return Object.entries(served.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => [path, method, op as OpenApiOperation] as [string, string, OpenApiOperation]),
  );
}

/** Our additions: the operations the reference document does not have. */
const extensions = () => operations().filter(([, , op]) => op['x-extension'] === true);

/** The package's document, parsed from its YAML (the vendored JSON must equal it). */
function packageDocument(): Record<string, unknown> {
  const file = createRequire(import.meta.url).resolve(`${REFERENCE_PACKAGE}/openapi.yaml`);
  return parseYaml(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/** Every JSON Schema in the document with a JSON pointer naming it. */
function schemasOf(doc: Record<string, unknown>): [string, Record<string, unknown>][] {
  const out: [string, Record<string, unknown>][] = [];
  for (const name of ['Problem', 'Error']) {
    out.push([`#/components/schemas/${name}`, (doc.components as { schemas: Record<string, Record<string, unknown>> }).schemas[name]]);
  }
  for (const [path, method, op] of extensions()) {
    const at = `${method.toUpperCase()} ${path}`;
    const shared = (doc.components as { parameters: Record<string, { name: string; schema: Record<string, unknown> }> }).parameters;
    for (const given of op.parameters as ({ name: string; schema: Record<string, unknown> } | { $ref: string })[]) {
      // A shared parameter (the reference's Idempotency-Key) is checked where it is declared.
      const p = '$ref' in given ? shared[given.$ref.replace('#/components/parameters/', '')] : given;
      out.push([`${at} parameter ${p.name}`, p.schema]);
    }
    const body = (op.requestBody as { content?: Record<string, { schema: Record<string, unknown> }> } | undefined)?.content;
    for (const [type, media] of Object.entries(body ?? {})) out.push([`${at} request ${type}`, media.schema]);
    for (const [status, response] of Object.entries(op.responses)) {
      for (const [type, media] of Object.entries(response.content ?? {})) out.push([`${at} ${status} ${type}`, media.schema]);
      for (const [name, h] of Object.entries(response.headers ?? {})) out.push([`${at} ${status} header ${name}`, h.schema]);
    }
  }
  return out;
}

describe('the response checker', () => {
  it('accepts the door answers for unknown routes and wrong methods', async () => {
    const unknown = await call(server, 'GET', `/v2.2/stores/${store.storeId}/no-such-thing`, { secret: store.secret });
    expectValidRestResponse('GET', `/v2.2/stores/${store.storeId}/no-such-thing`, unknown);
    const wrongMethod = await call(server, 'DELETE', '/v2.2/openapi.json');
    expect(wrongMethod.status).toBe(405);
    expectValidRestResponse('DELETE', '/v2.2/openapi.json', wrongMethod);
  });

  it('accepts what every documented operation answers to an empty or unknown request', async () => {
    const failures: string[] = [];
    for (const [path, item] of Object.entries(openApiDocument().paths)) {
      for (const [method, op] of Object.entries(item).filter(([key]) => METHODS.includes(key))) {
        const url = `/v2.2${path.replace('{storeId}', store.storeId).replace(/\{\w+\}/g, 'unknown_1')}`;
        const res = await call(server, method.toUpperCase(), url, { secret: store.secret, body: op.requestBody ? {} : undefined });
        if (res.status >= 500) failures.push(`${method.toUpperCase()} ${url} -> ${res.status}`);
        failures.push(...restResponseProblems(method, url, res));
      }
    }
    expect(failures).toEqual([]);
  });

  it('refuses a body, a status, a media type or a header the document does not describe', () => {
    const base = { status: 404, headers: new Headers({ 'content-type': 'application/problem+json' }), text: '' };
    const op = findPathTemplate('/v2.2/openapi.json')!;
    expect(op).toBe('/openapi.json');
    expect(restResponseProblems('GET', op, { ...base, status: 200, headers: new Headers({ 'content-type': 'application/json' }), text: '{"openapi":"2.0"}' })).not.toEqual([]);
    expect(restResponseProblems('GET', op, { ...base, status: 200, headers: new Headers({ 'content-type': 'text/html' }), text: '{}' })).not.toEqual([]);
    expect(restResponseProblems('POST', op, { ...base, status: 405, headers: new Headers({ 'content-type': 'application/problem+json', allow: 'GET, PUT' }), text: '{"type":"about:blank","title":"x","status":405,"detail":"x"}' })).not.toEqual([]);
    expect(restResponseProblems('GET', '/v2.2/nowhere', { ...base, text: '{"title":"Not Found"}' })).not.toEqual([]);
    const document = openApiDocument();
    const authenticated = Object.entries(document.paths).find(([, item]) => Object.values(item).some((o) => o['x-extension'] && o.security.length > 0));
    if (authenticated) {
      const [path, item] = authenticated;
      const method = Object.keys(item)[0];
      const problem = '{"type":"about:blank","title":"Too Many Requests","status":429,"detail":"slow down"}';
      expect(restResponseProblems(method, path, { status: 429, headers: new Headers({ 'content-type': 'application/problem+json' }), text: problem })).toEqual([
        expect.stringContaining('Retry-After'),
      ]);
    }
  });
});

describe('the document', () => {
  it('is served without credentials as JSON and equals the one built from the route table', async () => {
    const res = await call(server, 'GET', '/v2.2/openapi.json');
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(restRoutes))));
    expectValidRestResponse('GET', '/v2.2/openapi.json', res);
  });

  it('passes the OpenAPI 3.1 schema validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(served);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has every JSON Schema compile under strict Ajv 2020 (no unknown keywords, no typos)', () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
    // Component references become absolute ids, so each schema compiles on its own.
    const absolute = (schema: unknown) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"https://service.invalid/schemas/'));
    for (const name of ['Problem', 'Error']) ajv.addSchema(absolute(served.components.schemas[name]), `https://service.invalid/schemas/${name}`);
    const failures: string[] = [];
    const seen = new Set<string>();
    for (const [where, schema] of schemasOf(served)) {
      const text = JSON.stringify(schema);
      if (seen.has(text)) continue;
      seen.add(text);
      try {
        ajv.compile(absolute(schema));
      } catch (error) {
        failures.push(`${where}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('carries version 2.2.1, the /v2.2 server, the Problem schema and the bearer scheme', () => {
    expect(served.openapi).toMatch(/^3\.1\.\d+$/);
    expect(served.info.version).toBe('2.2.1');
    expect(served.servers).toEqual([expect.objectContaining({ url: '/v2.2' })]);
    expect(served.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(served.components.schemas.Problem).toMatchObject({
      required: ['type', 'title', 'status', 'detail'],
      properties: { type: expect.any(Object), title: expect.any(Object), detail: expect.any(Object), instance: expect.any(Object), errors: expect.any(Object) },
    });
  });

  it('is vendored from the reference package unchanged', () => {
    const vendored = JSON.parse(fs.readFileSync(new URL('../../src/rest/reference.v2.2.json', import.meta.url), 'utf8'));
    expect(vendored, 'run npm run reference:vendor').toEqual(packageDocument());
  });

  /**
   * The served operation without what the service adds to every write of the reference: the
   * reference's own Idempotency-Key parameter, and its 409 and 422 answers where the reference has none.
   */
  function withoutIdempotencyKey(path: string, method: string, op: Record<string, unknown>, referenceOp: Record<string, unknown>): Record<string, unknown> {
    const parameters = (op.parameters as { $ref?: string }[] | undefined) ?? [];
    const keyed = parameters.some((p) => p.$ref === '#/components/parameters/idempotency-key.param');
    // Public operations have no API client for a key to belong to.
    if (method === 'get' || restRoutes.some((route) => route.public && route.path === path && route.method.toLowerCase() === method)) {
      expect(keyed).toBe(false);
      return op;
    }
    expect(keyed, `${method} ${String(op.operationId)} takes Idempotency-Key`).toBe(true);
    const referenceKeyed = ((referenceOp.parameters as { $ref?: string }[] | undefined) ?? []).some((p) => p.$ref === '#/components/parameters/idempotency-key.param');
    if (referenceKeyed) return op;
    const responses = { ...(op.responses as Record<string, unknown>) };
    for (const status of ['409', '422']) if (!(status in (referenceOp.responses as Record<string, unknown>))) delete responses[status];
    const rest = parameters.filter((p) => p.$ref !== '#/components/parameters/idempotency-key.param');
    const { parameters: _parameters, ...others } = op;
    return { ...others, ...(referenceOp.parameters !== undefined || rest.length > 0 ? { parameters: rest } : {}), responses };
  }

  /** A reference GET of a client as the reference has it: without If-None-Match, the validator headers of its 200 and its 304. */
  function withoutValidators(path: string, method: string, op: Record<string, unknown>): Record<string, unknown> {
    const responses = op.responses as Record<string, { headers?: Record<string, unknown> }>;
    if (method !== 'get' || restRoutes.some((route) => route.public && route.path === path && route.method === 'GET') || !responses['200']) return op;
    const parameters = (op.parameters as { name?: string }[] | undefined) ?? [];
    expect(parameters.filter((p) => p.name === 'If-None-Match'), `${path} takes If-None-Match`).toHaveLength(1);
    expect(responses['304']?.headers, `${path} answers 304`).toEqual(VALIDATOR_HEADERS);
    const { '304': _notModified, ...others } = responses;
    const { ETag: _etag, 'Cache-Control': _cacheControl, Vary: _vary, ...headers } = responses['200'].headers ?? {};
    const ok = { ...responses['200'], ...(Object.keys(headers).length > 0 ? { headers } : {}) };
    if (Object.keys(headers).length === 0) delete ok.headers;
    const rest = parameters.filter((p) => p.name !== 'If-None-Match');
    const { parameters: _parameters, ...fields } = op;
    return { ...fields, ...(rest.length > 0 ? { parameters: rest } : {}), responses: { ...others, '200': ok } };
  }

  it('describes every reference operation it serves exactly as the reference does, apart from Idempotency-Key on every write and If-None-Match on every read', () => {
    const reference = packageDocument() as { paths: Record<string, Record<string, unknown>>; components: Record<string, Record<string, unknown>> };
    const served_ = served as unknown as { paths: Record<string, Record<string, unknown>>; components: Record<string, Record<string, unknown>> };
    const described = operations().filter(([, , op]) => !op['x-extension']);
    expect(described.length).toBeGreaterThan(0);
    for (const [path, method, op] of described) {
      const asReference = withoutValidators(path, method, op as unknown as Record<string, unknown>);
      expect(withoutIdempotencyKey(path, method, asReference, reference.paths[path][method] as Record<string, unknown>), `${method} ${path}`).toEqual(reference.paths[path][method]);
      expect(served_.paths[path].parameters, `${path} parameters`).toEqual(reference.paths[path].parameters);
    }
    for (const kind of ['schemas', 'parameters', 'headers']) {
      for (const [name, value] of Object.entries(reference.components[kind])) expect(served_.components[kind][name], `${kind} ${name}`).toEqual(value);
    }
  });

  it('documents every route of the door, each once, with its path parameters', () => {
    for (const route of restRoutes) {
      const op = served.paths[route.path]?.[route.method.toLowerCase() as 'get'];
      expect(op, `${route.method} ${route.path} missing from the document`).toBeDefined();
      if (!op!['x-extension']) continue;
      expect(route.doc, `${route.method} ${route.path} has no doc`).toBeDefined();
      const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const declared = (op!.parameters as { name: string; in: string; required: boolean }[]).filter((p) => p.in === 'path');
      expect(declared.map((p) => p.name)).toEqual(pathParams);
      expect(declared.every((p) => p.required)).toBe(true);
    }
    expect(operations()).toHaveLength(restRoutes.length);
    const ids = operations().map(([, , op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("documents the door's own answers on every authenticated route", () => {
    for (const route of restRoutes.filter((r) => !r.public)) {
      const op = served.paths[route.path][route.method.toLowerCase() as 'get']!;
      if (!op['x-extension']) continue;
      const at = `${route.method} ${route.path}`;
      expect(op.security, at).toEqual([{ bearerAuth: [] }]);
      expect(op['x-required-scopes'], at).toEqual([...route.scopes]);
      for (const status of ['401', '403', '429', '500', 'default']) expect(op.responses[status], `${at} ${status}`).toBeDefined();
      expect(op.responses['429'].headers?.['Retry-After']).toMatchObject({ required: true });
      if (op.requestBody) for (const status of ['400', '413']) expect(op.responses[status], `${at} ${status}`).toBeDefined();
      const problemStatuses = Object.entries(op.responses).filter(([, r]) => r.content?.['application/problem+json']);
      expect(problemStatuses.length, at).toBeGreaterThan(0);
    }
  });

  it('documents X-Page-Next, page-size and page-continue on every paginated list', () => {
    const lists = extensions().filter(([, , op]) => (op.parameters as { name: string }[]).some((p) => p.name === 'page-size'));
    for (const [path, method, op] of lists) {
      const names = (op.parameters as { name: string }[]).map((p) => p.name);
      expect(names, `${method} ${path}`).toEqual(expect.arrayContaining(['page-size', 'page-continue', 'X-Page-Size', 'X-Page-Continue']));
      expect(op.responses['200'].headers?.['X-Page-Next'], `${method} ${path}`).toBeDefined();
    }
  });
});
