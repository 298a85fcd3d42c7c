// Validators and 304 Not Modified for every GET that reads data (RFC 9110 §8.8.3, §13.1.2,
// §15.4.5), built once here where every request passes (a step of pipeline.ts), so polling an unchanged
// answer costs an authentication (cached) and one indexed read instead of the answer.
//
// - The validator is a strong ETag made from what the answer is a function of: the change
//   counters of the caller's store and of the stores linked to it (db/storeChanges.ts; every
//   committed write raises them, by triggers in its own transaction), the caller (API client,
//   merchant user, store, scopes), the method and target, the request headers the answer
//   varies by (Accept, the coding Accept-Encoding chooses, Host and X-Forwarded-* that page
//   links are built from), the calendar month (what is "pending" on an invoice) and the code
//   that answers. It is an HMAC under the service's secret, so no one can make a tag the
//   service did not hand out, and two callers or two requests never share one.
// - The counters are never read after the data: a write committing in between would make the
//   tag newer than the answer. A GET without If-None-Match (nothing to compare before
//   answering) has them read by the answer's first statement, as a column of it when it is a
//   compiled read (one round trip, one snapshot: the tag is exactly as of the rows), before it
//   otherwise (storeChanges.ts, ChangesAlong). A conditional GET reads them first, on their
//   own, to answer 304 without running the door; so does every GET with read replicas, whose
//   answer's reads are then held to the position they were read at.
// - `If-None-Match` with the current tag is answered 304 without running the door (and so
//   without counting against the rate limit, as GitHub does); `*` is answered 304 when the
//   door answers 200. The comparison is the weak one (§13.1.2), so `W/"x"` matches `"x"`.
// - Only a 200 gets a tag, with `Cache-Control: private, no-cache, must-revalidate` (clients
//   revalidate, no shared cache keeps a store's data; must-revalidate because RFC 9111 §3.5
//   lets a cache keep an answer to a request with Authorization only when it says so, and
//   undici's cache otherwise never revalidates) and `Vary`; a 304 carries the same three
//   (§15.4.5) and the caller's rate-limit headers as they stand (nothing spent). A streamed
//   answer gets them in its head. Left alone: answers whose door set its own Cache-Control (a
//   window ending now changes with the clock, not with writes: the compat list), event streams
//   (the door says beforehand which GETs it answers as one: urql names text/event-stream in
//   the Accept of every query, which is still answered as JSON), and v3's GraphQL answers
//   reporting errors (a transient failure must not be kept as the answer; the other doors
//   answer failures with a status of their own, so their 200s are not searched).
// - With read replicas (db/replicas.ts) the counters, read on the primary, may count writes a
//   replica has not replayed yet: an answer read there would be older than its validator and
//   would then be kept as current. So the counters are read together with the WAL position
//   they are as of, and the answer's reads are held to a server that has replayed that far
//   (readsReplayedTo): a caught-up replica, else the primary. While the primary is
//   unreachable the counters are read on a replica, with its replayed position, so polls and
//   their answers go on being served from the replicas.
// - Not known without reading the database: whether another instance wrote. The live
//   announcements cover only some events, and notifying every write would serialise every
//   commit of the database on PostgreSQL's notification queue, so the counter is read each time.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callerOf, type AuthContext } from '../../auth/authenticate.ts';
import type { RateLimiter } from '../../auth/rateLimit.ts';
import { negotiateEncoding } from '../compression.ts';
import type { Database } from '../../db/database.ts';
import { readsReplayedTo } from '../../db/replicas.ts';
import { ChangesAlong, readingChangesAlong, readStoreChanges, readStoreChangesWithPosition, type StoreChanges } from '../../db/storeChanges.ts';
import { header, type Door, type DoorRequest, type DoorResponse } from '../door.ts';
import type { Step } from '../step.ts';
import { standingBudget } from './rateLimit.ts';

export const VALIDATED_CACHE_CONTROL = 'private, no-cache, must-revalidate';

/** How a client polls with validators, as the API documents say it. */
export const CONDITIONAL_REQUEST_RULES =
  'Send the ETag of an earlier answer to ask whether it changed: `304 Not Modified` with no body (and that ETag) means the ' +
  'answer you hold is current. Such a poll costs the service far less than the answer and is not counted against the rate ' +
  'limit. Any write that changes the answer, through any door and on any instance, changes its ETag before the write is ' +
  'answered. A weak tag (`W/"..."`) and a list of tags are accepted; `*` asks whether there is an answer at all.';
/** What a validated answer varies by besides its target: who asks, in which media type and coding. */
const VARY = ['Authorization', 'Accept', 'Accept-Encoding'];
/** The compat door also takes its secret from this header. */
const COMPAT_CREDENTIALS = 'X-Authorization';
/** Request headers an answer is built from besides the ones it varies by: page links name the host the client addressed. */
const ORIGIN_HEADERS = ['host', 'x-forwarded-host', 'x-forwarded-proto'];
/** Headers a 304 repeats from the 200 it stands for (RFC 9110 §15.4.5). */
const NOT_MODIFIED_HEADERS = ['etag', 'cache-control', 'vary', 'content-location', 'expires'];
/** Headers of the caller's budget, which a 304 carries as every answer past authentication does. */
const RATE_LIMIT_HEADER = /^(x-ratelimit-.*|ratelimit(-policy)?)$/i;


/** What If-None-Match asks: any current answer, or one of these opaque tags (quotes included). */
type Condition = { any: true } | { any: false; tags: Set<string> };

/** One list element: `W/"x"`, `"x"` or nothing (RFC 9110 §5.6.1 allows empty ones), then a comma or the end. */
const ENTITY_TAG = /\s*(?:(?:W\/)?("[\x21\x23-\x7e\x80-\xff]*")\s*)?(?:,|$)/y;

/** If-None-Match, or undefined when absent or malformed (a malformed precondition is ignored). */
export function parseIfNoneMatch(value: string | undefined): Condition | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (value.trim() === '*') return { any: true };
  const tags = new Set<string>();
  ENTITY_TAG.lastIndex = 0;
  while (ENTITY_TAG.lastIndex < value.length) {
    const at = ENTITY_TAG.lastIndex;
    const match = ENTITY_TAG.exec(value);
    if (!match || ENTITY_TAG.lastIndex === at) return undefined;
    if (match[1]) tags.add(match[1]);
  }
  return tags.size > 0 ? { any: false, tags } : undefined;
}

let codeVersion: string | undefined;

/**
 * The code that answers: the build's source hash (dist/build-info.json, written by
 * tools/build), or, running from source, a hash of the source files. Other code may answer
 * the same data differently, so a deployment must change every validator.
 */
function answeringCode(): string {
  if (codeVersion !== undefined) return codeVersion;
  // This file is two levels below the root of the sources (or of the build).
  const dir = fileURLToPath(new URL('../..', import.meta.url));
  try {
    codeVersion = (JSON.parse(fs.readFileSync(path.join(dir, 'build-info.json'), 'utf8')) as { sourceHash: string }).sourceHash;
  } catch {
    const hash = crypto.createHash('sha256');
    const files = fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    for (const file of files.map((entry) => path.join(entry.parentPath, entry.name)).sort()) {
      hash.update(path.relative(dir, file)).update('\0').update(fs.readFileSync(file)).update('\0');
    }
    codeVersion = hash.digest('hex');
  }
  return codeVersion;
}

function headerNamed(headers: Record<string, string> | undefined, name: string): string | undefined {
  const key = Object.keys(headers ?? {}).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers![key];
}

function withoutHeader(headers: Record<string, string> | undefined, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).filter(([key]) => key.toLowerCase() !== name));
}

/** A GraphQL answer (a JSON object) that reports errors at its top level. */
function reportsErrors(response: DoorResponse): boolean {
  if (response.body === undefined || !/json/i.test(headerNamed(response.headers, 'content-type') ?? '')) return false;
  // Most answers are large and error-free: the search needs no decoded copy of them.
  if (!response.body.includes('"errors"')) return false;
  try {
    const parsed: unknown = JSON.parse(typeof response.body === 'string' ? response.body : response.body.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && 'errors' in parsed;
  } catch {
    return false;
  }
}

/** A 200 of `door` the validator may stand for (see the top of this file for what is left alone). */
function validatable(door: Door, response: DoorResponse): boolean {
  if (response.status !== 200) return false;
  if (headerNamed(response.headers, 'cache-control') !== undefined || headerNamed(response.headers, 'etag') !== undefined) return false;
  if (/^text\/event-stream/i.test(headerNamed(response.headers, 'content-type') ?? '')) return false;
  return !(door.answersGraphQL && reportsErrors(response));
}

/** Vary naming `names` besides what it named already. */
function varying(headers: Record<string, string> | undefined, names: string[]): string {
  const existing = (headerNamed(headers, 'vary') ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  if (existing.includes('*')) return '*';
  const known = new Set(existing.map((name) => name.toLowerCase()));
  return [...existing, ...names.filter((name) => !known.has(name.toLowerCase()))].join(', ');
}

/** Step 9: the answer, with a validator where it is a 200 of a GET, or 304 when the client's copy is current. */
export function validatorsStep(db: Database, secret: string, rateLimiter: RateLimiter): Step {
  /** The store's changes, and with replicas the WAL position an answer as current as them must be read at. */
  async function storeChanges(storeId: string): Promise<{ changes: StoreChanges[]; position?: bigint }> {
    if (db.replicas) return readStoreChangesWithPosition(db.replicas.current, storeId);
    return { changes: await readStoreChanges(db.sql, storeId) };
  }

  /** The tag of the answer this request gets now, from the changes it is made of. */
  function currentTag(caller: AuthContext, request: DoorRequest, changes: StoreChanges[]): string {
    const encoding = negotiateEncoding(request.headers['accept-encoding'] === undefined ? undefined : [request.headers['accept-encoding']].flat().join(','));
    const parts = [
      answeringCode(),
      new Date().toISOString().slice(0, 7),
      changes.map(({ storeId, changes: sum }) => `${storeId}=${sum}`).join(','),
      caller.store.id,
      caller.client.id,
      caller.merchantUser?.id ?? '',
      [...caller.scopes].sort().join(' '),
      request.method,
      request.url.pathname + request.url.search,
      header(request, 'accept') ?? '',
      encoding.coding ?? 'identity',
      ...ORIGIN_HEADERS.map((name) => header(request, name) ?? ''),
    ];
    const mac = crypto.createHmac('sha256', secret);
    for (const part of parts) mac.update(part).update('\0');
    return `"${mac.digest('base64url').slice(0, 27)}"`;
  }

  const varyOf = (request: DoorRequest) => (header(request, COMPAT_CREDENTIALS) === undefined ? VARY : [...VARY, COMPAT_CREDENTIALS]);

  function validated(response: DoorResponse, tag: string, request: DoorRequest): DoorResponse {
    const headers = withoutHeader(response.headers, 'vary');
    return { ...response, headers: { ...headers, etag: tag, 'cache-control': VALIDATED_CACHE_CONTROL, vary: varying(response.headers, varyOf(request)) } };
  }

  /** The 304 standing for `response` (a 200 with its validator headers). */
  function notModified(response: DoorResponse): DoorResponse {
    const headers: Record<string, string> = {};
    for (const name of NOT_MODIFIED_HEADERS) {
      const value = headerNamed(response.headers, name);
      if (value !== undefined) headers[name] = value;
    }
    for (const [name, value] of Object.entries(response.headers ?? {})) if (RATE_LIMIT_HEADER.test(name)) headers[name.toLowerCase()] = value;
    return { status: 304, headers };
  }

  return async ({ door, request }, handle) => {
      if (request.method !== 'GET' || door.answersWithEventStream?.(request)) return handle();
      const caller = request.auth && callerOf(request.auth);
      if (!caller) return handle();
      const condition = parseIfNoneMatch([request.headers['if-none-match'] ?? []].flat().join(', ') || undefined);
      if (!condition && !db.replicas) {
        // Nothing to compare before answering: the answer's first statement reads the changes along.
        const along = new ChangesAlong(caller.store.id, db.sql);
        const response = await readingChangesAlong(along, handle);
        return validatable(door, response) ? validated(response, currentTag(caller, request, await along.changes()), request) : response;
      }
      const { changes, position } = await storeChanges(caller.store.id);
      const tag = currentTag(caller, request, changes);
      if (condition && !condition.any && condition.tags.has(tag)) {
        const budget = await standingBudget(rateLimiter, door, caller);
        return notModified({ status: 200, headers: { ...budget, etag: tag, 'cache-control': VALIDATED_CACHE_CONTROL, vary: varyOf(request).join(', ') } });
      }
      const response = await (position === undefined ? handle() : readsReplayedTo(position, handle));
      const answer = validatable(door, response) ? validated(response, tag, request) : response;
      if (condition?.any && answer.status === 200) {
        // The answer exists, which is all `*` asks; its body is not sent.
        await response.stream?.[Symbol.asyncIterator]().return?.();
        return notModified(answer);
      }
      return answer;
  };
}
