// The other returns platform's error bodies (docs/interface-rules.md, "Errors"):
// failures are `{"error":{"code","http_code","message"}}`; an action refused for the
// return's state is HTTP 200 with `{"errors":{"message","code":"UNPROCESSABLE_RETURN"}}`.
import { json, retryAfter, type DoorResponse } from '../http/door.ts';
import type { ClassifiedError } from '../schema/errors.ts';

const CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'UNPROCESSABLE_ENTITY',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

export function compatError(status: number, message: string, headers?: Record<string, string>): DoorResponse {
  return json(status, { error: { code: CODES[status] ?? 'ERROR', http_code: status, message } }, { ...retryAfter(status), ...headers });
}

export function unprocessableReturn(message: string): DoorResponse {
  return json(200, { errors: { message, code: 'UNPROCESSABLE_RETURN' } });
}

/** The compat answer for a failed operation. */
export function compatErrorFrom(error: ClassifiedError): DoorResponse {
  switch (error.code) {
    case 'UNPROCESSABLE':
      return unprocessableReturn(error.message);
    case 'NOT_FOUND':
      return compatError(404, error.message);
    case 'BAD_USER_INPUT':
    case 'CONFLICT':
      return compatError(422, error.message);
    case 'FORBIDDEN':
      return compatError(403, error.message);
    case 'UNAUTHENTICATED':
      return compatError(401, error.message);
    case 'UNAVAILABLE':
      return compatError(503, error.message);
    default:
      return compatError(500, 'internal error');
  }
}
