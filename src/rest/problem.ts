// RFC 7807 problem details, the REST door's error format (spec 2.6, decisions.md).
import type { DoorResponse } from '../door.ts';
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
    headers: { 'content-type': 'application/problem+json; charset=utf-8', ...options.headers },
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
  INTERNAL_SERVER_ERROR: 500,
};

export function problemFromError(error: ClassifiedError, instance: string): DoorResponse {
  return problem(REST_STATUS[error.code], error.message, { instance, errors: error.issues });
}
