// A real webhook receiver on 127.0.0.1 and helpers to emit events and wait for
// deliveries, shared by the webhook tests and the webhook benchmark.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Database } from '../../src/db/database.ts';
import { recordEvent, type Topic } from '../../src/domain/events.ts';
import { newId } from '../../src/domain/ids.ts';
import { graphql } from '../support/server.ts';
import { systemLookup } from '../../src/domain/webhooks.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { WebhookDispatcher, type DispatcherOptions } from '../../src/webhooks/dispatcher.ts';
import { testContexts } from '../support/contexts.ts';

export interface WebhookBody {
  id: string;
  topic: string;
  createdAt: string;
  storeId: string;
  subjectId: string;
  data: { n?: number } & Record<string, unknown>;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: WebhookBody;
}

/** What the receiver answers a request with; `delayMs` holds the answer back. */
export interface ReceiverAnswer {
  status?: number;
  delayMs?: number;
  headers?: Record<string, string>;
}

export type ReceiverHandler = (request: ReceivedRequest, receiver: Receiver) => ReceiverAnswer | Promise<ReceiverAnswer>;

export interface Receiver {
  url: string;
  /** Every request in arrival order. */
  requests: ReceivedRequest[];
  /** Requests being answered right now, by event id (several ids means overlap). */
  inFlight: Map<string, number>;
  close(): Promise<void>;
}

/** A key and self-signed certificate for 127.0.0.1, made with the system's openssl, for an https receiver. */
export function loopbackCertificate(): { key: string; cert: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'receiver-tls-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    return { key: fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function startReceiver(handler: ReceiverHandler = () => ({ status: 200 }), tls?: { key: string; cert: string }): Promise<Receiver> {
  const receiver: Receiver = { url: '', requests: [], inFlight: new Map(), close: async () => undefined };
  const listener: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as WebhookBody,
      };
      receiver.requests.push(request);
      receiver.inFlight.set(request.body.id, (receiver.inFlight.get(request.body.id) ?? 0) + 1);
      void Promise.resolve(handler(request, receiver)).then(async (answer) => {
        if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
        const left = (receiver.inFlight.get(request.body.id) ?? 1) - 1;
        if (left === 0) receiver.inFlight.delete(request.body.id);
        else receiver.inFlight.set(request.body.id, left);
        res.writeHead(answer.status ?? 200, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.status && answer.status >= 400 ? `receiver says ${answer.status}` : 'ok');
      });
    });
  };
  const server = tls ? https.createServer(tls, listener) : http.createServer(listener);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

export interface Subscribed {
  subscription?: { id: string; url: string; topics: string[]; enabled: boolean; hasSecret: boolean; payload: string };
  code?: string;
  issues?: { path: string; message: string }[];
}

/** Subscribes through v3's createWebhookSubscription; answers the subscription, or the refusal's code and issues. */
export async function subscribe(server: { url: string }, secret: string, input: Record<string, unknown>): Promise<Subscribed> {
  const res = await graphql(
    server,
    secret,
    'mutation($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id url topics enabled hasSecret payload } }',
    { input },
  );
  const error = res.errors?.[0] as { extensions?: { code?: string; issues?: { path: string; message: string }[] } } | undefined;
  if (error) return { code: error.extensions?.code, issues: error.extensions?.issues };
  return { subscription: (res.data as { createWebhookSubscription: Subscribed['subscription'] }).createWebhookSubscription };
}

/** Records one event in its own transaction, as domain code does beside its change. */
export async function emit(db: Database, storeId: string, topic: Topic, subjectId: string, data: Record<string, unknown> = {}): Promise<string> {
  return db.prisma.$transaction((tx) => recordEvent(tx, { storeId, topic, subjectId, data }));
}

/** Polls until the probe answers something truthy, and hands that back. */
/**
 * Writes a burst of events for one subscription in one transaction of two statements:
 * the rows recordEvent writes, without its per-event round trips, so a test or bench
 * can queue a thousand events in a moment. Deliveries get their sequence in list order.
 */
export async function insertEvents(
  db: Database,
  target: { storeId: string; subscriptionId: string },
  events: { topic: Topic; subjectId: string; data: { [key: string]: string | number | boolean | null } }[],
): Promise<string[]> {
  const rows = events.map((event) => ({ id: newId('event'), storeId: target.storeId, ...event }));
  await db.prisma.$transaction([
    db.prisma.event.createMany({ data: rows }),
    db.prisma.webhookDelivery.createMany({
      data: rows.map((row) => ({ id: newId('webhookDelivery'), eventId: row.id, subscriptionId: target.subscriptionId, subjectId: row.subjectId })),
    }),
  ]);
  return rows.map((row) => row.id);
}

export async function waitFor<T>(
  probe: () => T | Promise<T>,
  what: string,
  timeoutMs = 20_000,
  intervalMs = 20,
): Promise<Exclude<T, false | null | undefined>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Exclude<T, false | null | undefined>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Per-subject order as received: every subject's `data.n` values must run 1, 2, 3 ...
 * with repeats allowed only back to back (a redelivery of the event just received).
 * Returns a description of each violation.
 */
export function orderViolations(requests: ReceivedRequest[]): string[] {
  const last = new Map<string, number>();
  const violations: string[] = [];
  for (const { body } of requests) {
    const n = body.data.n;
    if (typeof n !== 'number') continue;
    const previous = last.get(body.subjectId) ?? 0;
    if (n !== previous && n !== previous + 1) violations.push(`${body.subjectId}: event ${n} after ${previous}`);
    last.set(body.subjectId, Math.max(previous, n));
  }
  return violations;
}

/** A started dispatcher for tests: loopback allowed, quick retries (5 ms doubling to 40 ms, 4 attempts), a 20 ms poll. */
export function startTestDispatcher(db: Database, options: Partial<DispatcherOptions> = {}): WebhookDispatcher {
  const dispatcher = new WebhookDispatcher({
    db,
    logger: createLogger('silent'),
    policy: { allowLoopback: true, lookup: systemLookup },
    newContext: testContexts(db),
    retry: { firstDelayMs: 5, maxDelayMs: 40, maxAttempts: 4 },
    timeoutMs: 2_000,
    pollIntervalMs: 20,
    ...options,
  });
  dispatcher.start();
  return dispatcher;
}
