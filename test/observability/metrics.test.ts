// /metrics in Prometheus text format (read back with a Prometheus text parser), the
// separate METRICS_PORT listener, and the pino request line of every request.
import { Writable } from 'node:stream';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { AddressInfo } from 'node:net';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.ts';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/process/server.ts';
import { createTestDatabase } from '../support/db.ts';
import { call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
});
afterAll(async () => server?.close());

let lastScrape = '';

async function scrape(url: string) {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  lastScrape = await response.text();
  return parsePrometheusTextFormat(lastScrape);
}

/** Observations in a histogram family (the parser keeps buckets, not labels, of histogram samples). */
const observations = (family: { metrics: { buckets?: Record<string, string> }[] } | undefined) =>
  (family?.metrics ?? []).reduce((sum, m) => sum + Number(m.buckets?.['+Inf'] ?? 0), 0);

function requestCount(families: ReturnType<typeof parsePrometheusTextFormat>, labels: Record<string, string>): number {
  const family = families.find((f) => f.name === 'http_requests_total');
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return Number(sample?.value ?? 0);
}

describe('/metrics', () => {
  it('parses as Prometheus text and counts a request by door, route template and status', async () => {
    const route = '/v2.2/stores/{storeId}/customers';
    const labels = { door: 'rest', route, method: 'GET', status: '200' };
    const before = requestCount(await scrape(`${server.url}/metrics`), labels);
    const answered = await call(server, 'GET', `/v2.2/stores/${store.storeId}/customers?email=nobody@example.com`, { secret: store.secret });
    expect([200, 404]).toContain(answered.status);
    const families = await scrape(`${server.url}/metrics`);
    const counted = { ...labels, status: String(answered.status) };
    expect(requestCount(families, counted)).toBe((answered.status === 200 ? before : 0) + 1);

    const byName = new Map(families.map((f) => [f.name, f]));
    expect(byName.get('http_requests_total')?.type).toBe('COUNTER');
    const latency = byName.get('http_request_duration_seconds');
    expect(latency?.type).toBe('HISTOGRAM');
    expect(observations(latency)).toBeGreaterThanOrEqual(1);
    expect(lastScrape).toMatch(new RegExp(`http_request_duration_seconds_count\\{door="rest",route="/v2.2/stores/\\{storeId\\}/customers",method="GET",status="${answered.status}"\\} [1-9]`));
    expect(observations(byName.get('db_statement_duration_seconds'))).toBeGreaterThan(0);
    expect(byName.get('db_pool_connections')?.metrics.some((m) => m.labels?.state === 'total' && Number(m.value) >= 1)).toBe(true);
    expect(byName.get('webhook_queue_depth')?.metrics[0].value).toBe('0');
    expect(byName.get('webhook_queue_oldest_pending_seconds')?.type).toBe('GAUGE');
    for (const name of ['rate_limit_refusals_total', 'webhook_delivery_attempts_total', 'process_cpu_seconds_total', 'nodejs_heap_size_used_bytes']) {
      expect(byName.has(name), name).toBe(true);
    }
  });

  it('counts answers given without running the door (a 304, a replayed write) and v3 requests under their route', async () => {
    const list = `/v2.2/stores/${store.storeId}/returns`;
    const first = await call(server, 'GET', list, { secret: store.secret });
    expect(first.status).toBe(200);
    expect((await call(server, 'GET', list, { secret: store.secret, headers: { 'if-none-match': first.headers.get('etag')! }, referenceCheck: false })).status).toBe(304);

    const events = `/v2.2/stores/${store.storeId}/events`;
    const write = { secret: store.secret, body: { eventName: 'Counted', customer: { email: 'counted@example.com' } }, headers: { 'idempotency-key': `metrics-${Date.now()}` } };
    const written = await call(server, 'POST', events, write);
    const replayed = await call(server, 'POST', events, write);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');

    const answered = await call(server, 'POST', '/v3/graphql', { secret: store.secret, body: { query: '{ __typename }' } });
    expect(answered.status).toBe(200);

    const families = await scrape(`${server.url}/metrics`);
    expect(requestCount(families, { door: 'rest', route: '/v2.2/stores/{storeId}/returns', method: 'GET', status: '304' })).toBe(1);
    expect(requestCount(families, { door: 'rest', route: '/v2.2/stores/{storeId}/events', method: 'POST', status: String(written.status) })).toBe(2);
    expect(requestCount(families, { door: 'v3', route: '/v3/graphql', method: 'POST', status: '200' })).toBeGreaterThanOrEqual(1);
  });

  it('labels unknown paths with one shared route label, never the raw path', async () => {
    await call(server, 'GET', `/v2.2/no/such/path/${Date.now()}`);
    const families = await scrape(`${server.url}/metrics`);
    const routes = families.find((f) => f.name === 'http_requests_total')!.metrics.map((m) => m.labels?.route);
    expect(routes).toContain('unmatched');
    expect(routes.some((r) => r?.includes('/no/such/path'))).toBe(false);
  });

  it('counts rate-limit refusals by door', async () => {
    const limited = await startTestServer({ rateLimits: { rest: 1, compat: 1 } });
    try {
      const s = await createTestStore(limited.db);
      for (let i = 0; i < 2; i++) await call(limited, 'GET', `/v2.2/stores/${s.storeId}/customers?email=a@example.com`, { secret: s.secret });
      const families = await scrape(`${limited.url}/metrics`);
      const refusals = families.find((f) => f.name === 'rate_limit_refusals_total')!;
      expect(refusals.metrics.find((m) => m.labels?.door === 'rest')?.value).toBe('1');
    } finally {
      await limited.close();
    }
  });
});

describe('METRICS_PORT and request logs', () => {
  it('serves /metrics only on its own port when METRICS_PORT is set, and logs each request at info without secrets', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const db = await createTestDatabase();
    const config = { ...loadConfig({ LOG_LEVEL: 'info' }), metricsPort: 0 };
    const app = createApp({ db, config, logger: createLogger('info', sink) });
    await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => app.metricsServer!.listen(0, '127.0.0.1', resolve));
    const main = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const metrics = `http://127.0.0.1:${(app.metricsServer!.address() as AddressInfo).port}`;
    try {
      const s = await createTestStore(db);
      expect((await fetch(`${main}/metrics`)).status).toBe(404);
      await call({ url: main }, 'GET', `/v2.2/stores/${s.storeId}/customers?email=a@example.com`, { secret: s.secret, headers: { 'x-request-id': 'req-42' } });
      const families = await scrape(`${metrics}/metrics`);
      expect(requestCount(families, { door: 'rest', route: '/v2.2/stores/{storeId}/customers' })).toBeGreaterThanOrEqual(1);
      expect((await fetch(`${metrics}/v2.2/openapi.json`)).status).toBe(404);

      const requestLine = lines.find((l) => l.msg === 'request' && l.requestId === 'req-42');
      expect(requestLine).toMatchObject({
        level: 'info',
        door: 'rest',
        method: 'GET',
        route: '/v2.2/stores/{storeId}/customers',
        status: expect.any(Number),
        ms: expect.any(Number),
        time: expect.any(String),
      });
      expect(JSON.stringify(lines)).not.toContain(s.secret);
    } finally {
      await app.shutdown(1_000);
      await db.close();
    }
  });

  it('redacts secret-bearing fields wherever a caller passes them', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    createLogger('debug', sink).info('client created', { secret: 'sk_live_123', client: { authorization: 'Bearer sk_live_123' } });
    expect(lines.join('')).not.toContain('sk_live_123');
    expect(JSON.parse(lines[0])).toMatchObject({ msg: 'client created', secret: '[redacted]', client: { authorization: '[redacted]' } });
  });
});

describe('shutting down', () => {
  // Tests and embedders open and close apps in one process; a closed app's database (a whole
  // PGlite heap) must not stay reachable from anything process-wide.
  it('lets go of the database once the app is shut down', async () => {
    v8.setFlagsFromString('--expose-gc');
    const collectGarbage = vm.runInNewContext('gc') as () => void;
    const database = await (async () => {
      const closed = await startTestServer();
      expect((await fetch(`${closed.url}/metrics`)).status).toBe(200);
      await closed.close();
      return new WeakRef(closed.db);
    })();
    // A WeakRef's target stays alive until the job that made or read it ends, so each look
    // collects garbage in a job of its own before reading it. Timers the app's last requests left
    // (the database's own, a few seconds long) may hold it a little while.
    let released = false;
    for (let attempt = 0; attempt < 20 && !released; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      collectGarbage();
      released = database.deref() === undefined;
    }
    expect(released).toBe(true);
  });
});
