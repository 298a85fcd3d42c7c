// The one HTTP server: matches a path prefix and hands the request to its door.
// It reads every body once with the 1 MiB limit (decoded first when sent compressed), answers health checks and
// /metrics (or leaves /metrics to a server of its own on METRICS_PORT), logs, counts and
// (when tracing is on) traces every request, and shuts down gracefully. No business logic
// lives here.
import http from 'node:http';
import crypto from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { json, retryAfter, type AppDeps, type Door, type DoorRequest, type DoorResponse } from './door.ts';
import { createGraphQLDoor } from './schema/http.ts';
import { createRestDoor } from './rest/door.ts';
import { createCompatDoor } from './compat/door.ts';
import { configureCursorSecret } from './schema/keyset.ts';
import { configureSearchTimeLimit } from './db/reads/reader.ts';
import { createSofaDoor } from './rest/sofa.ts';
import { createExportsDoor } from './rest/exports.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { configurePortalLinkSecret } from './auth/shopper.ts';
import { createWebDoor } from './web/door.ts';
import { createRateLimiter, type RateLimiter } from './auth/rateLimit.ts';
import { createAuthenticator } from './auth/authenticate.ts';
import { configureOperationExecution } from './schema/execute.ts';
import { databaseFailure } from './db/failures.ts';
import { inRequestSpan, type ServedRequest } from './telemetry.ts';
import { createLiveFeed } from './live/feed.ts';
import { inRequestScope } from './requestScope.ts';
import { answerEncoding, chunkEncoder, compressBody, decodeRequestBody, RequestBodyRefused, type ChunkEncoder } from './compression.ts';
import { createIdempotentRequests } from './idempotentRequests.ts';
import { createConditionalRequests } from './conditionalRequests.ts';

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

/** How writing an answer ended: whole, left when the client went away, or cut off by a failing stream. */
type Sent = { ended: 'whole' | 'client gone' } | { ended: 'failed'; error: unknown };

const WHOLE: Sent = { ended: 'whole' };

/**
 * Writes the answer, compressed when the client asked for it (compression.ts); a streamed one
 * as the client takes it (writeStream), settling once it is written or abandoned.
 */
async function send(res: http.ServerResponse, response: DoorResponse): Promise<Sent> {
  if (res.headersSent) return WHOLE;
  const { headers, coding } = answerEncoding(res.req, response);
  if (response.stream) {
    res.writeHead(response.status, headers);
    return writeStream(res, response.stream, response.abort, coding && chunkEncoder(coding));
  }
  const body = coding ? await compressBody(response.body!, coding) : (response.body ?? '');
  if (res.headersSent) return WHOLE;
  res.writeHead(response.status, coding ? { ...headers, 'content-length': String(body.length) } : headers);
  res.end(body);
  return WHOLE;
}

/** Resolves when the client has taken what was written ('drain') or has gone ('close'). */
function drainedOrGone(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Writes chunk after chunk, the next one read only once the client has taken the ones before
 * and the event loop has had a turn, so memory holds about one chunk however long the answer
 * (no Content-Length: chunked) and no other request waits for more than one.
 * When the client goes away the iteration is ended, so nothing more is read for it. A chunk
 * that fails after the head went out destroys the socket: the client sees a cut-off answer,
 * never an error appended to a half-written one.
 */
async function writeStream(res: http.ServerResponse, stream: AsyncIterable<string>, abort?: AbortSignal, encoder?: ChunkEncoder): Promise<Sent> {
  const chunks = stream[Symbol.asyncIterator]();
  let closed = false;
  // Ended at once, not when the next chunk comes: a subscription's next event may be hours away.
  const onClose = () => {
    closed = true;
    void chunks.return?.();
  };
  res.once('close', onClose);
  const cut = () => res.destroy();
  if (abort?.aborted) cut();
  abort?.addEventListener('abort', cut, { once: true });
  const gone = () => closed || res.destroyed;
  try {
    while (!gone()) {
      const next = await chunks.next();
      if (next.done) {
        res.end(encoder ? await encoder.end() : undefined);
        return WHOLE;
      }
      // Compressed chunk by chunk, each flushed: the client decodes every page or event as it arrives.
      const bytes = encoder ? await encoder.write(next.value) : next.value;
      if (!gone() && !res.write(bytes)) await drainedOrGone(res);
      // Whatever makes the chunks may answer without ever leaving the microtask queue (the
      // embedded PGlite does): other requests, and the client leaving, are let in between chunks.
      await nextTurn();
    }
    return { ended: 'client gone' };
  } catch (error) {
    res.destroy();
    return { ended: 'failed', error };
  } finally {
    encoder?.destroy();
    res.off('close', onClose);
    abort?.removeEventListener('abort', cut);
    await chunks.return?.();
  }
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

export function createApp(input: Omit<AppDeps, 'metrics' | 'rateLimiter' | 'authenticator' | 'live'> & { metrics?: Metrics; rateLimiter?: RateLimiter }): App {
  const metrics = input.metrics ?? createMetrics(input.db);
  const deps: AppDeps = {
    ...input,
    authenticator: createAuthenticator(input.db),
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
  const { db, logger, config, tracing } = deps;
  const idempotentRequests = createIdempotentRequests({ db, logger });
  const conditionalRequests = createConditionalRequests({ db, secret: config.cursorSecret });
  configureCursorSecret(config.cursorSecret);
  configureSearchTimeLimit(config.searchTimeLimitMs);
  configurePortalLinkSecret(config.cursorSecret);
  configureOperationExecution(tracing?.execute);
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
    if (!tracing) {
      await serve(door, req, res, url, requestId);
      return;
    }
    await inRequestSpan(tracing.tracer, { method: req.method ?? 'GET', door: door.name, requestId, headers: req.headers }, () => serve(door, req, res, url, requestId));
  }

  /**
   * A door that threw: an unavailable database (say, while authenticating) is a 503 to
   * retry; input whose bytes the database refused, which the input check should have
   * stopped, is still the caller's 400; anything else a 500.
   */
  function failedResponse(door: Door, error: unknown, request: Pick<DoorRequest, 'method' | 'url' | 'requestId'>): DoorResponse {
    const context = { door: door.name, requestId: request.requestId, path: request.url.pathname, error };
    const failure = databaseFailure(error);
    if (failure === 'unavailable') {
      logger.warn('database unavailable', context);
      const rejected = door.reject(503, 'the database is unavailable; retry shortly', request);
      return { ...rejected, headers: { ...retryAfter(503), ...rejected.headers } };
    }
    if (failure === 'input') {
      logger.warn('database refused the input', context);
      return door.reject(400, 'the request holds text the database cannot store (such as U+0000) or is nested too deeply', request);
    }
    logger.error('unhandled error in door', context);
    return door.reject(500, 'internal error', request);
  }

  async function serve(door: Door, req: http.IncomingMessage, res: http.ServerResponse, url: URL, requestId: string): Promise<ServedRequest> {
    let received: Pick<DoorRequest, 'headers' | 'body'>;
    try {
      received = await decodeRequestBody(req.headers, await readBody(req), MAX_BODY_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        res.setHeader('connection', 'close');
        const rejected = door.reject(413, `request body exceeds ${MAX_BODY_BYTES} bytes`, { method: req.method ?? 'POST', url, requestId });
        send(res, rejected);
        return { status: rejected.status };
      }
      if (error instanceof RequestBodyRefused) {
        const rejected = door.reject(error.status, error.message, { method: req.method ?? 'POST', url, requestId });
        send(res, { ...rejected, headers: { ...rejected.headers, ...error.headers } });
        return { status: rejected.status };
      }
      throw error;
    }
    const request: DoorRequest = { method: req.method ?? 'GET', url, ...received, requestId };
    const started = performance.now();
    let response: DoorResponse;
    try {
      response = await inRequestScope({ requestId, door: door.name }, () => idempotentRequests.answer(door, request, () => conditionalRequests.answer(door, request, () => door.handle(request))));
    } catch (error) {
      response = failedResponse(door, error, request);
    }
    const sent = await send(res, response);
    if (sent.ended === 'failed') logger.error('streamed answer failed after its head was sent; connection cut', { door: door.name, requestId, path: url.pathname, error: sent.error });
    const seconds = (performance.now() - started) / 1000;
    // Unmatched paths share one label so a scanner cannot grow the label set.
    const matched = door.routeOf(request);
    const route = matched ?? 'unmatched';
    metrics.observeRequest({ door: door.name, route, method: request.method, status: response.status }, seconds);
    const ended = sent.ended === 'whole' ? {} : { ended: sent.ended };
    logger.info('request', { requestId, door: door.name, method: request.method, route, status: response.status, ms: Math.round(seconds * 1000), ...ended });
    return { status: response.status, route: matched };
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      logger.error('request failed', { error });
      send(res, json(500, { error: 'internal error' }));
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
      // Open subscriptions end first (each client is told it completed), so their requests can finish.
      await deps.live.close();
      await Promise.all([closeGracefully(server, graceMs), metricsServer ? closeGracefully(metricsServer, graceMs) : undefined]);
      metrics.close();
      await deps.rateLimiter.close();
      await deps.authenticator.close();
    },
  };
}
