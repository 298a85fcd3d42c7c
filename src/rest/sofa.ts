// /v3/rest: SOFA's REST routes generated from the v3 schema, one per query and
// mutation (GET /v3/rest/customers, POST /v3/rest/customer-upsert, ...), and SOFA's
// OpenAPI document at /v3/rest/openapi.json. The door in front of SOFA gives them what
// /v3/graphql has: the same bearer authentication, the resolvers' scope rules (the
// schema enforces them), the REST rate limit, and failures as problem+json with the
// status of the error's code. v2.2 stays hand-written (see routes/index.ts).
import {
  GraphQLError,
  GraphQLObjectType,
  GraphQLSchema,
  isNonNullType,
  parse,
  printType,
  type ObjectTypeDefinitionNode,
} from 'graphql';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { createSofa, createSofaRouter } from 'sofa-api';
import { isAuthFailure, readSecret } from '../auth/authenticate.ts';
import { answerHeaders, bodyBytes, fetchHeaders, header, readRequestInput, type Door, type DoorRequest, type DoorResponse, type JsonBody } from '../http/door.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { classifyError } from '../schema/errors.ts';
import { schema } from '../schema/index.ts';
import type { DoorDeps } from '../http/appDeps.ts';
import { problem, REST_STATUS } from './problem.ts';
import { restRateHeaders } from './door.ts';
import { IDEMPOTENCY_KEY_RULES } from '../formats/idempotencyKey.ts';
import { describeSofaAnswers, documentIdempotencyKeys, documentRateLimits, documentValidators, isConnection, routeName, SOFA_SCALARS, sofaLinks, type SofaOpenApiDocument } from './sofaDocument.ts';
import { IF_NONE_MATCH_PARAMETER, NOT_MODIFIED_DESCRIPTION, RATE_HEADERS, RETRY_AFTER, VALIDATOR_HEADERS } from './openapi.ts';
import { documentExports } from './exportsDocument.ts';

export const SOFA_PREFIX = '/v3/rest';
const OPENAPI_PATH = `${SOFA_PREFIX}/openapi.json`;
/**
 * How often one type may recur along a generated selection. Building every route takes
 * about a second at 1 and a minute at 2, so 1.
 */
const SOFA_DEPTH_LIMIT = 1;

/** SOFA over the service's schema: its router, how its routes answer nested objects, and the schema it generated from. */
export function sofaRouter(config: Omit<Parameters<typeof createSofa>[0], 'schema' | 'depthLimit' | 'ignore' | 'customScalars'>) {
  const generated = sofaSchema(schema);
  const links = sofaLinks(generated);
  const sofa = createSofa({ ...config, schema: generated, depthLimit: SOFA_DEPTH_LIMIT, ignore: links.subjects, customScalars: SOFA_SCALARS });
  return { router: createSofaRouter({ ...sofa, models: [...links.models.keys()] }), links, generated };
}

/**
 * The schema SOFA generates from: the same resolvers, with three changes.
 * - Nested fields that need an argument (Product.attribute(name: String!)) are left out:
 *   SOFA would select them in every route that reaches them and require a variable no
 *   REST request carries, so those routes would always fail. Root fields keep theirs.
 * - A connection has no `nodes`: SOFA selects every field, so each item would be answered
 *   twice, once in `edges[].node` beside its cursor and once in `nodes`.
 * - Syntax nodes on the root types. Pothos builds types without them, and SOFA then
 *   prints and re-parses the whole Query or Mutation type once per variable of every
 *   route to find descriptions (seconds at start).
 */
function sofaSchema(of: GraphQLSchema): GraphQLSchema {
  const roots = new Set([of.getQueryType()?.name, of.getMutationType()?.name]);
  const needsArgument = (field: { args?: Record<string, { type: unknown; defaultValue?: unknown }> | null }) =>
    Object.values(field.args ?? {}).some((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined);
  const selectable = mapSchema(of, {
    [MapperKind.OBJECT_FIELD]: (field, name, typeName) =>
      (!roots.has(typeName) && needsArgument(field)) || (name === 'nodes' && isConnection(of.getType(typeName))) ? null : field,
  });
  const config = selectable.toConfig();
  const annotate = (type: GraphQLObjectType | null | undefined) =>
    type ? new GraphQLObjectType({ ...type.toConfig(), astNode: parse(printType(type)).definitions[0] as ObjectTypeDefinitionNode }) : type;
  const query = annotate(config.query);
  const mutation = annotate(config.mutation);
  const types = config.types.map((type) => (type === config.query ? query! : type === config.mutation ? mutation! : type));
  return new GraphQLSchema({ ...config, query, mutation, types });
}

function routeNames(of: GraphQLSchema): Set<string> {
  const fields = [...Object.keys(of.getQueryType()?.getFields() ?? {}), ...Object.keys(of.getMutationType()?.getFields() ?? {})];
  return new Set(fields.map(routeName));
}

/** The problem+json answer for the errors SOFA collected: the first error decides, as on v2.2. */
function problemResponse(errors: ReadonlyArray<unknown>): Response {
  const first = errors[0];
  // SOFA's own refusals (a body that is not JSON, a parameter that does not parse) carry their status.
  const sofaStatus = first instanceof GraphQLError ? (first.extensions?.http as { status?: number } | undefined)?.status : undefined;
  const classified = classifyError(first);
  const status = sofaStatus && classified.code === 'INTERNAL_SERVER_ERROR' ? sofaStatus : (REST_STATUS[classified.code] ?? 500);
  const message = sofaStatus && classified.code === 'INTERNAL_SERVER_ERROR' ? (first as GraphQLError).message : classified.message;
  const answer = problem(status, message, { errors: classified.issues });
  return new Response(answer.body as string, { status, headers: answer.headers });
}

export function createSofaDoor({ logger, newContext }: DoorDeps): Door {
  const names = routeNames(schema);
  // Built at the first /v3/rest request: it costs about a second and most processes never need it.
  let built: ReturnType<typeof sofaRouter> | undefined;
  const router = () => (built ??= buildRouter());
  const buildRouter = () => sofaRouter({
    basePath: SOFA_PREFIX,
    // The context's execute: planned where the planner can, else graphql-js's (traced when tracing is on).
    execute: (args) => (args.contextValue as GraphQLContext).services.execute(args),
    context: (serverContext) => (serverContext as unknown as { gqlContext: GraphQLContext }).gqlContext,
    errorHandler: (errors) => {
      const classified = classifyError(errors[0]);
      if (classified.code === 'INTERNAL_SERVER_ERROR' && !(errors[0] instanceof GraphQLError && errors[0].extensions?.http)) {
        logger.error('SOFA route failed', { error: classified.cause ?? errors[0] });
      }
      // SOFA's type is fets' Response; the platform's Response is what fets returns at run time.
      return problemResponse(errors) as never;
    },
    openAPI: {
      info: {
        title: 'Commerce back-office v3 REST (generated by SOFA)',
        version: '3',
        description:
          'Every v3 query (GET) and mutation (POST) as a REST route, generated from the GraphQL schema. Authenticate with `Authorization: Bearer <API secret>`; errors are application/problem+json.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    } as never,
    swaggerUI: { endpoint: false },
  });

  /** The route template for logs and metrics; unknown names share one label. */
  function template(pathname: string): string | undefined {
    if (pathname === OPENAPI_PATH) return OPENAPI_PATH;
    const [name, id, ...rest] = pathname.slice(SOFA_PREFIX.length + 1).split('/');
    if (!names.has(name) || rest.length > 0) return undefined;
    return `${SOFA_PREFIX}/${name}${id !== undefined ? '/:id' : ''}`;
  }

  async function viaSofa(request: DoorRequest, gqlContext: GraphQLContext | undefined): Promise<DoorResponse | undefined> {
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD' && request.body.length > 0;
    const response = await router().router.fetch(
      request.url.toString(),
      { method: request.method, headers: fetchHeaders(request), body: hasBody ? new Uint8Array(request.body) : undefined },
      { gqlContext } as never,
    );
    // fets answers nothing when no route matches (its landing page is off).
    if (!response) return undefined;
    const out = answerHeaders(response);
    return { status: response.status, headers: out, body: await bodyBytes(response) };
  }

  let documented: DoorResponse | undefined;
  /** SOFA's document, describing what the routes answer (sofaDocument.ts); made once. */
  async function openApiDocument(request: DoorRequest): Promise<DoorResponse | undefined> {
    if (documented) return documented;
    const response = await viaSofa(request, undefined);
    if (!response || response.status !== 200 || !response.body) return response;
    const { links, generated } = router();
    const document = documentValidators(
      documentIdempotencyKeys(
        documentRateLimits(
          documentExports(describeSofaAnswers(JSON.parse(response.body.toString()) as SofaOpenApiDocument, generated, links, { basePath: SOFA_PREFIX, depthLimit: SOFA_DEPTH_LIMIT })),
          RATE_HEADERS,
          RETRY_AFTER,
        ),
        IDEMPOTENCY_KEY_RULES,
      ),
      { headers: VALIDATOR_HEADERS, parameter: IF_NONE_MATCH_PARAMETER, notModified: NOT_MODIFIED_DESCRIPTION },
    );
    // The body changed, so no length SOFA computed for its own may go along.
    const headers = Object.fromEntries(Object.entries(response.headers ?? {}).filter(([name]) => name !== 'content-length'));
    documented = { status: 200, headers, body: JSON.stringify(document) };
    return documented;
  }

  /** The path (its segments decoded, as SOFA reads them), query and body through the door's input check. */
  function sofaInput(request: DoorRequest): JsonBody {
    let path: string;
    try {
      path = decodeURIComponent(request.url.pathname);
    } catch {
      return { ok: false, message: 'the path is not valid percent-encoded UTF-8', issues: [{ path: 'path', message: 'is not valid percent-encoded UTF-8' }] };
    }
    return readRequestInput(request, { path });
  }

  /** A request spends the budget once it names a route, its input reads and its caller is known; the refusals before that spend nothing. */
  function spends(request: DoorRequest): boolean {
    const { pathname } = request.url;
    return pathname !== OPENAPI_PATH && template(pathname) !== undefined && sofaInput(request).ok && request.auth !== undefined && !isAuthFailure(request.auth);
  }

  async function handle(request: DoorRequest): Promise<DoorResponse> {
    const { pathname } = request.url;
    const instance = pathname + request.url.search;
    const route = template(pathname);
    const notFound = () => problem(404, `no route for ${request.method} ${pathname}`, { instance });
    if (pathname === OPENAPI_PATH && request.method === 'GET') return (await openApiDocument(request)) ?? notFound();
    if (!route) return notFound();
    const input = sofaInput(request);
    if (!input.ok) return problem(400, input.message, { instance, errors: input.issues });

    const auth = request.auth!;
    if (isAuthFailure(auth)) return problem(auth.status, auth.message, { instance });
    const gqlContext = newContext({ auth, door: 'v3', requestId: request.requestId });
    const response = await viaSofa(request, gqlContext);
    // The name exists but not with this method or shape (GET on a mutation, an id SOFA does not take, ...).
    if (!response || (response.status === 404 && !/problem\+json/.test(response.headers?.['content-type'] ?? ''))) return notFound();
    // A query by id answers null for an id that is unknown or another store's: on REST that subject does not exist.
    // (The length first: a page's answer is not decoded to be compared with four bytes.)
    if (request.method === 'GET' && response.status === 200 && response.body?.length === 4 && response.body.toString() === 'null') {
      return problem(404, `no ${route.slice(SOFA_PREFIX.length + 1).split('/')[0]} with that id in this store`, { instance });
    }
    if (/problem\+json/.test(response.headers?.['content-type'] ?? '') && response.body) {
      const body = JSON.parse(response.body.toString());
      return { ...response, body: JSON.stringify({ ...body, instance }) };
    }
    return response;
  }

  return {
    name: 'sofa',
    matches: (pathname) => pathname === SOFA_PREFIX || pathname.startsWith(`${SOFA_PREFIX}/`),
    reject: (status, message, request) => problem(status, message, { instance: request.url.pathname + request.url.search }),
    credentials: (request) => readSecret(header(request, 'authorization')),
    budget: { name: 'rest', headers: restRateHeaders, spentBy: spends },
    routeOf: (request) => template(request.url.pathname),
    handle,
  };
}
