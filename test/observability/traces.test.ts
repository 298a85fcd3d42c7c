// OpenTelemetry traces against a real OTLP/HTTP receiver on loopback: with no endpoint
// nothing is registered or sent; with one, a REST upsert is one trace of the door's span,
// the GraphQL operation under it and its SQL statements under that, carrying the store
// and request ids and nothing secret. OTel's providers are process globals: vitest runs
// this file in a process of its own (pool: forks), and the test unregisters them after.
import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_TRACEID, trace, type ProxyTracerProvider } from '@opentelemetry/api';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createApp, type App } from '../../src/process/server.ts';
import { startTracing, type Tracing } from '../../src/observability/telemetry.ts';
import type { Database } from '../../src/db/database.ts';
import { createTestDatabase } from '../support/db.ts';
import { call, createTestStore, type TestStore } from '../support/server.ts';

interface Received {
  path: string;
  contentType: string | undefined;
  body: string;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
  status?: { code?: number };
}

interface Span extends OtlpSpan {
  scope: string;
}

const SERVER = 2;

/** An OTLP/HTTP receiver: keeps every request's body (JSON, gunzipped when compressed) and answers success. */
async function startReceiver() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = req.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(raw) : raw;
      received.push({ path: req.url ?? '', contentType: req.headers['content-type'], body: body.toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function spansOf(received: Received[]): Span[] {
  const spans: Span[] = [];
  for (const { body } of received) {
    const request = JSON.parse(body) as { resourceSpans: { scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[] };
    for (const resource of request.resourceSpans) {
      for (const scoped of resource.scopeSpans) spans.push(...scoped.spans.map((span) => ({ ...span, scope: scoped.scope.name })));
    }
  }
  return spans;
}

function attribute(span: OtlpSpan, key: string): string | number | boolean | undefined {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  if (!value) return undefined;
  return value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.boolValue);
}

/** The span's ancestors, nearest first. */
function ancestors(span: Span, spans: Span[]): Span[] {
  const chain: Span[] = [];
  let parent = spans.find((s) => s.spanId === span.parentSpanId);
  while (parent) {
    chain.push(parent);
    const next = parent.parentSpanId;
    parent = spans.find((s) => s.spanId === next);
  }
  return chain;
}

async function serve(db: Database, config: Config, tracing: Tracing | undefined): Promise<{ app: App; url: string }> {
  const app = createApp({ db, config, logger: createLogger(config.logLevel), tracing });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

const isNoop = () => {
  const span = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate().getTracer('probe').startSpan('probe');
  return !span.isRecording() && span.spanContext().traceId === INVALID_TRACEID;
};

let db: Database;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let store: TestStore;

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startReceiver();
  store = await createTestStore(db);
});
afterAll(async () => {
  await db?.close();
  await receiver?.close();
});

describe('configuration', () => {
  it("reads OpenTelemetry's variables", () => {
    const traces = (env: NodeJS.ProcessEnv) => loadConfig(env).traces;
    expect(traces({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({ url: 'http://collector:4318/v1/traces', serviceName: 'commerce-backoffice' });
    expect(traces({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector/otlp/' })?.url).toBe('https://collector/otlp/v1/traces');
    expect(traces({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/custom' })?.url).toBe('http://b:4318/custom');
    expect(traces({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(() => traces({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT must be an http/);
  });
});

describe('with no OTLP endpoint', () => {
  it('registers nothing and sends nothing', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent' });
    expect(config.traces).toBeUndefined();
    const logger = createLogger('silent');
    expect(await startTracing(config.traces, logger)).toBeUndefined();
    const { app, url } = await serve(db, config, undefined);
    try {
      const res = await call({ url }, 'PUT', `/v2.2/stores/${store.storeId}/customers`, { secret: store.secret, body: { email: 'untraced@example.com' } });
      expect(res.status).toBe(201);
      expect(isNoop()).toBe(true);
    } finally {
      await app.shutdown(1_000);
    }
    // Nothing is registered that could export; the pause gives a stray exporter the time to show itself.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toEqual([]);
  });
});

describe('with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let tracing: Tracing;
  let server: { app: App; url: string };

  beforeAll(async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'traces-test' });
    expect(config.traces).toEqual({ url: `${receiver.url}/v1/traces`, serviceName: 'traces-test' });
    tracing = (await startTracing(config.traces, createLogger('silent')))!;
    server = await serve(db, config, tracing);
  });
  afterAll(async () => {
    await server?.app.shutdown(1_000);
    await tracing?.shutdown();
    expect(isNoop()).toBe(true);
  });

  async function exported(): Promise<{ spans: Span[]; text: string }> {
    await tracing.forceFlush();
    expect(receiver.received.length).toBeGreaterThan(0);
    for (const request of receiver.received) {
      expect(request.path).toBe('/v1/traces');
      expect(request.contentType).toMatch(/^application\/json/);
    }
    return { spans: spansOf(receiver.received), text: receiver.received.map((r) => r.body).join('\n') };
  }

  it('exports a REST upsert as door -> operation -> statements, with the store and request ids and no secret', async () => {
    const requestId = 'trace-test-upsert';
    const email = 'traced.customer@example.com';
    const res = await call(server, 'PUT', `/v2.2/stores/${store.storeId}/customers`, {
      secret: store.secret,
      headers: { 'x-request-id': requestId },
      body: { email, firstName: 'Traced' },
    });
    expect(res.status).toBe(201);
    const { spans, text } = await exported();

    const door = spans.find((s) => attribute(s, 'commerce.request.id') === requestId);
    expect(door).toBeDefined();
    expect(door).toMatchObject({ name: 'PUT /v2.2/stores/{storeId}/customers', kind: SERVER });
    expect(door!.parentSpanId ?? '').toBe('');
    expect(attribute(door!, 'commerce.store.id')).toBe(store.storeId);
    expect(attribute(door!, 'commerce.door')).toBe('rest');
    expect(attribute(door!, 'http.request.method')).toBe('PUT');
    expect(attribute(door!, 'http.route')).toBe('/v2.2/stores/{storeId}/customers');
    expect(attribute(door!, 'http.response.status_code')).toBe(201);

    const inTrace = spans.filter((s) => s.traceId === door!.traceId);
    const operation = inTrace.find((s) => s.name === 'mutation.RestUpsertCustomer');
    expect(operation).toBeDefined();
    expect(operation!.parentSpanId).toBe(door!.spanId);
    expect(attribute(operation!, 'graphql.execute.operationName')).toBe('RestUpsertCustomer');

    const statements = inTrace.filter((s) => s.name === 'prisma:client:db_query' || s.name === 'reads:db_query');
    const underOperation = statements.filter((s) => ancestors(s, inTrace).some((a) => a.spanId === operation!.spanId));
    expect(underOperation.length).toBeGreaterThan(0);
    // The upsert itself is written through Prisma: its instrumentation traces the statement.
    const upsert = underOperation.find((s) => s.name === 'prisma:client:db_query' && /"Customer"/.test(String(attribute(s, 'db.query.text'))));
    expect(upsert).toBeDefined();
    expect(ancestors(upsert!, inTrace).map((s) => s.spanId)).toContain(door!.spanId);
    for (const statement of statements) expect(attribute(statement, 'db.system.name')).toBe('postgresql');

    expect(text).toContain('{"key":"service.name","value":{"stringValue":"traces-test"}}');
    // Nothing from the request's headers or body: not the secret, not the bearer header, not the e-mail.
    expect(text).not.toContain(store.secret);
    expect(text).not.toContain(email);
    expect(text.toLowerCase()).not.toContain('authorization');
    expect(text.toLowerCase()).not.toContain('bearer');
  });

  it('gives the operations of /v3/graphql (yoga) and /v3/rest (SOFA) their span under the door', async () => {
    receiver.received.length = 0;
    const query = 'query TracedCustomers { customers(first: 1) { nodes { id } } }';
    const graphql = await call(server, 'POST', '/v3/graphql', { secret: store.secret, headers: { 'x-request-id': 'trace-test-v3' }, body: { query } });
    expect(graphql.status).toBe(200);
    const sofa = await call(server, 'GET', '/v3/rest/customers?first=1', { secret: store.secret, headers: { 'x-request-id': 'trace-test-sofa' } });
    expect(sofa.status).toBe(200);
    const { spans, text } = await exported();

    for (const [requestId, operationName] of [
      ['trace-test-v3', 'query.TracedCustomers'],
      ['trace-test-sofa', 'query.customers_query'],
    ]) {
      const door = spans.find((s) => attribute(s, 'commerce.request.id') === requestId);
      expect(door, requestId).toBeDefined();
      expect(attribute(door!, 'commerce.store.id')).toBe(store.storeId);
      const operation = spans.find((s) => s.parentSpanId === door!.spanId && s.scope === 'graphql');
      expect(operation?.name, requestId).toBe(operationName);
      // Lists are read by the read path (db/reads), which Prisma's instrumentation does not see.
      const reads = spans.filter((s) => s.name === 'reads:db_query' && ancestors(s, spans).some((a) => a.spanId === operation!.spanId));
      expect(reads.length, requestId).toBeGreaterThan(0);
      expect(String(attribute(reads[0], 'db.query.text'))).toMatch(/FROM "Customer"/);
    }
    expect(text).not.toContain(store.secret);
  });

  it('marks a failed operation as an error without the text of its error, which quotes the refused value', async () => {
    receiver.received.length = 0;
    const refused = 'refused-value-7f3a';
    const query = 'query RefusedFirst($first: Int) { customers(first: $first) { nodes { id } } }';
    const res = await call(server, 'POST', '/v3/graphql', { secret: store.secret, body: { query, variables: { first: refused } } });
    expect(res.text).toContain(refused);
    const { spans, text } = await exported();
    const operation = spans.find((s) => s.name === 'query.RefusedFirst') as Span & { events?: { name: string; attributes?: { key: string }[] }[] };
    expect(operation?.status?.code).toBe(2);
    const exception = operation.events?.find((e) => e.name === 'exception');
    expect(exception?.attributes?.map((a) => a.key)).toEqual(['exception.type']);
    expect(text).not.toContain(refused);
  });

  it('starts a trace only at a door: Prisma work outside a request is not exported', async () => {
    receiver.received.length = 0;
    await createTestStore(db, { name: 'Untraced store' });
    await call(server, 'GET', `/v2.2/stores/${store.storeId}/customers?email=nobody@example.com`, { secret: store.secret });
    const { spans } = await exported();
    const roots = spans.filter((s) => !s.parentSpanId);
    expect(roots.length).toBeGreaterThan(0);
    for (const root of roots) expect(root.kind).toBe(SERVER);
    expect(spans.every((s) => roots.some((r) => r.traceId === s.traceId))).toBe(true);
  });
});
