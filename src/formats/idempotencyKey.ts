// The Idempotency-Key contract every API door states (both OpenAPI documents and the SDL)
// and the pipeline's idempotency step keeps (src/http/idempotency.ts).
export const IDEMPOTENCY_KEY = 'Idempotency-Key';
export const REPLAYED = 'Idempotent-Replayed';
export const KEY_LIFETIME_HOURS = 24;
export const MAX_KEY_LENGTH = 255;
/** How long a duplicate waits for the first request with its key before it is told to retry. */
export const DUPLICATE_WAIT_MS = 10_000;
/** The rules as every interface document states them (both OpenAPI documents and the SDL). */
export const IDEMPOTENCY_KEY_RULES =
  `Every write takes an ${IDEMPOTENCY_KEY} header (1 to ${MAX_KEY_LENGTH} printable ASCII characters, bare or as a quoted structured-field string). ` +
  `Sent again by the same API client with the same request (method, target, content type and body) within ${KEY_LIFETIME_HOURS} hours, it is ` +
  `answered with the first answer (same status, body bytes and headers, plus \`${REPLAYED}: true\`) and nothing is written again; with a ` +
  `different request it is refused with 422. A duplicate sent while the first request with its key still runs waits for it (up to ` +
  `${DUPLICATE_WAIT_MS / 1000} s, then 409 with Retry-After). Only answers below 400 are kept: a refused request wrote nothing, so it may be ` +
  'sent again with the same key.';
