// Idempotency-Key on every write of every API door, built once here where every request
// passes (draft-ietf-httpapi-idempotency-key-header-07, with Stripe's behaviour):
// - the first request with a key runs inside one transaction that also stores its answer
//   (status, the headers that matter, the exact body bytes), so a crash cannot keep the
//   write without its answer or the answer without its write;
// - the same client sending the same request with that key again gets that answer again,
//   byte for byte, with `Idempotent-Replayed: true`, and nothing runs;
// - the same key with a different request (method, target, content type or body) is 422;
// - a duplicate arriving while the first is still running waits for it (the first claims the
//   key by inserting its row as its transaction begins, and the duplicate's insert of the same
//   key waits on that row, so it holds across instances), then is answered with the first
//   one's answer; if the first takes longer than the wait, 409 with Retry-After;
// - only answers of requests that were carried out (below 400) are kept: a refused request
//   wrote nothing, so sending it again with the same key runs it again;
// - keys belong to the API client and are kept KEY_LIFETIME_HOURS, then pruned.
import crypto from 'node:crypto';
import { callerOf } from '../../auth/authenticate.ts';
import { header, type Door, type DoorRequest, type DoorResponse } from '../door.ts';
import type { Step } from '../step.ts';
import type { Database } from '../../db/database.ts';
import { inRequestTransaction } from '../../db/requestTransaction.ts';
import type { Logger } from '../../observability/logger.ts';
import { DUPLICATE_WAIT_MS, IDEMPOTENCY_KEY, KEY_LIFETIME_HOURS, MAX_KEY_LENGTH, REPLAYED } from '../../formats/idempotencyKey.ts';

/** A request holding a key gets this long, like the domain's own transactions plus the answer. */
const REQUEST_TIMEOUT_MS = 60_000;
const CONFLICT_RETRY_AFTER_SECONDS = 1;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Headers that describe this delivery of the answer, not the answer: a replay gets its own. */
const NOT_REPLAYED = /^(x-request-id|date|connection|keep-alive|transfer-encoding|content-length|content-encoding|vary|x-ratelimit-.*|ratelimit(-policy)?|retry-after)$/i;

/** Visible printable ASCII (a structured-field string without its quotes may also hold spaces), 1 to 255 characters. */
const KEY_SHAPE = /^[\x20-\x7e]{1,255}$/;

type ParsedKey = { ok: true; key: string } | { ok: false; message: string };

/** The header as the draft writes it (a quoted structured-field string) or bare, as Stripe's clients send it. */
export function parseIdempotencyKey(value: string): ParsedKey {
  const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(value.trim());
  const key = quoted ? quoted[1].replace(/\\(["\\])/g, '$1') : value.trim();
  if (!KEY_SHAPE.test(key)) return { ok: false, message: `${IDEMPOTENCY_KEY} must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters` };
  return { ok: true, key };
}

interface StoredAnswer {
  fingerprint: string;
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** Thrown inside the transaction to end it without keeping anything, carrying what to answer. */
class Unkept {
  constructor(readonly response: DoorResponse) {}
}

function fingerprintOf(request: DoorRequest): string {
  return crypto
    .createHash('sha256')
    .update(`${request.method} ${request.url.pathname}${request.url.search}\n${header(request, 'content-type') ?? ''}\n`)
    .update(request.body)
    .digest('hex');
}

function replayedHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).filter(([name]) => !NOT_REPLAYED.test(name)));
}

function replay(stored: StoredAnswer): DoorResponse {
  return { status: stored.status, headers: { ...stored.headers, [REPLAYED.toLowerCase()]: 'true' }, body: Buffer.from(stored.body) };
}

/** Lock wait ran out (PostgreSQL's lock_timeout). */
const isLockTimeout = (error: unknown) => /55P03|lock timeout/i.test(String((error as { code?: string; message?: string })?.code ?? '') + String((error as Error)?.message ?? ''));

/**
 * The key claimed for this request in one statement: its row inserted with a placeholder
 * answer (or an expired one taken over), or nothing when a live answer is kept under it.
 * A duplicate's insert waits on the row of a first request still running, bounded by
 * lock_timeout (set just for the claim, then set back to what it was, so the request's own
 * work waits for its locks as it always does); PGlite has one connection, so nothing there
 * ever waits.
 * Fewer statements matter here: each is a round trip inside the request's transaction, and
 * a keyed write first cost twice an unkeyed one's CPU (bench/idempotency.ts).
 */
function claimSql(boundedWait: boolean): string {
  const claim = `
  INSERT INTO "IdempotentRequest" ("clientId", key, "storeId", fingerprint, status, headers, body, "expiresAt")
  SELECT $1, $2, $3, $4, 0, '{}'::jsonb, ''::bytea, now() + make_interval(hours => ${KEY_LIFETIME_HOURS})${boundedWait ? ' FROM bounded' : ''}
  ON CONFLICT ("clientId", key) DO UPDATE SET
    "storeId" = EXCLUDED."storeId", fingerprint = EXCLUDED.fingerprint, status = EXCLUDED.status,
    headers = EXCLUDED.headers, body = EXCLUDED.body, "createdAt" = now(), "expiresAt" = EXCLUDED."expiresAt"
  WHERE "IdempotentRequest"."expiresAt" <= now()
  RETURNING 1`;
  if (!boundedWait) return `WITH claimed AS (${claim}) SELECT count(*)::int AS claimed FROM claimed`;
  // `previous` is read as the insert first asks for `bounded`; the aggregate in FROM finishes the
  // insert (and its wait) before the outer set_config puts the setting back.
  return `WITH previous AS MATERIALIZED (SELECT current_setting('lock_timeout') AS value),
bounded AS (SELECT set_config('lock_timeout', '${DUPLICATE_WAIT_MS}', true) FROM previous), claimed AS (${claim})
SELECT c.claimed, set_config('lock_timeout', (SELECT value FROM previous), true) AS "lockTimeout" FROM (SELECT count(*)::int AS claimed FROM claimed) c`;
}

/** Step 8: answers a keyed write through the steps after it, or from the answer kept for its key. */
export function idempotencyStep(db: Database, logger: Logger): Step {
  const boundedWait = db.kind === 'postgresql';
  const CLAIM_SQL = claimSql(boundedWait);

  async function answer(door: Door, request: DoorRequest, run: () => Promise<DoorResponse>): Promise<DoorResponse> {
    const value = header(request, IDEMPOTENCY_KEY);
    if (value === undefined || SAFE_METHODS.has(request.method) || door.ownsIdempotencyKey?.(request)) return run();
    const parsed = parseIdempotencyKey(value);
    if (!parsed.ok) return door.reject(400, parsed.message, request);
    const caller = request.auth && callerOf(request.auth);
    // Without a caller the door answers 401/403 itself; keys belong to API clients.
    if (!caller) return run();
    const { key } = parsed;
    const clientId = caller.client.id;
    const fingerprint = fingerprintOf(request);
    try {
      return await inRequestTransaction(
        db.prisma,
        async (tx) => {
          const [{ claimed }] = await tx.$queryRawUnsafe<{ claimed: number }[]>(CLAIM_SQL, clientId, key, caller.store.id, fingerprint);
          if (claimed === 0) {
            // A new statement, so it sees the answer of the request it waited for.
            const [kept] = await tx.$queryRaw<StoredAnswer[]>`
              SELECT fingerprint, status, headers, body FROM "IdempotentRequest" WHERE "clientId" = ${clientId} AND key = ${key}`;
            if (kept.fingerprint !== fingerprint) {
              throw new Unkept(door.reject(422, `the ${IDEMPOTENCY_KEY} "${key}" was already used with a different request`, request));
            }
            throw new Unkept(replay(kept));
          }
          const response = await run();
          if (response.status >= 400) throw new Unkept(response);
          // A streamed answer (a subscription sent as POST) is not a write's answer: what ran is kept, the stream is not.
          if (response.stream) {
            await tx.$executeRaw`DELETE FROM "IdempotentRequest" WHERE "clientId" = ${clientId} AND key = ${key}`;
            return response;
          }
          const headers = replayedHeaders(response.headers);
          const body = Buffer.from(response.body ?? '');
          await tx.$executeRaw`
            UPDATE "IdempotentRequest" SET status = ${response.status}, headers = ${JSON.stringify(headers)}::jsonb, body = ${body}
            WHERE "clientId" = ${clientId} AND key = ${key}`;
          return response;
        },
        { timeoutMs: REQUEST_TIMEOUT_MS },
      );
    } catch (error) {
      if (error instanceof Unkept) return error.response;
      if (isLockTimeout(error)) {
        logger.warn('a request waited too long for an earlier one with its Idempotency-Key', { requestId: request.requestId, door: door.name });
        const refused = door.reject(409, `a request with the ${IDEMPOTENCY_KEY} "${key}" is still being processed; retry shortly`, request);
        return { ...refused, headers: { ...refused.headers, 'retry-after': String(CONFLICT_RETRY_AFTER_SECONDS) } };
      }
      throw error;
    }
  }

  return ({ door, request }, next) => answer(door, request, next);
}

/** Removes the keys past their lifetime, a batch per statement so no statement holds many row locks; returns how many. */
export async function pruneExpiredIdempotentRequests(db: Database, batch = 5_000): Promise<number> {
  let removed = 0;
  for (;;) {
    const deleted = await db.prisma.$executeRaw`
      DELETE FROM "IdempotentRequest" WHERE ctid IN (
        SELECT ctid FROM "IdempotentRequest" WHERE "expiresAt" <= now() LIMIT ${batch})`;
    removed += deleted;
    if (deleted < batch) return removed;
  }
}
