// Request traces, exported over OTLP/HTTP (OpenTelemetry). Off unless config.traces is
// set (an OTLP endpoint): then no SDK is loaded or registered, no plugin joins GraphQL and
// the request path creates no span. On, each request to a door is one trace: the door's
// server span (inRequestSpan), the GraphQL operation under it (@envelop/opentelemetry, the
// same plugin in yoga and in every in-process execution), and each SQL statement under
// that (Prisma's instrumentation; the read path's own span in db/database.ts). Spans carry
// route templates, ids and parameterised SQL; never headers, bodies, variables or error texts.
import type { IncomingHttpHeaders } from 'node:http';
import { context, diag, DiagLogLevel, propagation, ROOT_CONTEXT, SpanKind, trace, type Tracer } from '@opentelemetry/api';
import {
  ATTR_EXCEPTION_MESSAGE,
  ATTR_EXCEPTION_STACKTRACE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVICE_NAME,
} from '@opentelemetry/semantic-conventions';
import type { Sampler, SpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { execute as graphqlExecute, ExecutionArgs } from 'graphql';
import { envelop, type Plugin } from 'graphql-yoga';
import type { Logger } from './logger.ts';
import { markSpanFailed, withinSpan } from './spans.ts';

export const ATTR_REQUEST_ID = 'commerce.request.id';
export const ATTR_STORE_ID = 'commerce.store.id';
export const ATTR_DOOR = 'commerce.door';

export interface Tracing {
  /** Makes the door spans. */
  tracer: Tracer;
  /** The operation span of /v3/graphql, in yoga's plugins. */
  graphqlPlugin: Plugin;
  /** An executor under the same plugin: for the operations REST, compat, web and SOFA run in process. */
  traced(execute: typeof graphqlExecute): typeof graphqlExecute;
  /** Exports every span ended so far. */
  forceFlush(): Promise<void>;
  /** Exports what is left and unregisters everything (the last step of shutting down). */
  shutdown(): Promise<void>;
}

/** Registers the tracer provider, Prisma's instrumentation and the OTLP exporter; undefined (nothing loaded) when traces are off. */
/** Where traces go (OTEL_EXPORTER_OTLP_*), read by config.ts. */
export interface TracesConfig {
  /** The OTLP/HTTP traces URL (`.../v1/traces`). */
  url: string;
  serviceName: string;
}

export async function startTracing(config: TracesConfig | undefined, logger: Logger): Promise<Tracing | undefined> {
  if (!config) return undefined;
  const [sdk, { OTLPTraceExporter }, resources, { PrismaInstrumentation, registerInstrumentations }, { useOpenTelemetry, setCurrentOtelContext }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@prisma/instrumentation'),
    import('@envelop/opentelemetry'),
  ]);
  // The exporter reports a collector it cannot reach through diag; without a logger that is silent.
  diag.setLogger(
    { error: (message) => logger.warn(`tracing: ${message}`), warn: (message) => logger.warn(`tracing: ${message}`), info: () => {}, debug: () => {}, verbose: () => {} },
    DiagLogLevel.WARN,
  );

  // One trace per request: a trace starts only at a door's server span, so the webhook
  // dispatcher and the periodic pruning (work outside any request) are not exported.
  const requestsOnly: Sampler = {
    shouldSample: (_context, _traceId, _name, kind) => ({
      decision: kind === SpanKind.SERVER ? sdk.SamplingDecision.RECORD_AND_SAMPLED : sdk.SamplingDecision.NOT_RECORD,
    }),
    toString: () => 'RequestsOnly',
  };
  const resource = resources
    .defaultResource()
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
    .merge(resources.resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName }));
  const provider = new sdk.NodeTracerProvider({
    resource,
    sampler: new sdk.ParentBasedSampler({ root: requestsOnly }),
    spanProcessors: [withoutExceptionTexts(new sdk.BatchSpanProcessor(new OTLPTraceExporter({ url: config.url })))],
  });
  // AsyncLocalStorage context and W3C trace-context propagation.
  provider.register();
  const unregisterPrisma = registerInstrumentations({ tracerProvider: provider, instrumentations: [new PrismaInstrumentation({ enabled: false })] });

  // Its declared context type names a symbol the plugin never reads from the context.
  const graphqlPlugin = useOpenTelemetry({ resolvers: false, variables: false, result: false, document: false }, provider, SpanKind.INTERNAL) as Plugin;
  const traced = (inner: typeof graphqlExecute) => {
    const enveloped = envelop({ plugins: [{ onExecute: ({ setExecuteFn }) => setExecuteFn(inner) }, graphqlPlugin] })();
    return ((args: ExecutionArgs) => {
      // The plugin parents an operation by its GraphQL context; a route that runs two
      // operations with one context would otherwise nest the second under the first.
      if (args.contextValue && typeof args.contextValue === 'object') setCurrentOtelContext(args.contextValue, context.active());
      return enveloped.execute(args);
    }) as typeof graphqlExecute;
  };

  return {
    tracer: provider.getTracer('commerce-backoffice'),
    graphqlPlugin,
    // Operations here are queries and mutations: the result is never a stream.
    traced,
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      unregisterPrisma();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
      diag.disable();
    },
  };
}

/**
 * Exception events keep their type and lose their text: a GraphQL error quotes the
 * variable value it refused, which may be personal data or a secret.
 */
function withoutExceptionTexts(processor: SpanProcessor): SpanProcessor {
  return {
    onStart: (span, parent) => processor.onStart(span, parent),
    onEnd(span) {
      for (const event of span.events) {
        if (event.name !== 'exception' || !event.attributes) continue;
        delete event.attributes[ATTR_EXCEPTION_MESSAGE];
        delete event.attributes[ATTR_EXCEPTION_STACKTRACE];
      }
      processor.onEnd(span);
    },
    forceFlush: () => processor.forceFlush(),
    shutdown: () => processor.shutdown(),
  };
}

export interface ServedRequest {
  status: number;
  /** The route template the door matched. */
  route?: string;
}

/**
 * Serves one request inside its server span, named by method and route template (the door
 * until a route matched). A caller's W3C `traceparent` continues the caller's trace.
 */
export async function inRequestSpan(
  tracer: Tracer,
  request: { method: string; door: string; requestId: string; headers: IncomingHttpHeaders },
  serve: () => Promise<ServedRequest>,
): Promise<void> {
  const parent = propagation.extract(ROOT_CONTEXT, request.headers);
  const span = tracer.startSpan(
    `${request.method} ${request.door}`,
    { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: request.method, [ATTR_DOOR]: request.door, [ATTR_REQUEST_ID]: request.requestId } },
    parent,
  );
  await withinSpan(span, async () => {
    const { status, route } = await context.with(trace.setSpan(parent, span), serve);
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    if (route) {
      span.setAttribute(ATTR_HTTP_ROUTE, route);
      span.updateName(`${request.method} ${route}`);
    }
    if (status >= 500) markSpanFailed(span, String(status));
  });
}
