// The route table of the REST and compat doors: its shape and matcher. Each route names its scopes and runs a
// GraphQL operation against the schema (see the route modules); the door does
// authentication, store and scope checks, rate limits and error formatting.
import type { Scope } from '../auth/scopes.ts';
import type { DoorRequest, DoorResponse } from './door.ts';
import type { GraphQLContext } from '../schema/context.ts';

export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';

export interface RouteInput {
  request: DoorRequest;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body (undefined when empty). */
  body: unknown;
  /** Context for running operations; `auth` is null only on public routes. */
  ctx: GraphQLContext;
  /** Path + query of this request, for problem `instance`. */
  instance: string;
}

/** A JSON Schema (draft 2020-12, as OpenAPI 3.1 uses). */
export type JsonSchema = Record<string, unknown>;

/** What the OpenAPI document says of a route; rest/openapi.ts assembles the document from these. */
export interface RouteDoc {
  summary: string;
  tag: string;
  description?: string;
  /** Query and header parameters (path parameters are derived from the path). */
  parameters?: { name: string; in: 'query' | 'header'; required?: boolean; description?: string; schema: JsonSchema }[];
  requestBody?: { required: boolean; schema: JsonSchema; description?: string };
  /** By status code. `problem: true` means an application/problem+json body. */
  responses: Record<
    string,
    {
      description: string;
      schema?: JsonSchema;
      problem?: boolean;
      /** A body in another media type than JSON (text/csv, text/html), or problem details sent as application/json. */
      mediaType?: string;
      headers?: Record<string, { description: string; schema: JsonSchema }>;
    }
  >;
}

export interface Route {
  method: HttpMethod;
  /** Relative to /v2.2, with `{name}` parameters: `/stores/{storeId}/customers`. */
  path: string;
  scopes: readonly Scope[];
  /** Served without credentials (the OpenAPI document). */
  public?: boolean;
  /**
   * `problem` (default): problem+json everywhere. `error`: `{error}` bodies for the
   * failures order creation's integrations expect (400, 401, 409).
   */
  errorStyle?: 'problem' | 'error';
  /** The statuses `errorStyle: 'error'` answers as `{error}` (default 400, 401, 409); others stay problem+json. */
  errorStatuses?: readonly number[];
  /**
   * Error statuses the reference document declares as `application/json` for this
   * operation: the problem body is the same, only its media type is application/json.
   */
  jsonErrorStatuses?: readonly number[];
  /** OpenAPI description (REST routes). */
  doc?: RouteDoc;
  /** The route reads Idempotency-Key itself, as its reference operation describes it (Door.ownsIdempotencyKey). */
  ownsIdempotencyKey?: boolean;
  handle(input: RouteInput): Promise<DoorResponse>;
}

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
}

export class RouteTable {
  private readonly compiled: CompiledRoute[];

  constructor(routes: Route[]) {
    this.compiled = routes.map((route) => {
      const names: string[] = [];
      const source = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
        names.push(name);
        return '([^/]+)';
      });
      return { route, names, pattern: new RegExp(`^${source}/?$`) };
    });
  }

  /**
   * The route for this method and path; `allowed` lists methods when only the path matched.
   * A parameter that is not valid percent-encoded UTF-8 is `malformed` (named), for the door's 400.
   */
  match(method: string, path: string): { route: Route; params: Record<string, string>; malformed?: string } | { allowed: string[] } | undefined {
    const allowed: string[] = [];
    for (const { route, pattern, names } of this.compiled) {
      const m = pattern.exec(path);
      if (!m) continue;
      if (route.method !== method && !(method === 'HEAD' && route.method === 'GET')) {
        allowed.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      for (const [i, name] of names.entries()) {
        try {
          params[name] = decodeURIComponent(m[i + 1]);
        } catch {
          return { route, params, malformed: name };
        }
      }
      return { route, params };
    }
    return allowed.length > 0 ? { allowed } : undefined;
  }

  get routes(): Route[] {
    return this.compiled.map((c) => c.route);
  }
}
