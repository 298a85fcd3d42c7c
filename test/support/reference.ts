// The published reference document of the v2.2 interface (npm `@redotech/redo-api-schema`,
// `lib/openapi.yaml`) is the contract of the REST door. This module loads it once and checks
// real responses against it: the status must be one the operation documents (or its
// `default`), the media type must be the documented one, the body must validate against the
// documented JSON Schema (Ajv 2020 with formats) and documented headers against theirs.
//
// `call()` in ./server.ts runs `referenceResponseProblems` on every /v2.2 response whose
// operation the document has, so every REST test validates against it without opting in.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { parse as parseYaml } from 'yaml';
import createClient from 'openapi-fetch';
import { CheckedDocument, documentedResponseProblems, formatAjvErrors, mediaTypeOf, type ResponseLike } from './documentCheck.ts';
import type { paths } from '@redotech/redo-api-schema/openapi';

export const REFERENCE_PACKAGE = '@redotech/redo-api-schema';
const DOCUMENT_ID = 'https://reference.invalid/v2.2/openapi.json';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** The tag groups issue 9 makes the door serve; later issues add theirs. */
export const SERVED_TAG_GROUPS = [
  'Customers',
  'Customer Subscriptions',
  'Custom Events',
  'Orders',
  'Returns Custom Integration',
  'Returns',
  'Inventory Items',
  'Inventory Levels',
  'Inbound Shipments',
  'Products',
  'Webhooks',
  'Coverage Products',
  'Checkout Buttons',
  'Coverage Info',
  'Storefront',
  'Invoices',
  'Merchant Admin',
  'Customer Portal',
] as const;

type Json = Record<string, unknown>;

export interface ReferenceOperation {
  method: Uppercase<(typeof METHODS)[number]>;
  path: string;
  operationId: string;
  tags: string[];
  operation: Json;
}

let cached: { document: Json; checked: CheckedDocument } | undefined;

/** The reference document as published, with its one known defect mended (see below). */
export function referenceDocument(): Json {
  return state().document;
}

function loadDocument(): Json {
  const require = createRequire(import.meta.url);
  const file = require.resolve(`${REFERENCE_PACKAGE}/openapi.yaml`);
  const document = parseYaml(fs.readFileSync(file, 'utf8')) as Json;
  // Defect of the published document: `webhook-read.schema` lists `"externalId id"` as ONE
  // required property name (a missing comma), which no object can satisfy. Read as the two
  // names it obviously means. Noted in the README's REST section.
  const schemas = (document.components as { schemas: Record<string, { required?: string[] }> }).schemas;
  const webhookRead = schemas['webhook-read.schema'];
  if (webhookRead?.required?.includes('externalId id')) {
    webhookRead.required = webhookRead.required.flatMap((name) => (name === 'externalId id' ? ['externalId', 'id'] : [name]));
  }
  // Two more of the same kind: `coverage-product.schema` requires `coverage` where its
  // property is `coverages`, and `invoice.schema` requires `team` where its property is
  // `store`. The package's own openapi.d.ts (generated from the same document) drops both
  // names; read them as the properties they name.
  const requiredRenames: Record<string, [string, string]> = { 'coverage-product.schema': ['coverage', 'coverages'], 'invoice.schema': ['team', 'store'] };
  for (const [name, [wrong, meant]] of Object.entries(requiredRenames)) {
    const schema = schemas[name];
    if (schema?.required?.includes(wrong)) schema.required = schema.required.map((n) => (n === wrong ? meant : n));
  }
  return document;
}

function state() {
  if (!cached) {
    const document = loadDocument();
    cached = { document, checked: new CheckedDocument(document, DOCUMENT_ID) };
  }
  return cached;
}

const validatorAt = (pointer: string[]) => state().checked.validatorAt(pointer);

/** Follows a local `$ref` (`#/components/...`) to the object it names. */
function resolve(value: Json): { value: Json; pointer?: string[] } {
  const ref = value.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return { value };
  const pointer = ref.slice(2).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: unknown = state().document;
  for (const segment of pointer) node = (node as Json)[segment];
  return { value: node as Json, pointer };
}

/** Every operation of the document, optionally only those of the given tag groups. */
export function referenceOperations(tags?: readonly string[]): ReferenceOperation[] {
  const paths = state().document.paths as Record<string, Json>;
  const out: ReferenceOperation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const opTags = (operation.tags as string[] | undefined) ?? [];
      if (tags && !opTags.some((t) => tags.includes(t))) continue;
      out.push({ method: method.toUpperCase() as ReferenceOperation['method'], path, operationId: String(operation.operationId ?? ''), tags: opTags, operation });
    }
  }
  return out;
}

/** The document's path template a concrete `/v2.2/...` path belongs to; literal segments win over parameters. */
export function referencePathTemplate(pathOrUrl: string): string | undefined {
  const path = pathOrUrl.replace(/^https?:\/\/[^/]+/, '').split('?')[0].replace(/^\/v2\.2(?=\/)/, '');
  const templates = Object.keys(state().document.paths as Json);
  if (templates.includes(path)) return path;
  const literalCount = (template: string) => template.split('/').filter((s) => s && !s.startsWith('{')).length;
  return templates
    .filter((template) => new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+')}/?$`).test(path))
    .sort((a, b) => literalCount(b) - literalCount(a))[0];
}

/**
 * Every way the response departs from the reference document; empty when it conforms, and
 * `undefined` when the document has no such operation (our own additions, unknown paths).
 * A status the operation does not document is accepted only as an error (>= 400) answered
 * as problem+json, and only where the operation declares no `default` to hold it.
 */
export function referenceResponseProblems(method: string, pathOrUrl: string, response: ResponseLike): string[] | undefined {
  const template = referencePathTemplate(pathOrUrl);
  const verb = method.toUpperCase() === 'HEAD' ? 'get' : method.toLowerCase();
  const operation = template ? ((state().document.paths as Record<string, Json>)[template][verb] as Json | undefined) : undefined;
  if (!template || !operation) return undefined;
  const where = `${method.toUpperCase()} ${template} -> ${response.status}`;
  const responses = operation.responses as Record<string, Json>;
  const statusKey = [String(response.status), `${String(response.status)[0]}XX`, 'default'].find((key) => key in responses);
  if (!statusKey) {
    if (response.status >= 400 && mediaTypeOf(response.headers) === 'application/problem+json') return [];
    return [`${where}: status ${response.status} is not documented by the reference`];
  }
  const { value: documented, pointer: responsePointer } = resolve(responses[statusKey]);
  const base = responsePointer ?? ['paths', template, verb, 'responses', statusKey];
  const headers = (documented.headers as Record<string, Json> | undefined) ?? {};
  return documentedResponseProblems({
    document: state().checked,
    where,
    method,
    response,
    headerNames: Object.keys(headers),
    header: (name) => {
      const { value: doc, pointer } = resolve(headers[name]);
      return { doc: doc as { required?: boolean; schema: { type?: unknown } }, schemaPointer: [...(pointer ?? [...base, 'headers', name]), 'schema'] };
    },
    content: documented.content as Record<string, Json> | undefined,
    bodyPointer: (mediaType) => [...base, 'content', mediaType, 'schema'],
    schemaName: 'the reference schema',
  });
}

/** Throws with every departure from the reference document (no-op for operations it does not have). */
export function expectReferenceResponse(method: string, pathOrUrl: string, response: ResponseLike): void {
  const problems = referenceResponseProblems(method, pathOrUrl, response);
  if (problems && problems.length > 0) {
    throw new Error(`response does not conform to the reference document (${REFERENCE_PACKAGE}):\n  ${problems.join('\n  ')}\nbody: ${response.text.slice(0, 500)}`);
  }
}

/** Every way a webhook body departs from the document's `webhooks.<name>` request schema; empty when it conforms. */
export function referenceWebhookProblems(name: string, body: unknown): string[] {
  const validate = validatorAt(['webhooks', name, 'post', 'requestBody', 'content', 'application/json', 'schema']);
  return validate(body) ? [] : [`webhooks.${name}: ${formatAjvErrors(validate)}`];
}

/** A client generated from the document (openapi-fetch typed by its openapi.d.ts); every answer it receives is checked against the document. */
export function referenceClient(baseUrl: string, secret: string) {
  const api = createClient<paths>({ baseUrl: `${baseUrl}/v2.2`, headers: { authorization: `Bearer ${secret}` } });
  api.use({
    async onResponse({ request, response }) {
      const copy = response.clone();
      expectReferenceResponse(request.method, new URL(request.url).pathname, { status: copy.status, headers: copy.headers, text: await copy.text() });
      return response;
    },
  });
  return api;
}
