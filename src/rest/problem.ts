// RFC 7807 problem details, the REST door's error format (docs/interface-rules.md, "Errors").
import type { ExecutionResult } from 'graphql';
import { retryAfter, type DoorResponse } from '../http/door.ts';
import type { ClassifiedError, ErrorCode, FieldIssue } from '../schema/errors.ts';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export interface ProblemOptions {
  instance?: string;
  errors?: FieldIssue[];
  headers?: Record<string, string>;
}

export function problem(status: number, detail: string, options: ProblemOptions = {}): DoorResponse {
  const body: Record<string, unknown> = {
    type: 'about:blank',
    title: TITLES[status] ?? 'Error',
    status,
    detail,
  };
  if (options.instance) body.instance = options.instance;
  if (options.errors && options.errors.length > 0) body.errors = options.errors;
  return {
    status,
    headers: { 'content-type': 'application/problem+json; charset=utf-8', ...retryAfter(status), ...options.headers },
    body: JSON.stringify(body),
  };
}

/** HTTP status of each operation error code on the REST door. */
export const REST_STATUS: Record<ErrorCode, number> = {
  BAD_USER_INPUT: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  FORBIDDEN: 403,
  UNAUTHENTICATED: 401,
  UNPROCESSABLE: 409,
  // Limits of /v3/graphql documents; the REST door's own documents never reach them.
  TOO_MANY_ALIASES: 400,
  QUERY_TOO_DEEP: 400,
  TOO_MANY_TOKENS: 400,
  TOO_MANY_DIRECTIVES: 400,
  QUERY_TOO_COSTLY: 400,
  UNAVAILABLE: 503,
  INTERNAL_SERVER_ERROR: 500,
};

export function problemFromError(error: ClassifiedError, instance: string): DoorResponse {
  return problem(REST_STATUS[error.code], error.message, { instance, errors: error.issues });
}

/** 400 for invalid input, every issue listed so a client can fix them all at once. */
export function validationProblem(issues: FieldIssue[], instance: string): DoorResponse {
  return problem(400, issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; '), { instance, errors: issues });
}

// `Variable "$input" got invalid value 1.5 at "input.lineItems[0].quantity"; Int cannot represent ...`
const INPUT_FIELD_ERROR = /^Variable "\$input" got invalid value .*? at "input\.([^"]+)"; ([\s\S]*)$/;

/**
 * The issues of a result that failed while coercing its `$input` variable (a bad date-time,
 * decimal or integer), each naming its input field as a dotted path (`lineItems.0.quantity`).
 */
export function inputCoercionIssues(result: ExecutionResult): FieldIssue[] {
  return (result.errors ?? []).map((e) => {
    const match = INPUT_FIELD_ERROR.exec(e.message);
    return match ? { path: match[1].replace(/\[(\d+)\]/g, '.$1'), message: match[2] } : { path: '', message: e.message };
  });
}

/** REST name of each GraphQL variable a route fills from the request (`after` -> `page-continue`). */
export type ParameterNames = Readonly<Record<string, string>>;

// `at "input.a.b"` names the offending field inside an input-object variable.
const VARIABLE_ERROR = /^Variable "\$(\w+)" got invalid value (?:[^;]*? at "[^".]+\.([^"]+)")?[^;]*; ([\s\S]*)$/;

function renamed(path: string, names: ParameterNames): string {
  const [head, ...rest] = path.split('.');
  return [names[head] ?? head, ...rest].join('.');
}

/**
 * The problem for a failed operation, with `errors` naming the request's own parameters
 * (a variable the route maps to '' is the body itself: its fields are named from the root).
 * A result without `data` failed before execution: its variables did not coerce (a bad
 * date, enum value or number), which is always the caller's fault, so every such error
 * becomes one 400 issue. A refused cursor names no variable: on REST lists it is the
 * `after` variable.
 */
export function problemFromOutcome(
  outcome: { error: ClassifiedError; result: ExecutionResult },
  instance: string,
  names: ParameterNames = {},
): DoorResponse {
  const { error, result } = outcome;
  if (!('data' in result) && result.errors?.length) {
    const issues = result.errors.map((e) => {
      const match = VARIABLE_ERROR.exec(e.message);
      if (!match) return { path: '', message: e.message };
      const [, variable, inside, message] = match;
      return { path: [names[variable] ?? variable, inside].filter(Boolean).join('.'), message };
    });
    return validationProblem(issues, instance);
  }
  let issues = error.issues.map((issue) => ({ ...issue, path: renamed(issue.path, names) }));
  if (error.code === 'BAD_USER_INPUT' && issues.length === 0 && /cursor/i.test(error.message)) {
    issues = [{ path: names.after ?? 'after', message: error.message }];
  }
  return problem(REST_STATUS[error.code], error.message, { instance, errors: issues });
}
