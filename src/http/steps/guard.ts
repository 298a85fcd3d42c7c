// Step 7: the caller authenticated once, from the credentials the door reads its own way.
// Every later step (idempotency keys belong to the caller, validators are the caller's, the
// budget is the caller's) and the door read request.auth; none authenticates again. A refusal
// is left to the door, which knows whether the route needs a caller and how to say no.
import type { Authenticator } from '../../auth/authenticate.ts';
import type { Step } from '../step.ts';

export function guardStep(authenticator: Authenticator): Step {
  return async (exchange, next) => {
    const { door, request } = exchange;
    if (door.credentials) exchange.request = { ...request, auth: await authenticator.authenticate(door.credentials(request)) };
    return next();
  };
}
