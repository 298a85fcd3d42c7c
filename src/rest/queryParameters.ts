// Filter parameters of REST lists, declared once: the same declaration reads and
// checks the query string (reporting every bad parameter at once as a problem's
// `errors`) and documents the parameter in the OpenAPI document. Values are coerced
// by the schema's own input types (DateTime, enums), so REST accepts exactly what
// the GraphQL operation accepts.
import { coerceInputValue, isEnumType, isScalarType, type GraphQLInputType } from 'graphql';
import type { RouteDoc } from '../http/routeTable.ts';
import { schema } from '../schema/index.ts';
import type { FieldIssue } from '../schema/errors.ts';

export interface QueryParameter {
  /** Name in the query string, e.g. `location_id`. */
  name: string;
  /** GraphQL variable it fills, e.g. `locationId`. */
  variable: string;
  /** A GraphQL input type of the schema: `ID`, `String`, `DateTime` or an enum. */
  type: string;
  /** For ids: the prefix of the kind of record it names (docs/interface-rules.md, "Identifiers"), e.g. `loc_`. */
  idPrefix?: string;
  /** For enums: the values this door accepts when fewer than the schema's. */
  allowed?: readonly string[];
  description: string;
}

export type ReadParameters = { ok: true; variables: Record<string, string> } | { ok: false; issues: FieldIssue[] };

function inputType(name: string): GraphQLInputType {
  const type = schema.getType(name);
  if (!type || !(isScalarType(type) || isEnumType(type))) throw new Error(`${name} is not a scalar or enum of the schema`);
  return type;
}

function checkValue(parameter: QueryParameter, raw: string): string | undefined {
  if (raw.trim() === '') return 'must not be empty';
  if (parameter.idPrefix && !new RegExp(`^${parameter.idPrefix}[0-9a-z]+$`).test(raw)) {
    return `must be an id starting with ${parameter.idPrefix}, got "${raw}"`;
  }
  const type = inputType(parameter.type);
  if (isEnumType(type)) {
    const values = parameter.allowed ?? type.getValues().map((v) => v.name);
    return values.includes(raw) ? undefined : `must be one of ${values.join(', ')}, got "${raw}"`;
  }
  let problem: string | undefined;
  coerceInputValue(raw, type, (_path, _value, error) => {
    problem ??= error.message;
  });
  return problem;
}

/** The declared parameters present in the query, as GraphQL variables, or every issue found. */
export function readQueryParameters(query: URLSearchParams, parameters: readonly QueryParameter[]): ReadParameters {
  const variables: Record<string, string> = {};
  const issues: FieldIssue[] = [];
  for (const parameter of parameters) {
    const values = query.getAll(parameter.name);
    if (values.length === 0) continue;
    if (values.length > 1) {
      issues.push({ path: parameter.name, message: 'must be given at most once' });
      continue;
    }
    const message = checkValue(parameter, values[0]);
    if (message) issues.push({ path: parameter.name, message });
    else variables[parameter.variable] = values[0];
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, variables };
}

function schemaOf(parameter: QueryParameter): Record<string, unknown> {
  if (parameter.idPrefix) return { type: 'string', pattern: `^${parameter.idPrefix}[0-9a-z]+$` };
  const type = inputType(parameter.type);
  if (isEnumType(type)) return { type: 'string', enum: parameter.allowed ? [...parameter.allowed] : type.getValues().map((v) => v.name) };
  if (parameter.type === 'DateTime') return { type: 'string', format: 'date-time' };
  return { type: 'string', minLength: 1 };
}

/** OpenAPI parameters for the declarations. */
export function documentQueryParameters(parameters: readonly QueryParameter[]): NonNullable<RouteDoc['parameters']> {
  return parameters.map((p) => ({ name: p.name, in: 'query', description: p.description, schema: schemaOf(p) }));
}

/** Query name of each variable, for mapping operation errors back to the request. */
export function parameterNames(parameters: readonly QueryParameter[]): Record<string, string> {
  return Object.fromEntries(parameters.map((p) => [p.variable, p.name]));
}
