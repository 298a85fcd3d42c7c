// Step 10: an authenticated caller spends one request of the door's budget (auth/rateLimit.ts);
// the answer carries the budget as it stands in the door's headers, and a spent budget is a 429
// in the door's format with Retry-After. Last before the door, so an answer given earlier (a
// replay, a 304) spends nothing; a request without a valid caller has no budget to spend, and
// one the door refuses before its route (Door.budget.spentBy) spends nothing either.
import { callerOf, type AuthContext } from '../../auth/authenticate.ts';
import type { RateLimiter } from '../../auth/rateLimit.ts';
import type { Metrics } from '../../observability/metrics.ts';
import type { Door } from '../door.ts';
import type { Step } from '../step.ts';

export function rateLimitStep(rateLimiter: RateLimiter, metrics: Metrics): Step {
  return async ({ door, request }, next) => {
    const caller = request.auth && callerOf(request.auth);
    if (!door.budget || !caller || !door.budget.spentBy(request)) return next();
    const rate = await rateLimiter.consume(caller.client.id, door.budget.name);
    const headers = door.budget.headers(rate);
    if (!rate.allowed) {
      metrics.rateLimitRefused(door.budget.name);
      const refused = door.reject(429, `rate limit of ${rate.limit} requests per minute exceeded`, request);
      return { ...refused, headers: { ...refused.headers, ...headers, 'retry-after': String(rate.retryAfter) } };
    }
    const response = await next();
    return { ...response, headers: { ...headers, ...response.headers } };
  };
}

/** The caller's budget as it stands, nothing spent, in the door's headers: for an answer given without running the door (a 304). */
export async function standingBudget(rateLimiter: RateLimiter, door: Door, caller: AuthContext): Promise<Record<string, string>> {
  return door.budget ? door.budget.headers(await rateLimiter.standing(caller.client.id, door.budget.name)) : {};
}
