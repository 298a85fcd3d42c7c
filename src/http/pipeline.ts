// The steps every request to a door passes through, in the order they run. Each step gets the
// exchange and `next` (the steps after it, then the door) and returns the answer; one that
// answers without calling `next` ends the request there. Read top to bottom:
//
//  1. trace        the request's server span (only when traces are exported)
//  2. answer       writes the answer (streamed as the client takes it), then counts it in the
//                  metrics and writes the access log line, under the route the door names
//  3. compress     the answer in the coding the client asked for (br, gzip), body or stream
//  4. body         reads the body once, within MAX_BODY_BYTES, decoding a compressed one;
//                  ends early: 413, 415 in the door's format
//  5. failures     a failure thrown below, in the door's format: the database unavailable is
//                  503 with Retry-After, bytes it refused are 400, anything else 500 (logged)
//  6. scope        the request scope (request id, door, later the actor) that logs, the audit
//                  trail and replica routing read
//  7. guard        authenticates the door's credentials once; every step after and the door
//                  read the result from request.auth (a refusal is the door's to answer)
//  8. idempotency  a write with an Idempotency-Key: runs in one transaction with its stored
//                  answer; ends early: the stored answer replayed, 422, 409
//  9. validators   ETag on a GET's 200; ends early: 304 when the client's copy is current
// 10. rate limit   spends the caller's budget where the door says the request reached a route
//                  its caller may use, and adds its headers; ends early: 429
//     door         the door's routes, its authorisation and its error format
//
// So a replay (8) and a 304 (9) are answered without spending the rate limit (10), and
// whatever a request costs, it authenticates once.
import type { AppDeps } from './appDeps.ts';
import type { DoorResponse } from './door.ts';
import type { Exchange, Step } from './step.ts';
import { answerStep } from './steps/answer.ts';
import { bodyStep } from './steps/body.ts';
import { compressStep } from './steps/compress.ts';
import { failuresStep } from './steps/failures.ts';
import { guardStep } from './steps/guard.ts';
import { idempotencyStep } from './steps/idempotency.ts';
import { rateLimitStep } from './steps/rateLimit.ts';
import { scopeStep } from './steps/scope.ts';
import { traceStep } from './steps/trace.ts';
import { validatorsStep } from './steps/validators.ts';

/** The steps, in the order above, for the server made of these parts. */
export function requestSteps(deps: AppDeps): Step[] {
  return [
    ...(deps.tracing ? [traceStep(deps.tracing.tracer)] : []),
    answerStep(deps.metrics, deps.logger),
    compressStep,
    bodyStep,
    failuresStep(deps.logger),
    scopeStep,
    guardStep(deps.authenticator),
    idempotencyStep(deps.db, deps.logger),
    validatorsStep(deps.db, deps.config.cursorSecret, deps.rateLimiter),
    rateLimitStep(deps.rateLimiter, deps.metrics),
  ];
}

/** Runs the exchange through the steps, then its door. */
export function runSteps(steps: readonly Step[], exchange: Exchange): Promise<DoorResponse> {
  const from = (index: number): Promise<DoorResponse> =>
    index === steps.length ? exchange.door.handle(exchange.request) : steps[index](exchange, () => from(index + 1));
  return from(0);
}
