// Structural check of a REST request body against the JSON Schema its route documents,
// so the document and the check never disagree. Only the shape is checked here (JSON
// types, required and unknown properties); value rules (formats, ranges, lengths) are
// the domain's, so every door applies the same ones.
import type { JsonSchema } from '../routeTable.ts';
import type { FieldIssue } from '../schema/errors.ts';

type JsonType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';

function typeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

function matchesType(value: unknown, allowed: JsonType[]): boolean {
  const actual = typeOf(value);
  return allowed.includes(actual) || (actual === 'integer' && allowed.includes('number'));
}

function describe(types: JsonType[]): string {
  const words = types.map((t) => (t === 'integer' ? 'an integer' : t === 'array' ? 'an array' : t === 'object' ? 'an object' : t === 'null' ? 'null' : `a ${t}`));
  return words.length === 1 ? words[0] : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

const join = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));

export interface ShapeResult {
  issues: FieldIssue[];
  /** The value with the properties the schema does not name removed (where unknown ones are allowed). */
  value: unknown;
}

function check(schema: JsonSchema, value: unknown, path: string, issues: FieldIssue[]): unknown {
  const types = schema.type === undefined ? undefined : ([] as JsonType[]).concat(schema.type as JsonType | JsonType[]);
  if (types && !matchesType(value, types)) {
    issues.push({ path, message: `${path ? '' : 'the request body '}must be ${describe(types)}` });
    return value;
  }
  if (typeOf(value) === 'array' && schema.items) {
    return (value as unknown[]).map((item, index) => check(schema.items as JsonSchema, item, join(path, index), issues));
  }
  if (typeOf(value) !== 'object' || !(schema.properties || schema.additionalProperties !== undefined)) return value;

  const object = value as Record<string, unknown>;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const name of (schema.required ?? []) as string[]) {
    if (!(name in object)) issues.push({ path: join(path, name), message: 'is required' });
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(object)) {
    const known = properties[key];
    if (known) {
      out[key] = check(known, item, join(path, key), issues);
    } else if (schema.additionalProperties === false) {
      issues.push({ path: join(path, key), message: 'is not a known property' });
    } else if (typeof schema.additionalProperties === 'object') {
      out[key] = check(schema.additionalProperties as JsonSchema, item, join(path, key), issues);
    }
  }
  return out;
}

/** Shape issues of `value` against `schema`, and the value limited to what the schema names. */
export function checkShape(schema: JsonSchema, value: unknown): ShapeResult {
  const issues: FieldIssue[] = [];
  if (value === undefined) return { issues: [{ path: '', message: 'a JSON request body is required' }], value };
  const checked = check(schema, value, '', issues);
  return { issues, value: checked };
}

/** The value without its null properties, at every depth: a null field of the request is a field not given. */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== null).map(([key, item]) => [key, withoutNulls(item)]));
}
