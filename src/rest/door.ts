// The v2.2 REST door: route matching, authentication, store and scope checks,
// rate limits, JSON parsing and problem+json errors. Routes themselves only map
// HTTP to a GraphQL operation and back (src/rest/routes/*).
import { authorizeScopes, authorizeStore, isAuthFailure, readSecret, type AuthContext, type AuthFailure } from '../auth/authenticate.ts';
import { rateLimitFields, type RateDecision } from '../auth/rateLimit.ts';
import { header, json, readRequestInput, type Door, type DoorRequest, type DoorResponse } from '../http/door.ts';
import type { DoorDeps } from '../http/appDeps.ts';
import { problem } from './problem.ts';
import type { FieldIssue } from '../schema/errors.ts';
import { RouteTable, type Route } from '../http/routeTable.ts';
import { restRoutes } from './routes/index.ts';

export const REST_PREFIX = '/v2.2';

/** Path and query as a URI reference (problem `instance`): what the URL parser leaves raw in a query (`[`, `]`, `|`, ...) is percent-encoded. */
function instanceOf(request: Pick<DoorRequest, 'url'>): string {
  return (request.url.pathname + request.url.search).replace(/[^A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]/g, (c) => encodeURIComponent(c));
}

/** The REST budget (one for /v2.2 and /v3/rest) as X-RateLimit-*, which integrations read, and as the IETF fields. */
export function restRateHeaders(rate: RateDecision): Record<string, string> {
  return { 'x-ratelimit-limit': String(rate.limit), 'x-ratelimit-remaining': String(rate.remaining), ...rateLimitFields('rest', rate) };
}

const ERROR_STYLE_STATUSES = [400, 401, 409];

function failure(route: Route | undefined, status: number, message: string, instance: string, headers?: Record<string, string>, errors?: FieldIssue[]): DoorResponse {
  if (route?.errorStyle === 'error' && (route.errorStatuses ?? ERROR_STYLE_STATUSES).includes(status)) {
    return json(status, { error: message }, headers);
  }
  return inDocumentedMediaType(route, problem(status, message, { instance, headers, errors }));
}

/** A problem answered as application/json where the reference document declares that media type for its status. */
function inDocumentedMediaType(route: Route | undefined, response: DoorResponse): DoorResponse {
  const contentType = response.headers?.['content-type'];
  if (!route?.jsonErrorStatuses?.includes(response.status) || !contentType?.startsWith('application/problem+json')) return response;
  return { ...response, headers: { ...response.headers, 'content-type': 'application/json; charset=utf-8' } };
}

export function createRestDoor({ newContext }: DoorDeps): Door {
  const table = new RouteTable(restRoutes);

  const matchedRoute = (request: Pick<DoorRequest, 'method' | 'url'>): Route | undefined => {
    const matched = table.match(request.method, request.url.pathname.slice(REST_PREFIX.length) || '/');
    return matched && 'route' in matched ? matched.route : undefined;
  };

  /** Why the caller may not use this route (401, another store's 403, a missing scope's 403), if it may not. */
  function denial(request: DoorRequest, route: Route, params: Record<string, string>): AuthFailure | undefined {
    const auth = request.auth!;
    if (isAuthFailure(auth)) return { ...auth, status: 401 };
    return (params.storeId !== undefined ? authorizeStore(auth, params.storeId) : undefined) ?? authorizeScopes(auth, route.scopes);
  }

  /** A request spends the budget once it reaches a route its caller may use; the refusals before that spend nothing. */
  function spends(request: DoorRequest): boolean {
    const matched = table.match(request.method, request.url.pathname.slice(REST_PREFIX.length) || '/');
    return matched !== undefined && 'route' in matched && !matched.route.public && denial(request, matched.route, matched.params) === undefined;
  }

  async function handle(request: DoorRequest): Promise<DoorResponse> {
    const instance = instanceOf(request);
    const path = request.url.pathname.slice(REST_PREFIX.length) || '/';
    const matched = table.match(request.method, path);
    if (!matched) return problem(404, `no route for ${request.method} ${request.url.pathname}`, { instance });
    if ('allowed' in matched) {
      return problem(405, `${request.method} is not allowed on ${request.url.pathname}`, {
        instance,
        headers: { allow: [...new Set(matched.allowed)].join(', ') },
      });
    }
    const { route, params, malformed } = matched;
    if (route.public) {
      const body = readRequestInput(request, params, malformed);
      if (!body.ok) return failure(route, 400, body.message, instance, undefined, body.issues);
      const ctx = newContext({ auth: null, door: 'rest', requestId: request.requestId });
      return route.handle({ request, params, query: request.url.searchParams, body: body.value, ctx, instance });
    }

    const denied = denial(request, route, params);
    if (denied) return failure(route, denied.status, denied.message, instance);
    const auth = request.auth as AuthContext;

    const body = readRequestInput(request, params, malformed);
    if (!body.ok) return failure(route, 400, body.message, instance, undefined, body.issues);

    const ctx = newContext({ auth, door: 'rest', requestId: request.requestId });
    return inDocumentedMediaType(route, await route.handle({ request, params, query: request.url.searchParams, body: body.value, ctx, instance }));
  }

  return {
    name: 'rest',
    matches: (pathname) => pathname === REST_PREFIX || pathname.startsWith(`${REST_PREFIX}/`),
    // In the media type the reference declares for the route's status, as handle()'s own refusals are.
    reject: (status, message, request) => failure(matchedRoute(request), status, message, instanceOf(request)),
    routeOf: (request) => {
      const route = matchedRoute(request);
      return route && REST_PREFIX + route.path;
    },
    credentials: (request) => readSecret(header(request, 'authorization')),
    budget: { name: 'rest', headers: restRateHeaders, spentBy: spends },
    ownsIdempotencyKey: (request) => matchedRoute(request)?.ownsIdempotencyKey === true,
    handle,
  };
}
