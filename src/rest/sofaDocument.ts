// What /v3/rest answers beyond what SOFA works out itself: which nested objects are links,
// and the OpenAPI document made to describe the answers. SOFA's document says OpenAPI 3.0
// and misdescribes or leaves out these:
// - null: a nullable GraphQL field is only "not required", so a null it answers breaks the
//   schema; the document becomes OpenAPI 3.1, where a schema can allow null (JSON Schema 2020-12);
// - custom scalars: without a mapping SOFA documents them as objects (SOFA_SCALARS below);
// - links: below a route's subject a model is answered as `{ id }` (see sofaLinks);
// - cut cycles: SOFA requires every non-null field, but where an object type recurs along a
//   route's selection it leaves the field out (its depth limit); a non-null field stays
//   required where no route leaves it out (sofaLeftOut), such as a page's `edges`, `pageInfo`
//   and `node`;
// - request bodies: SOFA lists what a mutation's body carries (`input`) as required query
//   parameters too, so a client sending the body alone, as the route reads it, breaks them;
// - path parameters: SOFA puts an optional `id` argument in the path (find-return/{id}) and
//   documents it optional, which OpenAPI forbids for a path segment;
// - refusals: SOFA documents only the 200; the door answers failures as problem+json
//   (documentProblems);
// - deprecation: a deprecated field's route (the old name of a renamed mutation, such as
//   upsert-customer) still answers, but SOFA does not say it is deprecated nor what replaces it.
import {
  getNamedType,
  GraphQLObjectType,
  isObjectType,
  Kind,
  OperationTypeNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { buildOperationNodeForField } from '@graphql-tools/utils';
import { PROBLEM_MEDIA_TYPE, PROBLEM_SCHEMA } from './openapi.ts';

/** SOFA's route name of a field: `customerUpsert` -> `customer-upsert` (SOFA uses param-case). */
export function routeName(field: string): string {
  return field
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

/**
 * How /v3/rest answers nested objects. SOFA's "models" are the object types with a route
 * of their own by id (`order(id)` is `GET /v3/rest/order/:id`); below a route's subject
 * SOFA answers a model as `{ id }`, a link to that route, instead of the whole object with
 * everything it reaches. SOFA looks for them itself only where a plain-list query field
 * (`orders: [Order]`) sits beside the by-id one, which a schema of connections never has:
 * it found one model here, and a page of 20 returns answered 450 KB (each order line's
 * location came with its stock levels).
 *
 * `subjects` are where a route answers models whole, as SOFA's `ignore` entries
 * (`Type.field`): the `node` of a root connection's edges, a mutation payload's fields. The
 * object the root field returns is whole already (SOFA's first level); what it nests is not.
 */
export interface SofaLinks {
  /** Model type name -> the query field of its by-id route. */
  models: Map<string, string>;
  subjects: string[];
}

/** A Relay connection: its items under `edges`, its position under `pageInfo`. */
export function isConnection(type: unknown): type is GraphQLObjectType {
  return isObjectType(type) && 'edges' in type.getFields() && 'pageInfo' in type.getFields();
}

export function sofaLinks(of: GraphQLSchema): SofaLinks {
  const models = new Map<string, string>();
  for (const field of Object.values(of.getQueryType()?.getFields() ?? {})) {
    const type = getNamedType(field.type);
    const byId = field.args.length === 1 && field.args[0].name === 'id';
    if (byId && isObjectType(type) && type.getFields().id && !models.has(type.name)) models.set(type.name, field.name);
  }
  const isModel = (type: unknown) => isObjectType(type) && models.has(type.name);
  const subjects = new Set<string>();
  const answerWhole = (type: GraphQLObjectType) => {
    for (const field of Object.values(type.getFields())) if (isModel(getNamedType(field.type))) subjects.add(`${type.name}.${field.name}`);
  };
  for (const [root, payloads] of [
    [of.getQueryType(), false],
    [of.getMutationType(), true],
  ] as const) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      const type = getNamedType(field.type);
      if (!isObjectType(type) || isModel(type)) continue;
      const edge = isConnection(type) ? getNamedType(type.getFields().edges.type) : undefined;
      if (isObjectType(edge)) answerWhole(edge);
      else if (payloads) answerWhole(type);
    }
  }
  return { models, subjects: [...subjects].sort() };
}

/**
 * The fields of each object type that some route's answer leaves out: SOFA selects no field
 * whose type already recurs along the selection more than `depthLimit` times, nor one whose
 * selection that leaves empty. Read from the selections SOFA builds for the routes, with the
 * builder and settings it uses (sofa.ts), so no rule of its depth limit is written twice.
 * A link (`{ id }`) is not an answer of its model's type.
 */
export function sofaLeftOut(of: GraphQLSchema, { models, subjects }: SofaLinks, depthLimit: number): Map<string, Set<string>> {
  const leftOut = new Map<string, Set<string>>();
  const visit = (type: GraphQLNamedType | undefined, selectionSet: SelectionSetNode | undefined) => {
    if (!selectionSet) return;
    if (!isObjectType(type)) {
      // An interface or union: a fragment per object type, where a model is a link.
      for (const selection of selectionSet.selections) {
        if (selection.kind !== Kind.INLINE_FRAGMENT || !selection.typeCondition) continue;
        const member = of.getType(selection.typeCondition.name.value);
        if (member && !models.has(member.name)) visit(member, selection.selectionSet);
      }
      return;
    }
    const fields = type.getFields();
    const selected = new Set<string>();
    for (const selection of selectionSet.selections) {
      if (selection.kind !== Kind.FIELD) continue;
      const name = selection.name.value;
      selected.add(name);
      const fieldType = getNamedType(fields[name].type);
      if (!models.has(fieldType.name) || subjects.includes(`${type.name}.${name}`)) visit(fieldType, selection.selectionSet);
    }
    for (const name of Object.keys(fields)) {
      if (!selected.has(name)) leftOut.set(type.name, (leftOut.get(type.name) ?? new Set()).add(name));
    }
  };
  for (const [root, kind] of [
    [of.getQueryType(), OperationTypeNode.QUERY],
    [of.getMutationType(), OperationTypeNode.MUTATION],
  ] as const) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      const operation = buildOperationNodeForField({ schema: of, kind, field: field.name, models: [...models.keys()], ignore: subjects, circularReferenceDepth: depthLimit });
      const [rootSelection] = operation.selectionSet.selections;
      // The route's subject is answered whole, model or not.
      if (rootSelection.kind === Kind.FIELD) visit(getNamedType(field.type), rootSelection.selectionSet);
    }
  }
  return leftOut;
}

/** What the schema's custom scalars are in JSON (src/schema/scalars.ts). */
export const SOFA_SCALARS: Record<string, object> = {
  DateTime: { type: 'string', format: 'date-time' },
  Date: { type: 'string', format: 'date' },
  Decimal: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' },
  JSON: {},
};

interface SchemaObject {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  items?: SchemaObject;
  required?: string[];
  properties?: Record<string, SchemaObject>;
  [keyword: string]: unknown;
}

interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  [key: string]: unknown;
}

interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | Reference>;
  content?: Record<string, { schema: SchemaObject }>;
}

interface OperationObject {
  parameters?: ParameterObject[];
  requestBody?: { content?: Record<string, { schema?: SchemaObject }> };
  responses?: Record<string, ResponseObject | Reference>;
  description?: string;
  deprecated?: boolean;
  [key: string]: unknown;
}

export interface SofaOpenApiDocument {
  openapi: string;
  paths?: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, SchemaObject>; responses?: Record<string, ResponseObject>; headers?: Record<string, HeaderObject> };
  [key: string]: unknown;
}

const SCHEMA_REF = '#/components/schemas/';

/** `schema`, or null: a 3.1 schema allows null by naming it. */
function orNull(schema: SchemaObject): SchemaObject {
  if (schema.$ref) {
    const { $ref, description, ...rest } = schema;
    return { anyOf: [{ $ref, ...rest }, { type: 'null' }], ...(description === undefined ? {} : { description }) };
  }
  if (schema.type === undefined) return schema;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return {
    ...schema,
    type: types.includes('null') ? types : [...types, 'null'],
    ...(schema.enum && !schema.enum.includes(null) ? { enum: [...schema.enum, null] } : {}),
  };
}

/** Where SOFA serves its routes and how deep it selects (its `basePath` and `depthLimit`). */
export interface SofaRoutes {
  basePath: string;
  depthLimit: number;
}

/** SOFA's document of the routes over `of`, describing what they answer. */
export function describeSofaAnswers(document: SofaOpenApiDocument, of: GraphQLSchema, links: SofaLinks, { basePath, depthLimit }: SofaRoutes): SofaOpenApiDocument {
  const { models, subjects } = links;
  const schemas = document.components?.schemas ?? {};
  const leftOut = sofaLeftOut(of, links, depthLimit);
  const linked = new Set<string>();
  const link = (property: SchemaObject) => {
    const target = property.items ?? property;
    const model = target.$ref?.startsWith(SCHEMA_REF) ? target.$ref.slice(SCHEMA_REF.length) : undefined;
    if (model === undefined || !models.has(model)) return;
    target.$ref = `${SCHEMA_REF}${model}Link`;
    linked.add(model);
  };
  for (const [typeName, schema] of Object.entries(schemas)) {
    if (!schema.properties) continue;
    // SOFA requires the non-null fields; the ones some route leaves out are not required.
    const required = new Set(schema.required ?? []);
    for (const [name, property] of Object.entries(schema.properties)) {
      if (leftOut.get(typeName)?.has(name)) required.delete(name);
      if (!subjects.includes(`${typeName}.${name}`)) link(property);
      if (!required.has(name)) schema.properties[name] = orNull(property);
    }
    if (schema.required) schema.required = schema.required.filter((name) => required.has(name));
  }
  for (const model of linked) {
    schemas[`${model}Link`] = {
      type: 'object',
      description: `A ${model}: GET ${basePath}/${routeName(models.get(model)!)}/{id} answers it whole`,
      required: ['id'],
      properties: { id: { type: 'string' } },
    };
  }
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const parameter of operation.parameters ?? []) if (parameter.in === 'path') parameter.required = true;
      const body = operation.requestBody?.content?.['application/json']?.schema?.properties ?? {};
      operation.parameters = operation.parameters?.filter((parameter) => parameter.in !== 'query' || !(parameter.name in body));
    }
  }
  documentProblems(document);
  markDeprecated(document, of, basePath);
  return { ...document, openapi: '3.1.0' };
}

type HeaderObject = { description: string; schema: object; required?: boolean };
type Reference = { $ref: string };

const PROBLEM_BODY = { [PROBLEM_MEDIA_TYPE]: { schema: { $ref: `${SCHEMA_REF}Problem` } } };
const RESPONSE_REF = '#/components/responses/';
const HEADER_REF = '#/components/headers/';

const retryAfter = (description: string): HeaderObject => ({ description, schema: { type: 'integer', minimum: 1 }, required: true });

/**
 * The failures the door in front of SOFA (sofa.ts) and the server around it (server.ts,
 * idempotentRequests.ts) answer, each an application/problem+json body: the statuses of
 * the error codes (problem.ts REST_STATUS) and the door's own refusals. Shared by the
 * routes as `components.responses`; `writes` only on mutations (POST). The 429 is each
 * route's own, for documentRateLimits to give its headers.
 */
const PROBLEMS: { status: string; name: string; writes?: true; answer: ResponseObject }[] = [
  {
    status: '400',
    name: 'BadInput',
    answer: {
      description:
        "Bad input: a parameter or body member that does not parse or breaks the operation's rules (BAD_USER_INPUT, each invalid input in `errors`), a body that is not JSON, a malformed Idempotency-Key, text holding U+0000 or a lone UTF-16 surrogate, or JSON nested deeper than 32 levels",
    },
  },
  { status: '401', name: 'Unauthorized', answer: { description: 'Missing, malformed, unknown or revoked API secret' } },
  { status: '403', name: 'Forbidden', answer: { description: 'The API client lacks a scope this operation needs (FORBIDDEN)' } },
  {
    status: '404',
    name: 'NotFound',
    answer: { description: "Nothing in this store has the id or key the request names (an unknown one, or another store's): a read's subject, or what a write's input refers to (NOT_FOUND)" },
  },
  {
    status: '409',
    name: 'Conflict',
    writes: true,
    answer: {
      description: 'The write conflicts with what is stored (CONFLICT), or a request with the same Idempotency-Key is still being processed: retry after Retry-After seconds',
      headers: { 'Retry-After': { ...retryAfter('Seconds to wait before sending the request again (a request with the same Idempotency-Key still running)'), required: false } },
    },
  },
  { status: '413', name: 'PayloadTooLarge', writes: true, answer: { description: 'The body exceeds 1 MiB' } },
  { status: '422', name: 'IdempotencyKeyReused', writes: true, answer: { description: 'The Idempotency-Key was already used by this API client with a different request' } },
  { status: '500', name: 'InternalError', answer: { description: 'Internal error' } },
  { status: '503', name: 'Unavailable', answer: { description: 'The database is unavailable: retry after Retry-After seconds', headers: { 'Retry-After': retryAfter('Seconds to wait before sending the request again') } } },
];

/** Each route's failures (PROBLEMS), with the shared responses they refer to in `components.responses`. */
function documentProblems(document: SofaOpenApiDocument): void {
  const components = (document.components ??= {});
  components.schemas = { ...components.schemas, Problem: PROBLEM_SCHEMA as SchemaObject };
  components.responses = { ...components.responses };
  for (const { name, answer } of PROBLEMS) components.responses[name] = { ...answer, content: PROBLEM_BODY };
  for (const operations of Object.values(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const responses: Record<string, ResponseObject | Reference> = { ...operation.responses };
      for (const { status, name, writes } of PROBLEMS) if (!writes || method === 'post') responses[status] = { $ref: `${RESPONSE_REF}${name}` };
      responses['429'] = { description: 'Rate limit of the API client exceeded (one budget with /v2.2): retry after Retry-After seconds', content: PROBLEM_BODY };
      operation.responses = responses;
    }
  }
}

const isReference = (response: ResponseObject | Reference): response is Reference => '$ref' in response;

/**
 * Documents the rate limit the door in front of SOFA applies to every route: the rate-limit
 * headers (`rateHeaders`, shared as `components.headers`) on each answer past authentication,
 * and `Retry-After` on the 429.
 */
export function documentRateLimits(document: SofaOpenApiDocument, rateHeaders: Record<string, HeaderObject>, retryAfter: HeaderObject): SofaOpenApiDocument {
  const components = (document.components ??= {});
  components.headers = { ...components.headers, ...rateHeaders, 'RateLimit-Retry-After': retryAfter };
  const refs = Object.fromEntries(Object.keys(rateHeaders).map((name) => [name, { $ref: `${HEADER_REF}${name}` }]));
  const limited = (response: ResponseObject) => {
    response.headers = { ...refs, ...response.headers };
  };
  for (const [name, response] of Object.entries(components.responses ?? {})) if (name !== 'Unauthorized') limited(response);
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const response of Object.values(operation.responses ?? {})) if (!isReference(response)) limited(response);
      const tooMany = operation.responses?.['429'];
      if (tooMany && !isReference(tooMany)) tooMany.headers = { 'Retry-After': { $ref: `${HEADER_REF}RateLimit-Retry-After` }, ...tooMany.headers };
    }
  }
  return document;
}

/** Every query route (GET) takes If-None-Match: its 200 carries the validator headers, and an unchanged answer is a 304 (conditionalRequests.ts). */
export function documentValidators(
  document: SofaOpenApiDocument,
  validator: { headers: Record<string, HeaderObject>; parameter: ParameterObject; notModified: string },
): SofaOpenApiDocument {
  for (const operations of Object.values(document.paths ?? {})) {
    const operation = operations.get;
    if (!operation) continue;
    operation.parameters = [...(operation.parameters ?? []), validator.parameter];
    const responses = operation.responses ?? {};
    const answered = responses['200'];
    if (answered && !isReference(answered)) answered.headers = { ...answered.headers, ...validator.headers };
    responses['304'] = { description: validator.notModified, headers: validator.headers };
    operation.responses = responses;
  }
  return document;
}

/** Every mutation route takes Idempotency-Key (idempotentRequests.ts); its 409 and 422 are among the route's problems. */
export function documentIdempotencyKeys(document: SofaOpenApiDocument, rules: string): SofaOpenApiDocument {
  for (const operations of Object.values(document.paths ?? {})) {
    const operation = operations.post;
    if (!operation) continue;
    operation.parameters = [...(operation.parameters ?? []), { name: 'Idempotency-Key', in: 'header', required: false, description: rules, schema: { type: 'string', minLength: 1, maxLength: 255 } }];
  }
  return document;
}

/**
 * Marks the routes of deprecated root fields `deprecated`, their description naming the
 * replacement: a reason `Use orderCreate` becomes `Deprecated: use POST <basePath>/order-create`.
 */
function markDeprecated(document: SofaOpenApiDocument, of: GraphQLSchema, basePath: string): void {
  for (const [root, method] of [
    [of.getQueryType(), 'get'],
    [of.getMutationType(), 'post'],
  ] as const) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      if (!field.deprecationReason) continue;
      const replacement = /^Use (\w+)$/.exec(field.deprecationReason)?.[1];
      const notice = replacement
        ? `Deprecated: use ${method.toUpperCase()} ${basePath}/${routeName(replacement)} (\`${replacement}\`), which takes and answers the same.`
        : `Deprecated: ${field.deprecationReason}.`;
      const route = `/${routeName(field.name)}`;
      for (const [path, operations] of Object.entries(document.paths ?? {})) {
        const operation = operations[method];
        if ((path !== route && !path.startsWith(`${route}/`)) || !operation) continue;
        operation.deprecated = true;
        operation.description = operation.description ? `${notice} ${operation.description}` : notice;
      }
    }
  }
}
