// A schema-driven fuzzer's request generator (tracker issue 24). From the documents the
// service serves (/v2.2/openapi.json, /v3/rest/openapi.json, /v3/schema.graphql) and a short
// hand-written list of the warehouse compat routes, it builds for every operation one valid
// request (path ids of fixtures of the right kind, required query values, a JSON body with
// every member the schema names) and then variants of it: bad values spliced into every body
// member at every depth, every path id, query value and header, and bodies and content types
// a JSON route must refuse. Everything is drawn from a seeded generator, so a run is repeatable;
// when the full cross product exceeds the budget, each operation gets a share of it and the
// (member, bad value) pairs are taken round-robin so every member and every bad value appear.
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { ID_PREFIXES } from '../../src/domain/ids.ts';
import { unknownId, type Fixtures, type FixtureKind } from './fuzzFixtures.ts';

export type Door = 'v2.2' | 'v3/rest' | 'v3/graphql' | 'compat';

export interface FuzzRequest {
  door: Door;
  /** The operation as documented: `POST /v2.2/stores/{storeId}/webhooks`, `mutation createOrder`. */
  operation: string;
  /** What differs from the operation's valid request: `valid`, `body webhook.topic = U+0000`, ... */
  variant: string;
  method: string;
  /** Path and query, percent-encoded as sent. */
  url: string;
  headers: Record<string, string>;
  /** Raw body text (JSON unless a variant says otherwise). */
  body?: string;
  /** May change rows: refused ones are checked to have changed none. */
  write: boolean;
  /** Deletes or ends what other requests name (a webhook, a return's open state): these run last. */
  destructive: boolean;
}

// ---------------------------------------------------------------------------------------------
// Determinism

/** mulberry32: a small seeded generator, so the same seed gives the same requests. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Bad values. The first of each list is U+0000, the class the issue found most often: it is the
// first value every member gets.

export interface BadValue {
  name: string;
  /** JSON text for bodies; percent-encoded text for paths and queries; the header value for headers. */
  text: string;
}

/** Built with loops and String.repeat: the point is a depth the service must refuse, not one this file recurses into. */
function deepArray(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

function wideObject(keys: number): string {
  const members: string[] = [];
  for (let i = 0; i < keys; i++) members.push(`"k${i}":${i}`);
  return `{${members.join(',')}}`;
}

const BAD_JSON: readonly BadValue[] = [
  { name: 'U+0000', text: JSON.stringify('a\u0000b') },
  { name: 'lone surrogate', text: '"\\ud800"' },
  { name: '100k string', text: JSON.stringify('x'.repeat(100_000)) },
  { name: 'empty string', text: '""' },
  { name: 'number', text: '1' },
  { name: 'boolean', text: 'true' },
  { name: 'object', text: '{}' },
  { name: 'array', text: '[]' },
  { name: 'null', text: 'null' },
  { name: '1e308', text: '1e308' },
  { name: '-1', text: '-1' },
  { name: '2^63', text: '9223372036854775808' },
  { name: '5000-deep array', text: deepArray(5_000) },
  { name: '10000-key object', text: wideObject(10_000) },
];

// Node refuses a request head over 16 KiB (431) before any door sees it, so "long" in a URL is
// 8,000 characters and the 10,000-key object is left to bodies.
const LONG_IN_URL = 'x'.repeat(8_000);

const BAD_QUERY: readonly BadValue[] = [
  { name: 'U+0000', text: 'a%00b' },
  { name: 'lone surrogate', text: '%ED%A0%80' },
  { name: 'long', text: LONG_IN_URL },
  { name: 'empty', text: '' },
  { name: 'number', text: '1' },
  { name: 'boolean', text: 'true' },
  { name: 'object', text: '%7B%7D' },
  { name: 'array', text: '%5B%5D' },
  { name: 'null', text: 'null' },
  { name: '1e308', text: '1e308' },
  { name: '-1', text: '-1' },
  { name: '2^63', text: '9223372036854775808' },
  { name: '5000-deep array', text: deepArray(5_000) },
  { name: 'invalid UTF-8', text: '%FF%FE' },
];

const BAD_PATH: readonly BadValue[] = [
  { name: 'U+0000', text: '%00' },
  { name: 'lone surrogate', text: '%ED%A0%80' },
  { name: 'long', text: LONG_IN_URL },
  { name: 'dot-dot slash', text: '..%2F' },
];

// fetch refuses control characters and non-Latin-1 text in header values.
const BAD_HEADER: readonly BadValue[] = [
  { name: 'long', text: LONG_IN_URL },
  { name: 'empty', text: '' },
  { name: 'number', text: '0' },
  { name: '-1', text: '-1' },
  { name: '1e308', text: '1e308' },
  { name: '2^63', text: '9223372036854775808' },
  { name: 'object', text: '{}' },
];

/** The bad strings of GraphQL arguments, sent as variables and as literals in the document. */
const BAD_STRINGS: readonly { name: string; value: string }[] = [
  { name: 'U+0000', value: 'a\u0000' },
  { name: 'lone surrogate', value: '\ud800' },
  { name: '100k string', value: 'x'.repeat(100_000) },
  { name: 'empty string', value: '' },
];

// ---------------------------------------------------------------------------------------------
// Which fixture a name refers to

const FIXTURE_KINDS = [...Object.keys(ID_PREFIXES), 'return', 'returnTag', 'productFamilyImage'] as FixtureKind[];

/** Names the service uses for a kind other than the kind's own name. */
const KIND_ALIASES: Record<string, FixtureKind> = {
  webhook: 'webhookSubscription',
  subscription: 'webhookSubscription',
  inventoryItem: 'product',
  node: 'product',
  lineItem: 'orderLineItem',
  delivery: 'webhookDelivery',
};

const camel = (text: string) => text.replace(/[-_](\w)/g, (_m, c: string) => c.toUpperCase());

/**
 * The fixture kind a parameter or member names: `productId` / `product_id` a product; `id` (and
 * a return tag's `name`) what its context names, the path segment before it or the GraphQL
 * field (`inventory-levels/{id}`, `productImageUpdate(id)`), the longest kind found there.
 */
export function kindOf(name: string, context = ''): FixtureKind | undefined {
  const known = (word: string) => (FIXTURE_KINDS as string[]).includes(word) ? (word as FixtureKind) : KIND_ALIASES[word];
  if (name === 'id' || name === 'name') {
    const where = camel(context).toLowerCase();
    const candidates = [...FIXTURE_KINDS, ...Object.keys(KIND_ALIASES)].filter((word) => where.includes(word.toLowerCase()));
    const longest = candidates.sort((a, b) => b.length - a.length)[0];
    const kind = longest === undefined ? undefined : known(longest);
    return name === 'name' ? (kind === 'returnTag' ? kind : undefined) : kind;
  }
  const stem = camel(name).replace(/Ids?$/, '');
  return stem === camel(name) ? undefined : known(stem);
}

// A public address, as webhook and image URLs must be; nothing is fetched from it.
const PUBLIC_URL = 'https://93.184.215.14/fuzz';
const INSTANT = '2026-01-05T10:00:00Z';

/**
 * Values that make a request valid where the schema alone cannot tell what is: the merchant's
 * references to the fixtures, and formats the documents leave as plain strings. Looked up as
 * `parent.name`, then `name`, then by the name's ending.
 */
function namedValue(f: Fixtures, name: string, parent: string): unknown {
  const exact: Record<string, unknown> = {
    externalOrderId: f.orderExternalId,
    externalId: f.orderExternalId,
    lineItemId: f.lineExternalId,
    // An order's lines as a fulfillment names them; for a new order any id will do.
    'lineItems.id': f.lineExternalId,
    // Return items, as removeReturnItems and the v2.2 process route name them.
    lineItemIds: [f.ids.returnItem],
    _id: f.ids.returnItem,
    orderName: f.orderName,
    number: f.returnNumber,
    email: f.customerEmail,
    newName: 'fuzz-tag',
    pillTheme: 'NORMAL',
    topics: ['return.created'],
    tags: ['fuzz-tag'],
    ids: [f.ids.product],
    from: '2026-01-01T00:00:00Z',
    to: '2026-03-01T00:00:00Z',
    status: 'in_transit',
    ianaTimeZoneName: 'America/New_York',
  };
  const key = [`${parent}.${name}`, name].find((k) => k in exact);
  if (key) return exact[key];
  const endings: [RegExp, unknown][] = [
    [/currency(Code)?$/i, 'USD'],
    [/countryCode$/i, 'US'],
    [/phone(Number)?$/i, '+14155550100'],
    [/url$/i, PUBLIC_URL],
    [/discounts?$/i, '0.50'],
    [/^(price|cost|unitCost|amount)$/i, '25.00'],
    [/(At|Date|Timestamp|datetime)$/, INSTANT],
  ];
  return endings.find(([pattern]) => pattern.test(name))?.[1];
}

/** Top-level names the fixtures give a value: an optional argument or parameter with one goes into the valid request. */
function isNamed(name: string, f: Fixtures): boolean {
  return namedValue(f, name, '') !== undefined;
}

// ---------------------------------------------------------------------------------------------
// Valid values from JSON Schema (OpenAPI 3.1), and from GraphQL input types turned into it

type Schema = Record<string, unknown>;

interface Generator {
  fixtures: Fixtures;
  /** Resolves a `$ref` of the document the schema is from. */
  deref(schema: Schema): Schema;
}

const isScalarValue = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);

const typeOfValue = (value: unknown) =>
  Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value;

function schemaTypes(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties || schema.additionalProperties) return ['object'];
  if (schema.items) return ['array'];
  return ['string'];
}

function stringFor(schema: Schema, g: Generator): string {
  const format = schema.format as string | undefined;
  if (format === 'date-time') return INSTANT;
  if (format === 'date') return INSTANT.slice(0, 10);
  if (format === 'email') return g.fixtures.customerEmail;
  if (format === 'uri' || format === 'uri-reference') return PUBLIC_URL;
  if (typeof schema.pattern === 'string') {
    // Of the values this file knows, the first the pattern accepts: a fixture id for `^prd_`, ...
    const candidates = [...Object.values(g.fixtures.ids), '1.00', 'USD', 'US', INSTANT.slice(0, 10), PUBLIC_URL, 'fuzz'];
    const match = candidates.find((candidate) => satisfies(schema, candidate));
    if (match) return match;
  }
  const min = (schema.minLength as number | undefined) ?? 0;
  const text = 'fuzz'.padEnd(min, 'z');
  return schema.maxLength === undefined ? text : text.slice(0, Math.max(min, schema.maxLength as number));
}

function numberFor(schema: Schema): number {
  const min = (schema.minimum as number | undefined) ?? ((schema.exclusiveMinimum as number | undefined) ?? 0) + 1;
  const max = (schema.maximum as number | undefined) ?? Number.MAX_SAFE_INTEGER;
  return Math.min(Math.max(1, min), max);
}

/** Whether a value known by name or kind fits the schema: its type, and for strings its pattern and date formats. */
function satisfies(schema: Schema, value: unknown): boolean {
  if (value === undefined) return false;
  const types = schemaTypes(schema);
  const type = typeOfValue(value);
  if (!types.includes(type) && !(type === 'integer' && types.includes('number'))) return false;
  if (typeof value !== 'string') return true;
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) return false;
  if (schema.format === 'date') return /^\d{4}-\d{2}-\d{2}$/.test(value);
  return schema.format !== 'date-time' || /^\d{4}-\d{2}-\d{2}T/.test(value);
}

/** Past this depth only required members are filled; past twice that, an object is `{}` and a list `[]`. */
const OPTIONAL_DEPTH = 6;

/** Optional members a rule says not to send together (CreateReturnInput names its order one way or the other). */
const EXCLUSIVE: readonly [string, string][] = [['orderId', 'externalOrderId']];

/**
 * A value the schema accepts. `names` is where it sits (`['lineItems', 'id']`): const and enum
 * first, then what the fixtures say the name is (a value by name, an id of its kind), the
 * schema's default and scalar example, and a value of its type and format; objects get every
 * member (optional ones to OPTIONAL_DEPTH), arrays one item. Alternatives (oneOf, anyOf alone)
 * take the schema's first example, else the first branch that is not null.
 */
function generate(schemaIn: Schema, g: Generator, names: string[] = [], depth = 0): unknown {
  const schema = g.deref(schemaIn);
  const name = names.at(-1) ?? '';
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum.find((v) => v !== null) ?? null;
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...(schema.allOf as Schema[]).map((part) => generate(part, g, names, depth)));
  }
  const branches = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (branches && !schema.type && !schema.properties) {
    if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
    return generate(branches.find((b) => g.deref(b).type !== 'null') ?? branches[0], g, names, depth);
  }
  const kind = kindOf(name);
  const example = schema.example ?? (Array.isArray(schema.examples) ? schema.examples[0] : undefined);
  const known = [namedValue(g.fixtures, name, names.at(-2) ?? ''), kind && g.fixtures.ids[kind], schema.default, isScalarValue(example) ? example : undefined];
  const fit = known.find((value) => satisfies(schema, value));
  if (fit !== undefined) return fit;

  const type = schemaTypes(schema).find((t) => t !== 'null') ?? 'null';
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required ?? []) as string[]);
      const out: Record<string, unknown> = {};
      if (depth > 2 * OPTIONAL_DEPTH) return out;
      for (const [key, property] of Object.entries(properties)) {
        if (required.has(key) || depth < OPTIONAL_DEPTH) out[key] = generate(property, g, [...names, key], depth + 1);
      }
      for (const [first, second] of EXCLUSIVE) if (first in out && second in out && !required.has(second)) delete out[second];
      return out;
    }
    case 'array': {
      if (depth > 2 * OPTIONAL_DEPTH) return [];
      const count = Math.max(1, (schema.minItems as number | undefined) ?? 1);
      return Array.from({ length: count }, () => generate((schema.items ?? {}) as Schema, g, names, depth + 1));
    }
    case 'integer':
    case 'number':
      return numberFor(schema);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return stringFor(schema, g);
  }
}

const GRAPHQL_SCALARS: Record<string, Schema> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  Date: { type: 'string', format: 'date' },
  Decimal: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' },
  JSON: { type: 'object' },
};

/** A GraphQL input type as JSON Schema, so one generator serves both. Recursive inputs stop at OPTIONAL_DEPTH. */
function graphqlInputSchema(type: GraphQLInputType, depth = 0): Schema {
  if (isNonNullType(type)) return graphqlInputSchema(type.ofType, depth);
  if (isListType(type)) return { type: 'array', items: graphqlInputSchema(type.ofType, depth) };
  if (isEnumType(type)) return { enum: type.getValues().map((v) => v.name) };
  if (isInputObjectType(type)) {
    if (depth > OPTIONAL_DEPTH) return { type: 'object' };
    const fields = Object.values(type.getFields());
    return {
      type: 'object',
      properties: Object.fromEntries(fields.map((f) => [f.name, graphqlInputSchema(f.type, depth + 1)])),
      required: fields.filter((f) => isNonNullType(f.type) && f.defaultValue === undefined).map((f) => f.name),
    };
  }
  return GRAPHQL_SCALARS[type.name] ?? { type: 'string' };
}

// ---------------------------------------------------------------------------------------------
// Members of a JSON value, and bad values spliced into them

type MemberPath = (string | number)[];

/** Every object member and array item, at every depth. */
function memberPaths(value: unknown, prefix: MemberPath = []): MemberPath[] {
  const children: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item, index) => [index, item])
    : value !== null && typeof value === 'object'
      ? Object.entries(value)
      : [];
  return children.flatMap(([key, child]) => [[...prefix, key], ...memberPaths(child, [...prefix, key])]);
}

const describePath = (path: MemberPath) => path.map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? key : `.${key}`)).join('');

function withMember(value: unknown, path: MemberPath, member: unknown): unknown {
  if (path.length === 0) return member;
  const [key, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  copy[key] = withMember(copy[key], rest, member);
  return copy;
}

const PLACEHOLDER = 'FUZZ-PLACEHOLDER-5e1f0c';

/** The JSON text of `value` with raw JSON text at `path` (text JSON.stringify could not produce: 1e308, 2^63, depth). */
function spliced(value: unknown, path: MemberPath, text: string): string {
  return JSON.stringify(withMember(value, path, PLACEHOLDER)).replace(`"${PLACEHOLDER}"`, () => text);
}

// ---------------------------------------------------------------------------------------------
// Operations: what a door's request is made of, whatever document it came from

interface Param {
  name: string;
  /** The value the valid request carries; absent: the parameter only appears in its variants. */
  value?: unknown;
}

export interface OperationSpec {
  door: Exclude<Door, 'v3/graphql'>;
  method: string;
  /** Door prefix + documented template: `/v2.2/stores/{storeId}/webhooks`. */
  template: string;
  path: { name: string; value: string; bad: BadValue[] }[];
  query: Param[];
  headers: Param[];
  /** The valid body, and top-level members it may gain (optional arguments) to carry a bad value. */
  body?: { value: unknown; optional: string[] };
  write: boolean;
}

/** A value in a query string or header, as the door reads it: objects as JSON, scalars as text. */
const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function queryString(params: Param[], raw: Record<string, string>): string {
  const parts: string[] = [];
  for (const { name, value } of params) {
    if (name in raw) parts.push(`${encodeURIComponent(name)}=${raw[name]}`);
    else if (Array.isArray(value)) for (const item of value) parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(asText(item))}`);
    else if (value !== undefined) parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(asText(value))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

interface Change {
  variant: string;
  path?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** Body text, or null for no body. */
  body?: string | null;
  contentType?: string | null;
}

const DESTRUCTIVE = /delete|revoke|remove|cancel|reject|close/i;

function buildRequest(spec: OperationSpec, change: Change): FuzzRequest {
  const path = spec.template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const given = change.path?.[name];
    return given ?? encodeURIComponent(spec.path.find((p) => p.name === name)!.value);
  });
  const headers: Record<string, string> = {};
  for (const header of spec.headers) {
    const value = change.headers?.[header.name] ?? (header.value === undefined ? undefined : asText(header.value));
    if (value !== undefined) headers[header.name] = value;
  }
  const body = change.body === null ? undefined : (change.body ?? (spec.body ? JSON.stringify(spec.body.value) : undefined));
  const contentType = change.contentType === null ? undefined : (change.contentType ?? 'application/json');
  if (body !== undefined && contentType !== undefined) headers['content-type'] = contentType;
  const operation = `${spec.method} ${spec.template}`;
  return {
    door: spec.door,
    operation,
    variant: change.variant,
    method: spec.method,
    url: path + queryString(spec.query, change.query ?? {}),
    headers,
    body,
    write: spec.write,
    destructive: spec.write && DESTRUCTIVE.test(operation),
  };
}

/** Requests every JSON-body route must refuse whatever its members are. */
const BODY_SHAPES: readonly Change[] = [
  { variant: 'body absent', body: null },
  { variant: 'body null', body: 'null' },
  { variant: 'body []', body: '[]' },
  { variant: 'body not JSON', body: '{"fuzz": ' },
  { variant: 'body a JSON string', body: '"fuzz"' },
  { variant: 'content-type text/plain', contentType: 'text/plain' },
  { variant: 'content-type form', contentType: 'application/x-www-form-urlencoded' },
  { variant: 'content-type missing', contentType: null },
];

/** One member (path id, query value, header, body member): its requests, one per bad value, built when sampled. */
export interface Slot {
  values: (() => FuzzRequest)[];
}

/** An operation's valid request and body-shape variants (always sent), and its slots (sampled). */
export interface Planned {
  always: FuzzRequest[];
  slots: Slot[];
}

/** U+0000 first (the class the issue found most often), the other values in an order of this slot's own. */
const firstThenShuffled = <T>(values: readonly T[], random: () => number) => [values[0], ...shuffled(values.slice(1), random)];

export function planOperation(spec: OperationSpec, random: () => number): Planned {
  const build = (change: Change) => () => buildRequest(spec, change);
  const slot = (bad: readonly BadValue[], change: (bad: BadValue) => Change): Slot => ({ values: firstThenShuffled(bad, random).map((b) => build(change(b))) });
  const slots: Slot[] = [
    ...spec.path.map((p) => slot(p.bad, (bad) => ({ variant: `path ${p.name} = ${bad.name}`, path: { [p.name]: bad.text } }))),
    ...spec.query.map((q) => slot(BAD_QUERY, (bad) => ({ variant: `query ${q.name} = ${bad.name}`, query: { [q.name]: bad.text } }))),
    ...spec.headers.map((h) => slot(BAD_HEADER, (bad) => ({ variant: `header ${h.name} = ${bad.name}`, headers: { [h.name]: bad.text } }))),
  ];
  if (spec.body) {
    const { value, optional } = spec.body;
    for (const path of [...memberPaths(value), ...optional.map((name) => [name])]) {
      // Spliced only when sampled: a 100k string or 10,000 keys in every member of every body would not fit in memory.
      slots.push({
        values: firstThenShuffled(BAD_JSON, random).map((bad) => () => buildRequest(spec, { variant: `body ${describePath(path)} = ${bad.name}`, body: spliced(value, path, bad.text) })),
      });
    }
  }
  const always = [buildRequest(spec, { variant: 'valid' }), ...(spec.body ? BODY_SHAPES.map((change) => buildRequest(spec, change)) : [])];
  return { always, slots: shuffled(slots, random) };
}

/**
 * Round-robin over slots: every slot's first value (U+0000) for up to half the quota, then each
 * slot's next value from where the round before stopped, so in a body with more members than
 * quota the members left without U+0000 get the other bad values (each slot's own shuffle of them).
 */
function roundRobin(slots: Slot[], quota: number): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  let offset = 0;
  for (let round = 0; out.length < quota; round++) {
    const before = out.length;
    const limit = round === 0 ? Math.ceil(quota / 2) : quota;
    let k = 0;
    for (; k < slots.length && out.length - before < limit && out.length < quota; k++) {
      const slot = slots[(offset + k) % slots.length];
      if (round < slot.values.length) out.push(slot.values[round]());
    }
    if (out.length === before) break;
    offset = (offset + k) % slots.length;
  }
  return out;
}

/**
 * Water-filling: operations with few pairs take them all, the rest share what is left weighted
 * by the square root of their size (a 150-member body gets more than a one-parameter GET, not 150 times more).
 */
function allocate(sizes: number[], budget: number): number[] {
  const order = sizes.map((size, index) => ({ size, index, weight: Math.sqrt(size) })).sort((a, b) => a.size - b.size);
  let left = budget;
  let weight = order.reduce((sum, o) => sum + o.weight, 0);
  const quotas = new Array<number>(sizes.length).fill(0);
  for (const o of order) {
    quotas[o.index] = Math.min(o.size, weight > 0 ? Math.floor((left * o.weight) / weight) : 0);
    left -= quotas[o.index];
    weight -= o.weight;
  }
  return quotas;
}

/** Every always-sent request, and of the (slot, bad value) pairs what the budget leaves, shared out by `allocate`. */
export function sampleRequests(planned: Planned[], budget: number): { requests: FuzzRequest[]; pairs: number } {
  const fixed = planned.reduce((sum, p) => sum + p.always.length, 0);
  const sizes = planned.map((p) => p.slots.reduce((sum, s) => sum + s.values.length, 0));
  const quotas = allocate(sizes, Math.max(0, budget - fixed));
  return { requests: planned.flatMap((p, i) => [...p.always, ...roundRobin(p.slots, quotas[i])]), pairs: sizes.reduce((a, b) => a + b, 0) };
}

// ---------------------------------------------------------------------------------------------
// OpenAPI documents -> operations

type OpenApi = { paths: Record<string, Record<string, unknown>> } & Record<string, unknown>;

function pointer(document: unknown, ref: string): Schema {
  const target = ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
  return target as Schema;
}

function derefIn(document: unknown): (schema: Schema) => Schema {
  return function deref(schema: Schema): Schema {
    return typeof schema.$ref === 'string' ? deref(pointer(document, schema.$ref)) : schema;
  };
}

interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

const MEDIA_JSON = 'application/json';

/** Whether the fixtures say what a valid value of an optional parameter is (a filter by location, a return's number). */
function known(name: string, context: string, fixtures: Fixtures): boolean {
  return kindOf(name, context) !== undefined || isNamed(name, fixtures);
}

/** The fixture id a name refers to in its context (`id` of `/inventory-levels/{id}`), if any. */
function fixtureFor(name: string, context: string, fixtures: Fixtures): string | undefined {
  const kind = kindOf(name, context);
  return kind && fixtures.ids[kind];
}

/** The bad ids of a path parameter: the generic ones, then another store's and a made-up id of its kind. */
function badIds(kind: FixtureKind | undefined, other: Fixtures): BadValue[] {
  if (!kind) return [...BAD_PATH];
  const theirs = other.ids[kind];
  return [
    ...BAD_PATH,
    ...(theirs ? [{ name: "another store's id", text: encodeURIComponent(theirs) }] : []),
    { name: 'unknown id', text: encodeURIComponent(unknownId(kind)) },
  ];
}

export interface DocumentOptions {
  door: 'v2.2' | 'v3/rest';
  prefix: string;
  document: OpenApi;
  fixtures: Fixtures;
  /** Another store's fixtures: their ids must be as unknown as made-up ones. */
  other: Fixtures;
  /**
   * The GraphQL field a route runs (v3/rest): its arguments' values and a mutation's body come
   * from the SDL's types, since SOFA's document describes input lists' items only as "object".
   */
  fieldOf?: (method: string, path: string) => GraphQLField<unknown, unknown> | undefined;
}

/** The operations of a served OpenAPI document with their valid values. */
export function documentOperations(options: DocumentOptions): OperationSpec[] {
  const { door, prefix, document, fixtures, other } = options;
  const deref = derefIn(document);
  const g: Generator = { fixtures, deref };
  const specs: OperationSpec[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    const shared = ((item.parameters ?? []) as Schema[]).map((p) => deref(p) as unknown as OpenApiParameter);
    for (const [method, operationIn] of Object.entries(item)) {
      if (method === 'parameters') continue;
      const operation = operationIn as { parameters?: Schema[]; requestBody?: Schema };
      const parameters = [...shared, ...(operation.parameters ?? []).map((p) => deref(p) as unknown as OpenApiParameter)];
      const segments = template.split('/');
      const path = parameters
        .filter((p) => p.in === 'path')
        .map((p) => {
          const context = segments[segments.indexOf(`{${p.name}}`) - 1] ?? '';
          const value = fixtureFor(p.name, context, fixtures) ?? String(generate(p.schema ?? {}, g, [p.name]));
          return { name: p.name, value, bad: badIds(kindOf(p.name, context), other) };
        });
      const field = options.fieldOf?.(method, template);
      const args = field ? rootArguments(field, g) : {};
      const argNames = new Set(field?.args.map((a) => a.name));
      const param = (p: OpenApiParameter): Param => {
        if (argNames.has(p.name)) return { name: p.name, value: args[p.name] };
        const value = p.required || known(p.name, template, fixtures) ? (fixtureFor(p.name, template, fixtures) ?? generate(p.schema ?? {}, g, [p.name])) : undefined;
        return { name: p.name, value };
      };
      const requestBody = operation.requestBody && deref(operation.requestBody);
      const bodySchema = (requestBody?.content as Record<string, { schema: Schema }> | undefined)?.[MEDIA_JSON]?.schema;
      let body: OperationSpec['body'];
      // SOFA takes a mutation's arguments as body members (and lists them as query parameters too: they are fuzzed in the body).
      const inBody = method === 'post' && field !== undefined;
      if (inBody) body = { value: args, optional: [...argNames].filter((name) => !(name in args)) };
      else if (bodySchema) body = { value: generate(bodySchema, g), optional: [] };
      const pathNames = new Set(path.map((p) => p.name));
      specs.push({
        door,
        method: method.toUpperCase(),
        template: prefix + template,
        path,
        query: parameters.filter((p) => p.in === 'query' && !pathNames.has(p.name) && !(inBody && argNames.has(p.name))).map(param),
        headers: parameters.filter((p) => p.in === 'header').map(param),
        body,
        write: method !== 'get',
      });
    }
  }
  return specs;
}

// ---------------------------------------------------------------------------------------------
// GraphQL: SOFA's bodies and /v3/graphql requests from the SDL

/** SOFA's route of a field (`productImageUpdate` -> `/product-image-update`), its param-case. */
const sofaRoute = (field: string) =>
  `/${field
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .toLowerCase()}`;

/** The field behind a SOFA route: queries are GET (`/order/{id}` is `order(id)`), mutations POST. */
export function sofaFields(schema: GraphQLSchema): (method: string, path: string) => GraphQLField<unknown, unknown> | undefined {
  const routes = (type: GraphQLObjectType | null | undefined) => new Map(Object.values(type?.getFields() ?? {}).map((field) => [sofaRoute(field.name), field]));
  const byMethod: Record<string, Map<string, GraphQLField<unknown, unknown>>> = { get: routes(schema.getQueryType()), post: routes(schema.getMutationType()) };
  return (method, path) => byMethod[method]?.get(path.replace(/\/\{id\}$/, ''));
}

const isStringType = (type: GraphQLInputType) => {
  const inner = isNonNullType(type) ? type.ofType : type;
  return isScalarType(inner) && (inner.name === 'String' || inner.name === 'ID');
};

/**
 * A root field's arguments: required ones, and optional ones the fixtures give a value. An `id`
 * is of the kind the field's name says (`productImageUpdate`), or a return's where it sits
 * beside `number`, one of the four ways of naming a return (`addReturnNote(id, number, ...)`).
 */
function rootArguments(field: GraphQLField<unknown, unknown>, g: Generator): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const context = field.args.some((a) => a.name === 'number') ? 'return' : field.name;
  for (const arg of field.args) {
    const fixture = isStringType(arg.type) ? fixtureFor(arg.name, context, g.fixtures) : undefined;
    if (fixture !== undefined) out[arg.name] = fixture;
    else if ((isNonNullType(arg.type) && arg.defaultValue === undefined) || isNamed(arg.name, g.fixtures)) {
      out[arg.name] = generate(graphqlInputSchema(arg.type), g, [arg.name]);
    }
  }
  return out;
}

/** A GraphQL literal of a JSON value, in the type's syntax (enums bare; JSON.stringify's escapes are GraphQL's). */
function literal(value: unknown, type: GraphQLInputType): string {
  if (isNonNullType(type)) return literal(value, type.ofType);
  if (value === null || value === undefined) return 'null';
  if (isListType(type)) return `[${(Array.isArray(value) ? value : [value]).map((v) => literal(v, type.ofType)).join(', ')}]`;
  if (isEnumType(type) && typeof value === 'string') return value;
  if (isInputObjectType(type)) {
    const fields = type.getFields();
    return `{${Object.entries(value as object).map(([k, v]) => `${k}: ${literal(v, fields[k].type)}`).join(', ')}}`;
  }
  return untypedLiteral(value);
}

/** A JSON scalar's literal: objects and lists in GraphQL syntax, keys bare. */
function untypedLiteral(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(untypedLiteral).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${k}: ${untypedLiteral(v)}`).join(', ')}}`;
  return JSON.stringify(value);
}

/** Where a String or ID sits in an argument's value: the paths a bad string is put at. */
function stringPaths(value: unknown, type: GraphQLInputType, path: MemberPath): MemberPath[] {
  if (isNonNullType(type)) return stringPaths(value, type.ofType, path);
  if (isListType(type)) return Array.isArray(value) ? value.flatMap((item, i) => stringPaths(item, type.ofType, [...path, i])) : [];
  if (isInputObjectType(type)) {
    const fields = type.getFields();
    return value !== null && typeof value === 'object' ? Object.entries(value).flatMap(([k, v]) => (fields[k] ? stringPaths(v, fields[k].type, [...path, k]) : [])) : [];
  }
  return isStringType(type) ? [path] : [];
}

function selectionOf(field: GraphQLField<unknown, unknown>): string {
  const type = getNamedType(field.type);
  if (isScalarType(type) || isEnumType(type)) return '';
  // userErrors tell a refused write from a done one; __typename is valid on every object, interface and union.
  return isObjectType(type) && type.getFields().userErrors ? ' { __typename userErrors { message } }' : ' { __typename }';
}

/**
 * Every Query and Mutation field with a String or ID position (an argument, or a member of an
 * input at any depth): its valid request, and per position each bad string as a variable and
 * as a literal written into the document.
 */
export function graphqlOperations(schema: GraphQLSchema, fixtures: Fixtures, random: () => number): Planned[] {
  const g: Generator = { fixtures, deref: (s) => s };
  const planned: Planned[] = [];
  for (const [keyword, root] of [['query', schema.getQueryType()], ['mutation', schema.getMutationType()]] as const) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      const base = rootArguments(field, g);
      // An optional string argument left out of the valid request is a position too.
      const positions = field.args.flatMap((arg) => (arg.name in base ? stringPaths(base[arg.name], arg.type, [arg.name]) : isStringType(arg.type) ? [[arg.name]] : []));
      if (positions.length === 0) continue;
      const argType = (name: string) => field.args.find((a) => a.name === name)!.type;
      const document = (args: Record<string, unknown>, inline: boolean) => {
        const names = Object.keys(args);
        const declared = !inline && names.length ? `(${names.map((n) => `$${n}: ${String(argType(n))}`).join(', ')})` : '';
        const passed = names.length ? `(${names.map((n) => `${n}: ${inline ? literal(args[n], argType(n)) : `$${n}`}`).join(', ')})` : '';
        return `${keyword}${declared} { ${field.name}${passed}${selectionOf(field)} }`;
      };
      const request = (variant: string, args: Record<string, unknown>, inline: boolean): FuzzRequest => ({
        door: 'v3/graphql',
        operation: `${keyword} ${field.name}`,
        variant,
        method: 'POST',
        url: '/v3/graphql',
        headers: { 'content-type': MEDIA_JSON },
        body: JSON.stringify({ query: document(args, inline), variables: inline ? {} : args }),
        write: keyword === 'mutation',
        destructive: keyword === 'mutation' && DESTRUCTIVE.test(field.name),
      });
      const slots = positions.map((path) => ({
        values: firstThenShuffled(BAD_STRINGS, random).flatMap((bad) => {
          const args = withMember(base, path, bad.value) as Record<string, unknown>;
          const where = describePath(path);
          return [() => request(`variable ${where} = ${bad.name}`, args, false), () => request(`literal ${where} = ${bad.name}`, args, true)];
        }),
      }));
      planned.push({ always: [request('valid', base, false)], slots: shuffled(slots, random) });
    }
  }
  return planned;
}

// ---------------------------------------------------------------------------------------------
// The warehouse compat door has no document: its routes (src/compat/routes/returns.ts) by hand

/** The compat routes, their query parameters and bodies, with valid values naming the fixture return by its number. */
export function compatOperations(fixtures: Fixtures, other: Fixtures): OperationSpec[] {
  const number = String(fixtures.returnNumber);
  const returnId = {
    name: 'return_id',
    value: number,
    bad: [...BAD_PATH, { name: "another store's number", text: String(other.returnNumber) }, { name: 'unknown number', text: '2147483647' }, { name: '-1', text: '-1' }],
  };
  const params = (...names: string[]): Param[] => names.map((name) => ({ name }));
  // The four ways of naming a return: the number (path, or return_id on details) and these.
  const ref = params('svc_return_id', 'order_name', 'order_id');
  const window: Param[] = [
    { name: 'from', value: '2026-01-01T00:00:00Z' },
    { name: 'to', value: '2026-03-01T00:00:00Z' },
  ];
  const spec = (method: string, path: string, rest: Partial<OperationSpec>): OperationSpec => ({
    door: 'compat',
    method,
    template: `/api/v1/warehouse${path}`,
    path: path.includes('{return_id}') ? [returnId] : [],
    query: ref,
    headers: [],
    write: method === 'POST',
    ...rest,
  });
  return [
    spec('GET', '/return/details', { query: [{ name: 'return_id', value: number }, { name: 'currency_type', value: 'shop' }, ...ref] }),
    spec('GET', '/return/list', { query: [...window, ...params('filter', 'state', 'paginate', 'pageSize', 'after', 'before')] }),
    ...['process', 'flag', 'close', 'cancel'].map((action) => spec('POST', `/return/{return_id}/${action}`, {})),
    spec('POST', '/return/{return_id}/remove', { query: [...params('line_item_id'), ...ref], body: { value: { line_item_id: [fixtures.ids.returnItem] }, optional: [] } }),
    spec('POST', '/return/{return_id}/note', { body: { value: { content: 'fuzz note' }, optional: [] } }),
    spec('GET', '/return/{return_id}/notes', {}),
    spec('GET', '/reporting/asn', { query: window }),
  ];
}
