// The shape of a REST request body checked against the JSON Schema its route documents, by
// a validator Ajv compiles from that schema once, so the document and the check never
// disagree. Shape is JSON types, required members and unknown members: those the schema
// does not name are dropped where it leaves objects open, and refused where it closes them
// (`additionalProperties: false`). Value rules (formats, ranges, lengths, enums) are the
// domain's, so every door applies the same ones with the same messages, and a bulk route
// can refuse one item by its index as its reference answer does, instead of the request.
// Nesting is bounded before this runs (inputText.ts), so no body takes the validator deeper.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { JsonSchema } from '../http/routeTable.ts';
import type { FieldIssue } from '../schema/errors.ts';

const ajv = new Ajv({ allErrors: true, strict: false, removeAdditional: true, discriminator: true, validateFormats: false });

/** Keywords of value rules, left to the domain. */
const VALUE_KEYWORDS = new Set(['format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'pattern', 'enum', 'const', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties']);

type Schema = Record<string, unknown>;

/**
 * The schema Ajv compiles: the document's, without value keywords; an open object
 * (properties named, additionalProperties absent) gets `additionalProperties: false`, which
 * `removeAdditional` turns into dropping unknown members; a closed one gets
 * `propertyNames` listing its members, so an unknown member there stays an error.
 */
function forValidation(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forValidation);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => !VALUE_KEYWORDS.has(key))
      .map(([key, value]) => [key, key === 'properties' ? mapValues(value as Schema) : forValidation(value)]),
  );
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  else if (out.properties && out.additionalProperties === false) {
    delete out.additionalProperties;
    out.propertyNames = { enum: Object.keys(out.properties as Schema) };
  }
  return out;
}

function mapValues(properties: Schema): Schema {
  return Object.fromEntries(Object.entries(properties).map(([name, value]) => [name, forValidation(value)]));
}

const validators = new WeakMap<JsonSchema, ValidateFunction>();

function validatorOf(schema: JsonSchema): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(forValidation(schema) as Schema);
    validators.set(schema, validate);
  }
  return validate;
}

const TYPE_WORDS: Record<string, string> = { integer: 'an integer', array: 'an array', object: 'an object', null: 'null', number: 'a number', string: 'a string', boolean: 'a boolean' };

function describeTypes(type: unknown): string {
  const words = ([] as string[]).concat(type as string | string[]).map((t) => TYPE_WORDS[t] ?? t);
  return words.length === 1 ? words[0] : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

function issueOf(error: ErrorObject): FieldIssue | undefined {
  const path = error.instancePath.split('/').slice(1).map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~')).join('.');
  switch (error.keyword) {
    case 'required':
      return { path: join(path, error.params.missingProperty as string), message: 'is required' };
    case 'propertyNames':
      return { path: join(path, error.params.propertyName as string), message: 'is not a known property' };
    case 'type':
      return { path, message: `${path ? '' : 'the request body '}must be ${describeTypes(error.params.type)}` };
    case 'enum':
      // The only enums left are a closed object's member names: `propertyNames` says it.
      return undefined;
    default:
      return { path, message: error.message ?? `fails ${error.keyword}` };
  }
}

export interface ShapeResult {
  issues: FieldIssue[];
  /** The value with the members the schema does not name removed (where unknown ones are allowed). */
  value: unknown;
}

/** Issues of `value` against `schema` (one per member: the first the validator found), and the value limited to what the schema names. */
export function checkShape(schema: JsonSchema, value: unknown): ShapeResult {
  if (value === undefined) return { issues: [{ path: '', message: 'a JSON request body is required' }], value };
  const validate = validatorOf(schema);
  if (validate(value)) return { issues: [], value };
  const issues = new Map<string, FieldIssue>();
  for (const error of validate.errors ?? []) {
    const issue = issueOf(error);
    if (issue && !issues.has(issue.path)) issues.set(issue.path, issue);
  }
  return { issues: [...issues.values()], value };
}

/** The value without its null properties, at every depth: a null field of the request is a field not given. */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== null).map(([key, item]) => [key, withoutNulls(item)]));
}
