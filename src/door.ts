// What the HTTP server hands a front door, and what it expects back. The server
// reads (and limits) the body once; doors never touch node:http streams.
import type { IncomingHttpHeaders } from 'node:http';
import type { Authenticator } from './auth/authenticate.ts';
import type { RateLimiter } from './auth/rateLimit.ts';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';

/** What every door is made with: the server builds it once and hands it to each. */
export interface AppDeps {
  db: Database;
  config: Config;
  logger: Logger;
  metrics: Metrics;
  rateLimiter: RateLimiter;
  authenticator: Authenticator;
}

export interface DoorRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer;
  requestId: string;
  /** The route template the door matched (`/v2.2/stores/{storeId}/customers`), set by the door for logs and metrics. */
  route?: string;
}

export interface DoorResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface Door {
  name: string;
  matches(pathname: string): boolean;
  handle(request: DoorRequest): Promise<DoorResponse>;
  /** A failure found before the door ran (body too large, ...), in the door's own format. */
  reject(status: number, message: string, request: Pick<DoorRequest, 'url' | 'requestId'>): DoorResponse;
}

export function header(request: Pick<DoorRequest, 'headers'>, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

export type JsonBody = { ok: true; value: unknown } | { ok: false; message: string };

/** Parses a JSON request body; an empty body is `undefined`. */
export function parseJsonBody(request: DoorRequest): JsonBody {
  if (request.body.length === 0) return { ok: true, value: undefined };
  const type = header(request, 'content-type');
  if (type && !/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
    return { ok: false, message: `Content-Type must be application/json, got "${type}"` };
  }
  try {
    return { ok: true, value: JSON.parse(request.body.toString('utf8')) };
  } catch (error) {
    return { ok: false, message: `request body is not valid JSON: ${(error as Error).message}` };
  }
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): DoorResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify(body) };
}
