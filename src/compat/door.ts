// The warehouse compatibility door (/api/v1/warehouse/...): authentication with
// `Authorization: Bearer` or `X-Authorization`, returns_read for GET and
// returns_write for POST, the 300/min rate limit, and the other platform's error
// bodies. Routes map its shapes to GraphQL operations (src/compat/routes/*).
import { authorizeScopes, callerOf, isAuthFailure, readSecret } from '../auth/authenticate.ts';
import { rateLimitFields } from '../auth/rateLimit.ts';
import { header, readRequestInput, type Door, type DoorRequest, type DoorResponse } from '../http/door.ts';
import { RouteTable } from '../http/routeTable.ts';
import { createContext } from '../schema/context.ts';
import type { AppDeps } from '../http/door.ts';
import { compatError } from './errors.ts';
import { compatRoutes } from './routes/index.ts';

export const COMPAT_PREFIX = '/api/v1/warehouse';

const withHeaders = (response: DoorResponse, headers: Record<string, string>): DoorResponse => ({ ...response, headers: { ...headers, ...response.headers } });

export function createCompatDoor(deps: AppDeps): Door {
  const { db, logger } = deps;
  const table = new RouteTable(compatRoutes);

  /** `Authorization: Bearer`, or the other platform's `X-Authorization` with a bare secret. */
  function authenticate(request: DoorRequest) {
    const bearer = header(request, 'authorization');
    const secret = bearer !== undefined ? readSecret(bearer) : readSecret(header(request, 'x-authorization'), { allowBare: true });
    return deps.authenticator.authenticate(secret);
  }

  async function handle(request: DoorRequest): Promise<DoorResponse> {
    const path = request.url.pathname.slice(COMPAT_PREFIX.length) || '/';
    const matched = table.match(request.method, path);
    if (!matched) return compatError(404, `no route for ${request.method} ${request.url.pathname}`);
    if ('allowed' in matched) {
      return compatError(405, `${request.method} is not allowed on ${request.url.pathname}`, {
        allow: [...new Set(matched.allowed)].join(', '),
      });
    }
    const { route, params, malformed } = matched;
    const auth = await authenticate(request);
    if (isAuthFailure(auth)) return compatError(401, auth.message);
    const scopeDenied = authorizeScopes(auth, route.scopes);
    if (scopeDenied) return compatError(403, scopeDenied.message);

    const rate = await deps.rateLimiter.consume(auth.client.id, 'compat');
    // The other platform sends no rate-limit headers; the IETF fields tell the budget without touching its shapes.
    const rateHeaders = rateLimitFields('compat', rate);
    if (!rate.allowed) {
      deps.metrics.rateLimitRefused('compat');
      return compatError(429, `rate limit of ${rate.limit} requests per minute exceeded`, { ...rateHeaders, 'retry-after': String(rate.retryAfter) });
    }
    const body = readRequestInput(request, params, malformed);
    if (!body.ok) return withHeaders(compatError(422, body.message), rateHeaders);

    const ctx = createContext({ db, auth, door: 'compat', logger, requestId: request.requestId });
    const response = await route.handle({
      request,
      params,
      query: request.url.searchParams,
      body: body.value,
      ctx,
      instance: request.url.pathname + request.url.search,
    });
    return withHeaders(response, rateHeaders);
  }

  return {
    name: 'compat',
    matches: (pathname) => pathname === COMPAT_PREFIX || pathname.startsWith(`${COMPAT_PREFIX}/`),
    reject: (status, message) => compatError(status === 400 ? 422 : status, message),
    caller: async (request) => callerOf(await authenticate(request)),
    rateLimitHeaders: async (caller) => rateLimitFields('compat', await deps.rateLimiter.standing(caller.client.id, 'compat')),
    routeOf: (request) => {
      const matched = table.match(request.method, request.url.pathname.slice(COMPAT_PREFIX.length) || '/');
      return matched && 'route' in matched ? COMPAT_PREFIX + matched.route.path : undefined;
    },
    handle,
  };
}
