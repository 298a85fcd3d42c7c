// What /v3/rest answers beyond what SOFA works out itself: which nested objects are links,
// and the OpenAPI document made to describe the answers. SOFA's document says OpenAPI 3.0
// and misdescribes five things:
// - null: a nullable GraphQL field is only "not required", so a null it answers breaks the
//   schema; the document becomes OpenAPI 3.1, where a schema can allow null (JSON Schema 2020-12);
// - custom scalars: without a mapping SOFA documents them as objects (SOFA_SCALARS below);
// - links: below a route's subject a model is answered as `{ id }` (see sofaLinks);
// - cut cycles: where an object type recurs along a route's selection SOFA leaves the field
//   out (its depth limit), so no object-valued property is required;
// - path parameters: SOFA puts an optional `id` argument in the path (find-return/{id}) and
//   documents it optional, which OpenAPI forbids for a path segment;
// - deprecation: a deprecated field's route (the old name of a renamed mutation, such as
//   upsert-customer) still answers, but SOFA does not say it is deprecated nor what replaces it.
import { getNamedType, GraphQLObjectType, isObjectType, type GraphQLSchema } from 'graphql';

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
  in: string;
  required?: boolean;
  [key: string]: unknown;
}

interface OperationObject {
  parameters?: ParameterObject[];
  description?: string;
  deprecated?: boolean;
  [key: string]: unknown;
}

export interface SofaOpenApiDocument {
  openapi: string;
  paths?: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, SchemaObject> };
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

/** SOFA's document of the routes at `basePath` over `of`, describing what they answer. */
export function describeSofaAnswers(document: SofaOpenApiDocument, of: GraphQLSchema, { models, subjects }: SofaLinks, basePath: string): SofaOpenApiDocument {
  const schemas = document.components?.schemas ?? {};
  const linked = new Set<string>();
  const link = (property: SchemaObject) => {
    const target = property.items ?? property;
    const model = target.$ref?.startsWith(SCHEMA_REF) ? target.$ref.slice(SCHEMA_REF.length) : undefined;
    if (model === undefined || !models.has(model)) return;
    target.$ref = `${SCHEMA_REF}${model}Link`;
    linked.add(model);
  };
  const isObject = (property: SchemaObject) => {
    const ref = (property.items ?? property).$ref;
    return ref?.startsWith(SCHEMA_REF) === true && schemas[ref.slice(SCHEMA_REF.length)]?.type === 'object';
  };
  for (const [typeName, schema] of Object.entries(schemas)) {
    if (!schema.properties) continue;
    // Only answers are cut at the depth limit; an input object's required fields stay required.
    const answered = isObjectType(of.getType(typeName));
    const required = new Set(schema.required ?? []);
    for (const [name, property] of Object.entries(schema.properties)) {
      if (answered && isObject(property)) required.delete(name);
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
    }
  }
  markDeprecated(document, of, basePath);
  return { ...document, openapi: '3.1.0' };
}

type HeaderObject = { description: string; schema: object; required?: boolean };

/**
 * Documents what the door in front of SOFA adds to every route: the rate-limit headers on
 * each answer (`rateHeaders`), and the 429 problem with `Retry-After` once the budget is spent.
 */
export function documentRateLimits(document: SofaOpenApiDocument, rateHeaders: Record<string, HeaderObject>, retryAfter: HeaderObject): SofaOpenApiDocument {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const responses = (operation.responses ?? {}) as Record<string, { description: string; headers?: Record<string, HeaderObject> }>;
      for (const response of Object.values(responses)) response.headers = { ...rateHeaders, ...response.headers };
      responses['429'] = {
        description: "Rate limit of the API client exceeded (one budget with /v2.2); an application/problem+json body",
        headers: { 'Retry-After': retryAfter, ...rateHeaders },
      };
      operation.responses = responses;
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
    const responses = (operation.responses ?? {}) as Record<string, { description: string; headers?: Record<string, HeaderObject> }>;
    if (responses['200']) responses['200'].headers = { ...responses['200'].headers, ...validator.headers };
    responses['304'] = { description: validator.notModified, headers: validator.headers };
    operation.responses = responses;
  }
  return document;
}

/** Every mutation route takes Idempotency-Key (idempotentRequests.ts), with the 409 and 422 answers it adds. */
export function documentIdempotencyKeys(document: SofaOpenApiDocument, rules: string): SofaOpenApiDocument {
  for (const operations of Object.values(document.paths ?? {})) {
    const operation = operations.post;
    if (!operation) continue;
    operation.parameters = [...(operation.parameters ?? []), { name: 'Idempotency-Key', in: 'header', required: false, description: rules, schema: { type: 'string', minLength: 1, maxLength: 255 } }];
    const responses = (operation.responses ?? {}) as Record<string, { description: string }>;
    responses['409'] ??= { description: 'A request with the same Idempotency-Key is still being processed: retry after Retry-After seconds; an application/problem+json body' };
    responses['422'] ??= { description: 'The Idempotency-Key was already used by this API client with a different request; an application/problem+json body' };
    operation.responses = responses;
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
