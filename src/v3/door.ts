// The v3 door: graphql-yoga serving the schema at /v3/graphql, the SDL at
// /v3/schema.graphql, GraphiQL for browsers. Authentication runs before yoga.
// GraphiQL's page comes whole from @graphql-yoga/render-graphiql (its scripts and
// styles inlined), so it works without internet access. That module holds ~30 MB of
// heap once loaded, so it is loaded at the first request for the page, not at start.
// Subscriptions are answered as server-sent events (yoga's), streamed as the client reads.
// Operations may be sent by hash (automatic persisted queries on a store every instance
// shares), or, with GRAPHQL_TRUSTED_DOCUMENTS, only by the id of a trusted document
// (persistedQueries.ts).
import { createGraphQLError, createYoga, type GraphQLParams, type Plugin } from 'graphql-yoga';
import { execute, getOperationAST, parse, printSchema, subscribe } from 'graphql';
import { schema } from '../schema/index.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { classifyError, toGraphQLError } from '../schema/errors.ts';
import { readSecret, isAuthFailure } from '../auth/authenticate.ts';
import { answerHeaders, bodyBytes, fetchHeaders, header, json, parseJsonBody, type Door, type DoorRequest, type DoorResponse } from '../http/door.ts';
import type { DoorDeps } from '../http/appDeps.ts';
import { graphqlLimitPlugins } from './limits.ts';
import { openStreamsUpTo, streamAccess } from '../live/openStreams.ts';
import { isPersistedOperationRefusal, persistedOperations } from './persistedQueries.ts';

const ENDPOINT = '/v3/graphql';
const SDL_PATH = '/v3/schema.graphql';

const GRAPHIQL_QUERY = `# Requests need your API secret: replace the placeholder in the
# Authorization header (Headers tab below) with "Bearer <secret>".
# \`npm start\` prints the demo store's secret when it seeds demo data.
query FirstCustomers {
  customers(first: 5) {
    nodes { id email firstName lastName }
  }
}
`;

/** The error code of a request refused before it ran: a body too large or in a coding not read, or a database unavailable for a moment. */
const REJECTION_CODES: Record<number, string> = { 400: 'BAD_USER_INPUT', 409: 'CONFLICT', 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE', 422: 'UNPROCESSABLE', 503: 'UNAVAILABLE' };

function graphqlError(status: number, code: string, message: string): DoorResponse {
  return json(status, { errors: [{ message, extensions: { code } }] });
}

/**
 * v3 operations run on graphql-js's execute, the executor every other door runs
 * (runOperation), instead of yoga's default (@graphql-tools/executor): one executor, one
 * behaviour, and the read path's patches to it (patches/graphql+16.15.0.patch) apply here
 * too. The v3 inbound-shipment graph executed about a third faster on it. A query the read
 * planner serves (schema/planned.ts) skips the executor, as on the other doors. Subscriptions
 * too run graphql-js's, as the dashboard's do. First in the plugin list, so the tracing
 * plugin wraps it.
 */
export const graphqlJsExecution: Plugin = {
  onExecute: ({ setExecuteFn }) => setExecuteFn((args) => (args.contextValue as GraphQLContext).services.planner.execute(args, execute)),
  onSubscribe: ({ setSubscribeFn }) => setSubscribeFn(subscribe),
};

/** A JSON parameter of a GET (`variables`, `extensions`): text that is not JSON is the caller's bad input, as the same mistake in a POST body is. */
function jsonParameter(searchParams: URLSearchParams, name: 'variables' | 'extensions'): Record<string, unknown> | undefined {
  const text = searchParams.get(name);
  if (!text) return undefined;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw createGraphQLError(`"${name}" is not valid JSON: ${(error as Error).message}`, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
  }
}

/**
 * Yoga's own GET parser lets JSON.parse's SyntaxError escape, which every error mask reads as
 * the server's failure (INTERNAL_SERVER_ERROR, logged); this one refuses the text as yoga
 * refuses a POST's malformed parameters.
 */
const getParametersAsInput: Plugin = {
  onRequestParse: ({ request, setRequestParser }) => {
    if (request.method !== 'GET') return;
    setRequestParser((get): GraphQLParams => {
      const { searchParams } = new URL(get.url);
      return {
        operationName: searchParams.get('operationName') || undefined,
        query: searchParams.get('query') || undefined,
        variables: jsonParameter(searchParams, 'variables'),
        extensions: jsonParameter(searchParams, 'extensions'),
      };
    });
  },
};

/** The media types yoga answers a single result in (its regular result processor). */
const JSON_ANSWER_TYPES = ['application/graphql-response+json', 'application/json'];

/**
 * Whether yoga answers a query with this Accept as JSON, read as yoga reads it
 * (plugins/use-result-processor: its JSON processor comes last and wins when any listed type
 * in UTF-8 matches one of its types, wildcards included; no Accept means any type).
 */
function acceptsJsonAnswer(accept: string | undefined): boolean {
  return (accept || '*/*')
    .replace(/\s/g, '')
    .toLowerCase()
    .split(',')
    .some((entry) => {
      const [mediaType, ...parameters] = entry.split(';');
      if ((parameters.find((parameter) => parameter.includes('charset=')) ?? 'charset=utf-8') !== 'charset=utf-8') return false;
      const [type, subtype] = mediaType.split('/');
      return JSON_ANSWER_TYPES.some((json) => {
        const [jsonType, jsonSubtype] = json.split('/');
        return (type === '*' || type === jsonType) && (subtype === '*' || subtype === jsonSubtype);
      });
    });
}

/** The GET's operation is a subscription; a document sent only by id or hash, or one that does not parse, is not known to be one. */
function subscribes(url: URL): boolean {
  const query = url.searchParams.get('query');
  if (!query) return false;
  try {
    return getOperationAST(parse(query), url.searchParams.get('operationName') || undefined)?.operation === 'subscription';
  } catch {
    return false;
  }
}

/**
 * The bytes of an event stream as text, read as the client takes them, one whole event per
 * chunk (yoga enqueues an event's lines apart; one write per event halves the socket writes).
 * However the stream ends (done, failed, or returned by the server when the client left, even
 * before the first chunk was asked for) it is cancelled, which ends what feeds it, and `onEnd`
 * runs once.
 */
function eventStreamText(body: ReadableStream<Uint8Array>, onEnd: () => void): AsyncIterableIterator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let ended = false;
  const end = async (): Promise<IteratorReturnResult<undefined>> => {
    if (!ended) {
      ended = true;
      onEnd();
      await reader.cancel().catch(() => undefined);
    }
    return { done: true, value: undefined };
  };
  const text: AsyncIterableIterator<string> = {
    async next() {
      let event = '';
      // An event (and a heartbeat comment) ends with a blank line.
      while (!ended && !event.endsWith('\n\n')) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (error) {
          await end();
          throw error;
        }
        if (chunk.done) {
          await end();
          break;
        }
        event += decoder.decode(chunk.value, { stream: true });
      }
      return event === '' ? { done: true, value: undefined } : { done: false, value: event };
    },
    return: end,
    [Symbol.asyncIterator]: () => text,
  };
  return text;
}

export function createGraphQLDoor({ db, logger, config, tracing, live, newContext }: DoorDeps): Door {
  const openStreams = openStreamsUpTo(config.subscriptions.perClient);

  const sdl = printSchema(schema);
  const persisted = persistedOperations(db, config.trustedDocuments);
  const yoga = createYoga<{ gqlContext: GraphQLContext }>({
    schema,
    graphqlEndpoint: ENDPOINT,
    // The node:http handler already enforces the 1 MiB limit; yoga's own limit pipes
    // every body through an extra stream (measured ~3x lower throughput).
    maxRequestBodySize: false,
    logging: false,
    landingPage: false,
    renderGraphiQL: async (options) => (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options),
    graphiql: {
      title: 'Commerce back-office GraphQL v3',
      // Every operation needs an API client's secret; the headers tab opens with the shape to fill in.
      headers: JSON.stringify({ Authorization: 'Bearer <API secret: npm run -s cli -- api-client create ...>' }, null, 2),
      defaultEditorToolsVisibility: 'headers',
      defaultQuery: GRAPHIQL_QUERY,
    },
    context: ({ gqlContext }) => gqlContext,
    plugins: [graphqlJsExecution, getParametersAsInput, ...graphqlLimitPlugins(config.graphqlLimits), ...(tracing ? [tracing.graphqlPlugin] : []), ...persisted.plugins],
    extraParamNames: persisted.extraParamNames,
    maskedErrors: {
      maskError: (error) => {
        if (isPersistedOperationRefusal(error)) return error;
        const classified = classifyError(error);
        if (classified.code === 'INTERNAL_SERVER_ERROR') logger.error('graphql resolver failed', { error: classified.cause });
        else if (classified.code === 'UNAVAILABLE') logger.warn('database unavailable', { error: classified.cause });
        return toGraphQLError(error);
      },
    },
  });

  const wantsGraphiQL = (request: DoorRequest) =>
    request.method === 'GET' && !request.url.searchParams.has('query') && (header(request, 'accept') ?? '').includes('text/html');

  return {
    name: 'v3',
    matches: (pathname) => pathname === ENDPOINT || pathname === SDL_PATH || pathname.startsWith('/v3/'),
    reject: (status, message) => graphqlError(status, REJECTION_CODES[status] ?? 'INTERNAL_SERVER_ERROR', message),
    credentials: (request) => readSecret(header(request, 'authorization')),
    routeOf: ({ url }) => (url.pathname === ENDPOINT || url.pathname === SDL_PATH ? url.pathname : undefined),
    answersGraphQL: true,
    answersWithEventStream: (request) => {
      const accept = header(request, 'accept');
      return Boolean(accept?.includes('text/event-stream')) && (!acceptsJsonAnswer(accept) || subscribes(request.url));
    },
    async handle(request) {
      const { pathname } = request.url;
      if (pathname === SDL_PATH && request.method === 'GET') {
        return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: sdl };
      }
      if (pathname !== ENDPOINT) return graphqlError(404, 'NOT_FOUND', `no route for ${pathname}`);

      if (request.method === 'POST' && /json/i.test(header(request, 'content-type') ?? '')) {
        const body = parseJsonBody(request);
        // A body that is not JSON is a bad request; a value the input check refuses is bad input, as it is in variables of a GET.
        if (!body.ok) return graphqlError(400, body.issues.length > 0 ? 'BAD_USER_INPUT' : 'BAD_REQUEST', body.message);
      }
      if (wantsGraphiQL(request)) return runYoga(request, undefined);
      const auth = request.auth!;
      if (isAuthFailure(auth)) return graphqlError(auth.status, auth.status === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN', auth.message);
      if (!(header(request, 'accept') ?? '').includes('text/event-stream')) {
        return runYoga(request, newContext({ auth, door: 'v3', requestId: request.requestId }));
      }

      // An event stream (a subscription) holds one of its client's slots until the stream ends.
      const clientId = auth.client.id;
      const slot = openStreams.take(clientId);
      if ('refused' in slot) {
        const refused = graphqlError(429, 'TOO_MANY_SUBSCRIPTIONS', `this API client already holds ${slot.refused} open subscriptions on this instance, the most it may; close one first`);
        return { ...refused, headers: { ...refused.headers, 'retry-after': '1' } };
      }
      const { access, cut } = streamAccess(live, logger, { requestId: request.requestId, clientId });
      let response: DoorResponse;
      try {
        response = await runYoga(request, newContext({ auth, door: 'v3', requestId: request.requestId, live: access }), slot.release);
      } catch (error) {
        slot.release();
        throw error;
      }
      if (!response.stream) slot.release();
      return { ...response, abort: cut };
    },
  };

  /** Yoga's answer; an event stream is handed on as a stream (`onStreamEnd` runs when it ends), anything else whole. */
  async function runYoga(request: DoorRequest, gqlContext: GraphQLContext | undefined, onStreamEnd = () => {}): Promise<DoorResponse> {
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    const response = await yoga.fetch(
      request.url.toString(),
      { method: request.method, headers: fetchHeaders(request), body: hasBody ? new Uint8Array(request.body) : undefined },
      { gqlContext: gqlContext! },
    );
    const out = answerHeaders(response);
    if (response.body && (response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      return { status: response.status, headers: out, stream: eventStreamText(response.body, onStreamEnd) };
    }
    return { status: response.status, headers: out, body: await bodyBytes(response) };
  }
}
