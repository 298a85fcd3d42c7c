// The warehouse compatibility door (/api/v1/warehouse/...): authentication with
// `Authorization: Bearer` or `X-Authorization`, returns_read for GET and
// returns_write for POST, the 300/min rate limit, and the other platform's error
// bodies. Routes map its shapes to GraphQL operations (src/compat/routes/*).
import { authorizeScopes, isAuthFailure, readSecret } from '../auth/authenticate.ts';
import { rateLimitFields } from '../auth/rateLimit.ts';
import { header, readRequestInput, type Door, type DoorRequest, type DoorResponse } from '../http/door.ts';
import { RouteTable } from '../http/routeTable.ts';
import type { DoorDeps } from '../http/appDeps.ts';
import { compatError } from './errors.ts';
import { compatRoutes } from './routes/index.ts';

export const COMPAT_PREFIX = '/api/v1/warehouse';

export function createCompatDoor({ newContext }: DoorDeps): Door {
  const table = new RouteTable(compatRoutes);

  /** `Authorization: Bearer`, or the other platform's `X-Authorization` with a bare secret. */
  function credentials(request: DoorRequest) {
    const bearer = header(request, 'authorization');
    return bearer !== undefined ? readSecret(bearer) : readSecret(header(request, 'x-authorization'), { allowBare: true });
  }

  /** A request spends the budget once it reaches a route its caller may use: unknown routes, bad credentials and missing scopes spend nothing. */
  function spends(request: DoorRequest): boolean {
    const matched = table.match(request.method, request.url.pathname.slice(COMPAT_PREFIX.length) || '/');
    const auth = request.auth;
    return matched !== undefined && 'route' in matched && auth !== undefined && !isAuthFailure(auth) && authorizeScopes(auth, matched.route.scopes) === undefined;
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
    const auth = request.auth!;
    if (isAuthFailure(auth)) return compatError(401, auth.message);
    const scopeDenied = authorizeScopes(auth, route.scopes);
    if (scopeDenied) return compatError(403, scopeDenied.message);

    const body = readRequestInput(request, params, malformed);
    if (!body.ok) return compatError(422, body.message);

    const ctx = newContext({ auth, door: 'compat', requestId: request.requestId });
    return route.handle({
      request,
      params,
      query: request.url.searchParams,
      body: body.value,
      ctx,
      instance: request.url.pathname + request.url.search,
    });
  }

  return {
    name: 'compat',
    matches: (pathname) => pathname === COMPAT_PREFIX || pathname.startsWith(`${COMPAT_PREFIX}/`),
    reject: (status, message) => compatError(status === 400 ? 422 : status, message),
    credentials,
    // The other platform sends no rate-limit headers; the IETF fields tell the budget without touching its shapes.
    budget: { name: 'compat', headers: (rate) => rateLimitFields('compat', rate), spentBy: spends },
    routeOf: (request) => {
      const matched = table.match(request.method, request.url.pathname.slice(COMPAT_PREFIX.length) || '/');
      return matched && 'route' in matched ? COMPAT_PREFIX + matched.route.path : undefined;
    },
    handle,
  };
}
