// What the pipeline (pipeline.ts) hands a front door, and what it expects back. The pipeline
// reads (and limits) the body once and authenticates once; doors never touch node:http streams.
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthContext, AuthFailure } from '../auth/authenticate.ts';
import type { RateDecision, RateLimitedDoor } from '../auth/rateLimit.ts';
import { RETRY_AFTER_SECONDS } from '../db/failures.ts';
import { badInput, badParameters, type InputIssue } from './inputText.ts';

export interface DoorRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer;
  requestId: string;
  /**
   * Who is asking, as the guard step found it from the door's credentials (Door.credentials),
   * once per request: the caller, or why it was refused (the door answers that in its own
   * format where its route needs a caller). Absent when the door takes no API credentials (web).
   */
  auth?: AuthContext | AuthFailure;
}

export interface DoorResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /**
   * Instead of `body`: chunks the server writes as the client takes them, for an answer whose
   * size the client decides (streamedAnswer.ts). When the client leaves, the server ends the
   * iteration, which must stop whatever produces the chunks; a chunk that fails after the head
   * was sent cuts the connection.
   */
  stream?: AsyncIterable<string | Buffer>;
  /** Aborted to cut a streamed answer's connection at once, even while the client is not reading. */
  abort?: AbortSignal;
}

export interface Door {
  name: string;
  matches(pathname: string): boolean;
  handle(request: DoorRequest): Promise<DoorResponse>;
  /**
   * The route template the request takes (`/v2.2/stores/{storeId}/customers`), for logs and
   * metrics; undefined when it takes none. Known without running the door, so an answer given
   * without running it (a 304, a replayed write) is counted under its route too.
   */
  routeOf(request: Pick<DoorRequest, 'method' | 'url'>): string | undefined;
  /**
   * The API secret the request carries, read the door's way (`Authorization: Bearer`, or the
   * compat door's `X-Authorization`), or why there is none; the guard step authenticates it.
   * Absent: the door has no API callers (web, with its own sessions).
   */
  credentials?(request: DoorRequest): string | AuthFailure;
  /** The rate-limit budget an authenticated caller spends through this door; absent, none. */
  budget?: {
    name: RateLimitedDoor;
    /** The budget as the door tells it, in headers on every answer that spent it (and on a 304 of such a request). */
    headers(decision: RateDecision): Record<string, string>;
    /**
     * Whether this request spends: it reached a route its caller may use. The door's refusals
     * before that (no such route, no valid credentials, another store's, a missing scope) spend
     * nothing and carry no budget headers, as its contract documents them.
     */
    spentBy(request: DoorRequest): boolean;
  };
  /**
   * True when the route reads Idempotency-Key itself because its contract answers a replay
   * its own way (the reference's return creation: 200 with the return first made); the
   * server's handling (idempotentRequests.ts) then leaves the request alone.
   */
  ownsIdempotencyKey?(request: DoorRequest): boolean;
  /**
   * True when this GET will be answered as an event stream, known without running the door
   * (a v3 subscription, or a query whose Accept names no JSON type): such an answer gets no
   * validator, so none is worked out for it. Absent, the door never streams events.
   */
  answersWithEventStream?(request: DoorRequest): boolean;
  /**
   * True when the door's answers are GraphQL responses (v3), whose 200 may report errors at its
   * top level; such an answer gets no validator. The other doors answer a failure in their own
   * format and status, so their 200s are not searched for errors.
   */
  answersGraphQL?: boolean;
  /** A failure found before the door ran (body too large, ...), in the door's own format. */
  reject(status: number, message: string, request: Pick<DoorRequest, 'method' | 'url' | 'requestId'>): DoorResponse;
}

export function header(request: Pick<DoorRequest, 'headers'>, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

export type JsonBody = { ok: true; value: unknown } | { ok: false; message: string; issues: InputIssue[] };

const refused = (issue: InputIssue): JsonBody => ({ ok: false, message: `${issue.path ? `${issue.path}: ` : ''}${issue.message}`, issues: [issue] });

/** The request's headers for a fetch-API handler (yoga, SOFA's router), repeated ones joined. */
export function fetchHeaders(request: DoorRequest): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

/** A fetch Response's headers as a door answers them. */
export function answerHeaders(response: Response): Record<string, string> {
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/**
 * A fetch Response's body (yoga's, SOFA's) as the bytes it holds, not copied again: a Response
 * made of a Buffer hands that Buffer out, one made of a string is encoded once here.
 */
export async function bodyBytes(response: Response): Promise<Buffer> {
  // The ponyfill's arrayBuffer() is its Buffer; Buffer.from(an ArrayBuffer) is a view, not a copy.
  const bytes = (await response.arrayBuffer()) as ArrayBuffer | Buffer;
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
}

/** Parses a JSON request body and runs the input check on it (inputText.ts); an empty body is `undefined`. */
export function parseJsonBody(request: DoorRequest): JsonBody {
  if (request.body.length === 0) return { ok: true, value: undefined };
  const type = header(request, 'content-type');
  if (type && !/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
    return { ok: false, message: `Content-Type must be application/json, got "${type}"`, issues: [] };
  }
  let value: unknown;
  try {
    value = JSON.parse(request.body.toString('utf8'));
  } catch (error) {
    return { ok: false, message: `request body is not valid JSON: ${(error as Error).message}`, issues: [] };
  }
  const issue = badInput(value);
  return issue ? refused(issue) : { ok: true, value };
}

/**
 * Path parameters and query values through the input check, then the JSON body: what a
 * routed door reads of a request. `malformed` names a parameter that did not decode.
 */
export function readRequestInput(request: DoorRequest, params: Record<string, string>, malformed?: string): JsonBody {
  if (malformed) return refused({ path: malformed, message: 'is not valid percent-encoded UTF-8' });
  const issue = badParameters(params, request.url.searchParams);
  return issue ? refused(issue) : parseJsonBody(request);
}

/** A 503 is the database unavailable for a moment (db/failures.ts): every door says when to try again. */
export function retryAfter(status: number): Record<string, string> {
  return status === 503 ? { 'retry-after': String(RETRY_AFTER_SECONDS) } : {};
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): DoorResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify(body) };
}
