// Reading the other returns platform's request parameters: the four ways of naming a
// return and the date windows of lists and reports. Anything malformed is
// a 422 in the platform's error format, before any operation runs.
import type { DoorResponse } from '../http/door.ts';
import type { RouteInput } from '../http/routeTable.ts';
import { compatError } from './errors.ts';

export type Parsed<T> = { ok: true; value: T } | { ok: false; response: DoorResponse };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const invalid = (message: string): Parsed<never> => ({ ok: false, response: compatError(422, message) });

/** Largest id the numeric path segment can name (GraphQL Int). */
const MAX_RETURN_NUMBER = 2_147_483_647;

/** Variables of the schema's return lookups (`findReturn`, the return mutations). */
export interface ReturnRefVariables {
  number: number | null;
  id: string | null;
  orderName: string | null;
  orderId: string | null;
}

function optional(query: URLSearchParams, name: string): string | null {
  const value = query.get(name);
  return value === null || value.trim() === '' ? null : value.trim();
}

/**
 * The return a request names: the numeric id (path `:return_id` or, on details, the
 * `return_id` query parameter), or with the placeholder `0` the `svc_return_id`,
 * `order_name` or `order_id` query parameters. Several given together must agree;
 * the schema checks that (a contradiction is a 422).
 */
export function readReturnRef(input: Pick<RouteInput, 'query'>, rawNumber: string | null): Parsed<ReturnRefVariables> {
  let number: number | null = null;
  if (rawNumber !== null) {
    if (!/^\d+$/.test(rawNumber)) return invalid(`return_id must be a non-negative integer, got "${rawNumber}"`);
    const value = Number(rawNumber);
    if (value > MAX_RETURN_NUMBER) return { ok: false, response: compatError(404, `no return found for return_id ${rawNumber}`) };
    number = value === 0 ? null : value;
  }
  return ok({
    number,
    id: optional(input.query, 'svc_return_id'),
    orderName: optional(input.query, 'order_name'),
    orderId: optional(input.query, 'order_id'),
  });
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * A date (midnight UTC) or date-time (UTC unless it names an offset). A `+` offset sent
 * unencoded arrives as a space; it is read back as `+`.
 */
export function parseInstant(raw: string): Date | undefined {
  const text = raw.trim().replace(/(\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?) (\d{2}:?\d{2})$/, '$1+$2');
  if (DATE_ONLY.test(text)) {
    const date = new Date(`${text}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text ? date : undefined;
  }
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [, day, time, zone] = match;
  const date = new Date(`${day}T${time}${zone ?? 'Z'}`);
  return Number.isNaN(date.getTime()) || new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day ? undefined : date;
}

const DEFAULT_WINDOW_MS = 24 * 60 * 60 * 1000;
const MAX_WINDOW_DAYS = 120;

export interface Window {
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
}

/** `from` / `to`: by default the last 24 hours; `to` defaults to now, `from` to 24 hours before `to`. */
export function readWindow(query: URLSearchParams, now = new Date()): Parsed<Window> {
  const bounds: Partial<Window> = {};
  for (const name of ['from', 'to'] as const) {
    const raw = query.get(name);
    if (raw === null || raw.trim() === '') continue;
    const instant = parseInstant(raw);
    if (!instant) return invalid(`${name} must be an ISO 8601 date or date-time, got "${raw}"`);
    bounds[name] = instant;
  }
  const to = bounds.to ?? now;
  const from = bounds.from ?? new Date(to.getTime() - DEFAULT_WINDOW_MS);
  if (from >= to) return invalid('from must be before to');
  if (to.getTime() - from.getTime() > MAX_WINDOW_DAYS * DEFAULT_WINDOW_MS) {
    return invalid(`the range from ${from.toISOString()} to ${to.toISOString()} exceeds ${MAX_WINDOW_DAYS} days`);
  }
  return ok({ from, to });
}

/**
 * An answer over a window that `to` does not fix ends now, so it changes as time passes
 * without any write: clients are told to revalidate it, and no validator is made for it
 * (conditionalRequests.ts leaves answers with a Cache-Control of their own alone).
 */
export function revalidatedAsWindowMoves(query: URLSearchParams, response: DoorResponse): DoorResponse {
  const to = query.get('to');
  if (to !== null && to.trim() !== '') return response;
  return { ...response, headers: { ...response.headers, 'cache-control': 'private, no-cache' } };
}

/** Origin of the request as the client addressed it, for page URLs it can follow as given. */
export function originOf(input: Pick<RouteInput, 'request'>): string {
  const first = (name: string) => {
    const value = input.request.headers[name];
    return (Array.isArray(value) ? value[0] : value)?.split(',')[0].trim();
  };
  return `${first('x-forwarded-proto') ?? 'http'}://${first('x-forwarded-host') ?? first('host') ?? 'localhost'}`;
}
