// The one HTTP server: matches a path prefix and hands the request to its door.
// It reads every body once with the 1 MiB limit, answers health checks and
// /metrics (or leaves /metrics to a server of its own on METRICS_PORT), logs and
// counts every request, and shuts down gracefully. No business logic lives here.
import http from 'node:http';
import crypto from 'node:crypto';
import { json, type AppDeps, type Door, type DoorRequest, type DoorResponse } from './door.ts';
import { createGraphQLDoor } from './schema/http.ts';
import { createRestDoor } from './rest/door.ts';
import { createCompatDoor } from './compat/door.ts';
import { configureCursorSecret } from './schema/keyset.ts';
import { createSofaDoor } from './rest/sofa.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { configurePortalLinkSecret } from './auth/shopper.ts';
import { createWebDoor } from './web/door.ts';
import { createRateLimiter, type RateLimiter } from './auth/rateLimit.ts';
import { createAuthenticator } from './auth/authenticate.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface App {
  server: http.Server;
  /** Serves only /metrics; present when METRICS_PORT is set (the main server then has no /metrics). */
  metricsServer?: http.Server;
  metrics: Metrics;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), then resolves. */
  shutdown(graceMs?: number): Promise<void>;
}

const METRICS_PATH = '/metrics';

class BodyTooLarge extends Error {}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) return Promise.reject(new BodyTooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, response: DoorResponse): void {
  if (res.headersSent) return;
  res.writeHead(response.status, response.headers ?? {});
  res.end(response.body ?? '');
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

export function createApp(input: Omit<AppDeps, 'metrics' | 'rateLimiter' | 'authenticator'> & { metrics?: Metrics; rateLimiter?: RateLimiter }): App {
  const deps: AppDeps = {
    ...input,
    authenticator: createAuthenticator(input.db),
    metrics: input.metrics ?? createMetrics(input.db),
    rateLimiter: input.rateLimiter ?? createRateLimiter({ limits: input.config.rateLimits, redisUrl: input.config.redisUrl }),
  };
  const { db, logger, metrics, config } = deps;
  configureCursorSecret(config.cursorSecret);
  configurePortalLinkSecret(config.cursorSecret);
  // The SOFA door owns /v3/rest/ and must be asked before the v3 door, which takes all of /v3/.
  const doors: Door[] = [createSofaDoor(deps), createGraphQLDoor(deps), createRestDoor(deps), createCompatDoor(deps), createWebDoor(deps)];
  const metricsOnMainServer = config.metricsPort === undefined;
  const notFound = (pathname: string) => json(404, { error: `no route for ${pathname}` });

  async function health(pathname: string): Promise<DoorResponse> {
    if (pathname === '/healthz') return json(200, { status: 'ok' });
    try {
      await db.sql.query('SELECT 1');
      return json(200, { status: 'ok', database: db.kind });
    } catch (error) {
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
      send(res, json(400, { error: 'malformed request target' }));
      return;
    }
    if (url.pathname === '/healthz' || url.pathname === '/readyz') {
      send(res, await health(url.pathname));
      return;
    }
    if (url.pathname === METRICS_PATH && metricsOnMainServer) {
      send(res, await metricsResponse(metrics));
      return;
    }
    const door = doors.find((d) => d.matches(url.pathname));
    if (!door) {
      req.resume();
      send(res, notFound(url.pathname));
      return;
    }
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        res.setHeader('connection', 'close');
        send(res, door.reject(413, `request body exceeds ${MAX_BODY_BYTES} bytes`, { url, requestId }));
        return;
      }
      throw error;
    }
    const request: DoorRequest = { method: req.method ?? 'GET', url, headers: req.headers, body, requestId };
    const started = performance.now();
    let response: DoorResponse;
    try {
      response = await door.handle(request);
    } catch (error) {
      logger.error('unhandled error in door', { door: door.name, requestId, path: url.pathname, error });
      response = door.reject(500, 'internal error', { url, requestId });
    }
    send(res, response);
    const seconds = (performance.now() - started) / 1000;
    // Unmatched paths share one label so a scanner cannot grow the label set.
    const route = request.route ?? 'unmatched';
    metrics.observeRequest({ door: door.name, route, method: request.method, status: response.status }, seconds);
    logger.info('request', { requestId, door: door.name, method: request.method, route, status: response.status, ms: Math.round(seconds * 1000) });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      logger.error('request failed', { error });
      send(res, json(500, { error: 'internal error' }));
    });
  });
  server.keepAliveTimeout = 5_000;

  const metricsServer = metricsOnMainServer
    ? undefined
    : http.createServer((req, res) => {
        const pathname = (req.url ?? '/').split('?')[0];
        if (pathname !== METRICS_PATH) {
          send(res, json(404, { error: `only ${METRICS_PATH} is served on this port` }));
          return;
        }
        metricsResponse(metrics).then(
          (response) => send(res, response),
          (error) => {
            logger.error('collecting metrics failed', { error });
            send(res, json(500, { error: 'collecting metrics failed' }));
          },
        );
      });

  return {
    server,
    metricsServer,
    metrics,
    async shutdown(graceMs = 10_000) {
      await Promise.all([closeGracefully(server, graceMs), metricsServer ? closeGracefully(metricsServer, graceMs) : undefined]);
      metrics.close();
      await deps.rateLimiter.close();
      await deps.authenticator.close();
    },
  };
}
