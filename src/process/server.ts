// The one HTTP server: answers health checks and /metrics (or leaves /metrics to a server of
// its own on METRICS_PORT), matches a path prefix to a door and runs the request through the
// pipeline's steps (src/http/pipeline.ts) to it, and shuts down gracefully. No business logic lives here.
import http from 'node:http';
import crypto from 'node:crypto';
import type { AppDeps } from '../http/appDeps.ts';
import { json, type Door, type DoorResponse } from '../http/door.ts';
import { requestSteps, runSteps } from '../http/pipeline.ts';
import { send } from '../http/send.ts';
import { inRequestedCoding } from '../http/steps/compress.ts';
import { createGraphQLDoor } from '../v3/door.ts';
import { createRestDoor } from '../rest/door.ts';
import { createCompatDoor } from '../compat/door.ts';
import { createSofaDoor } from '../rest/sofa.ts';
import { createExportsDoor } from '../rest/exports.ts';
import { createMetrics, type Metrics } from '../observability/metrics.ts';
import { createWebDoor } from '../web/door.ts';
import { createRateLimiter, type RateLimiter } from '../auth/rateLimit.ts';
import { createAuthenticator, type Authenticator } from '../auth/authenticate.ts';
import { contextFactory } from '../schema/context.ts';
import { contextServices } from './contextServices.ts';
import { createLiveFeed } from '../live/feed.ts';


export interface App {
  server: http.Server;
  /** Serves only /metrics; present when METRICS_PORT is set (the main server then has no /metrics). */
  metricsServer?: http.Server;
  metrics: Metrics;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), then resolves. */
  shutdown(graceMs?: number): Promise<void>;
}

const METRICS_PATH = '/metrics';
const EMPTY_BODY = Buffer.alloc(0);

/** An answer given outside the pipeline (health, metrics, requests no door takes), compressed as the pipeline's are. */
async function answer(req: http.IncomingMessage, res: http.ServerResponse, response: DoorResponse): Promise<void> {
  await send(res, await inRequestedCoding({ method: req.method ?? 'GET', headers: req.headers }, response));
}

async function metricsResponse(metrics: Metrics): Promise<DoorResponse> {
  return { status: 200, headers: { 'content-type': metrics.registry.contentType }, body: await metrics.registry.metrics() };
}

function closeGracefully(server: http.Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

export function createApp(
  input: Omit<AppDeps, 'metrics' | 'rateLimiter' | 'authenticator' | 'live' | 'services' | 'newContext'> & {
    metrics?: Metrics;
    rateLimiter?: RateLimiter;
    authenticator?: Authenticator;
  },
): App {
  const metrics = input.metrics ?? createMetrics(input.db);
  const services = contextServices(input.config, input.tracing, metrics);
  const deps: AppDeps = {
    ...input,
    services,
    newContext: contextFactory({ db: input.db, logger: input.logger, services }),
    authenticator: input.authenticator ?? createAuthenticator(input.db),
    metrics,
    rateLimiter: input.rateLimiter ?? createRateLimiter({ limits: input.config.rateLimits, redisUrl: input.config.redisUrl }),
    live: createLiveFeed({
      db: input.db,
      logger: input.logger,
      observer: metrics.live,
      maxPending: input.config.subscriptions.maxPendingEvents,
      redisUrl: input.config.redisUrl,
    }),
  };
  const { db, logger, config } = deps;
  const steps = requestSteps(deps);
  // The SOFA door owns /v3/rest/ (but its exports) and must be asked before the v3 door, which takes all of /v3/.
  const doors: Door[] = [createExportsDoor(deps), createSofaDoor(deps), createGraphQLDoor(deps), createRestDoor(deps), createCompatDoor(deps), createWebDoor(deps)];
  const metricsOnMainServer = config.metricsPort === undefined;
  const notFound = (pathname: string) => json(404, { error: `no route for ${pathname}` });

  async function health(pathname: string): Promise<DoorResponse> {
    if (pathname === '/healthz') return json(200, { status: 'ok' });
    try {
      await db.sql.query('SELECT 1');
      return json(200, { status: 'ok', database: db.kind });
    } catch (error) {
      // No primary (a failover), but replicas answer: reads are served, and writes answer 503 themselves.
      if (db.replicas?.status().some((replica) => replica.state === 'in')) return json(200, { status: 'reads only', database: db.kind });
      logger.warn('readiness check failed', { error });
      return json(503, { status: 'unavailable', database: db.kind });
    }
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const requestId = (req.headers['x-request-id'] as string | undefined)?.slice(0, 100) || crypto.randomUUID();
    res.setHeader('x-request-id', requestId);
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      await answer(req, res, json(400, { error: 'malformed request target' }));
      return;
    }
    if (url.pathname === '/healthz' || url.pathname === '/readyz') {
      await answer(req, res, await health(url.pathname));
      return;
    }
    if (url.pathname === METRICS_PATH && metricsOnMainServer) {
      await answer(req, res, await metricsResponse(metrics));
      return;
    }
    const door = doors.find((d) => d.matches(url.pathname));
    if (!door) {
      req.resume();
      await answer(req, res, notFound(url.pathname));
      return;
    }
    await runSteps(steps, { door, incoming: req, outgoing: res, request: { method: req.method ?? 'GET', url, headers: req.headers, body: EMPTY_BODY, requestId } });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      logger.error('request failed', { error });
      void answer(req, res, json(500, { error: 'internal error' }));
    });
  });
  server.keepAliveTimeout = 5_000;
  // A request Node cannot parse (headers or request line over its 16 KiB limit, malformed
  // syntax) never reaches a door; it still gets an answer in the problem format, not a reset.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : 400;
    const body = JSON.stringify({ type: 'about:blank', title: tooLarge ? 'Request Header Fields Too Large' : 'Bad Request', status, detail: tooLarge ? 'the request line and headers exceed 16 KiB' : 'malformed HTTP request' });
    socket.end(`HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });

  const metricsServer = metricsOnMainServer
    ? undefined
    : http.createServer((req, res) => {
        const pathname = (req.url ?? '/').split('?')[0];
        if (pathname !== METRICS_PATH) {
          answer(req, res, json(404, { error: `only ${METRICS_PATH} is served on this port` }));
          return;
        }
        metricsResponse(metrics).then(
          (response) => answer(req, res, response),
          (error) => {
            logger.error('collecting metrics failed', { error });
            answer(req, res, json(500, { error: 'collecting metrics failed' }));
          },
        );
      });

  return {
    server,
    metricsServer,
    metrics,
    async shutdown(graceMs = 10_000) {
      // Open subscriptions end first (each client is told it completed), so their requests can finish.
      await deps.live.close();
      await Promise.all([closeGracefully(server, graceMs), metricsServer ? closeGracefully(metricsServer, graceMs) : undefined]);
      metrics.close();
      await deps.rateLimiter.close();
      await deps.authenticator.close();
    },
  };
}
