// Crash soak (`npm run soak`, run by .ci/run): the real service in a child process is
// killed with SIGKILL five times in the middle of mixed writes (REST customer upserts,
// REST orders that commit stock, v3 inventory adjustments), on PGlite and, when
// TEST_DATABASE_URL names a PostgreSQL server, on a fresh database there. It checks:
//   - every write the service acknowledged is in the database after the restarts;
//   - every restart answers /readyz within RESTART_LIMIT_MS of being spawned;
//   - every event was delivered to the subscriber, and per subject in the order the
//     outbox recorded (the only repeats: a delivery in flight at a kill, sent again
//     right after the restart).
// It prints the figures of every round and exits non-zero when a check fails.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { SCOPES } from '../../src/auth/scopes.ts';
import { openDatabase } from '../../src/db/client.ts';
import type { Database } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { newId } from '../../src/domain/ids.ts';
import { createApiClient, createStore } from '../../src/domain/stores.ts';
import { configureWebhookAddressPolicy, createWebhookSubscription } from '../../src/domain/webhooks.ts';
import { databaseName } from '../support/globalSetup.ts';
import { exited, startService, type Service } from '../support/service.ts';
import { startReceiver, waitFor, type Receiver } from '../webhooks/support.ts';

const ROUNDS = 5;
const WRITERS = 6;
const PRODUCTS = 8;
/** Acknowledged writes per round before the kill: a fixed part and a random part, so kills land at varied points. */
const ACKS_BEFORE_KILL = [40, 80] as const;
const RESTART_LIMIT_MS = 10_000;

type WriteKind = 'customer' | 'order' | 'adjustment';

interface Acknowledged {
  round: number;
  kind: WriteKind;
  /** E-mail, merchant order id or adjustment referenceId. */
  key: string;
}

interface RoundFigures {
  round: number;
  acknowledged: Record<WriteKind, number>;
  /** Requests without an answer when the service died: they may or may not have committed. */
  unanswered: number;
  refused: string[];
  /** From spawning the restarted service to its first 200 on /readyz. */
  restartToReadyMs: number;
  restartToListeningMs: number;
  /** From spawning to the service's "database opened" log line (PGlite: WASM start and crash recovery). */
  restartToDatabaseOpenMs: number;
}

interface Fixture {
  storeId: string;
  secret: string;
  subscriptionId: string;
  levelIds: string[];
  productIds: string[];
}

interface Target {
  name: 'PGlite' | 'PostgreSQL';
  url: string;
  /** Opens the database (a PGlite directory through the running service's socket, if one runs). */
  open(): Promise<Database>;
  dispose(): Promise<void>;
}

function pgliteTarget(): Target {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crash-soak-'));
  const url = `pglite:${path.join(dir, 'db')}`;
  return { name: 'PGlite', url, open: () => openDatabase(url), dispose: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

async function postgresTarget(serverUrl: string): Promise<Target> {
  const name = `soak_${crypto.randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = databaseName(serverUrl, name);
  return { name: 'PostgreSQL', url, open: () => openDatabase(url, { poolSize: 2 }), dispose: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

async function prepare(target: Target, receiver: Receiver): Promise<Fixture> {
  const db = await target.open();
  try {
    await applyMigrations(db);
    configureWebhookAddressPolicy({ allowLoopback: true });
    const { id: storeId } = await createStore(db.prisma, { name: 'Soak store' });
    const { secret } = await createApiClient(db.prisma, { storeId, name: 'soak', scopes: SCOPES });
    const store = await db.prisma.store.findUniqueOrThrow({ where: { id: storeId } });
    const productIds: string[] = [];
    const levelIds: string[] = [];
    for (let p = 0; p < PRODUCTS; p++) {
      const { id: productId } = await db.prisma.product.create({ data: { id: newId('product'), storeId, title: `Soak product ${p}`, sku: `SOAK-${p}` } });
      // Little stock, so orders soon commit past it (oversold) while adjustments keep adding.
      const { id: levelId } = await db.prisma.inventoryLevel.create({
        data: { id: newId('inventoryLevel'), storeId, productId, locationId: store.defaultLocationId!, quantity: 5 },
      });
      productIds.push(productId);
      levelIds.push(levelId);
    }
    const subscription = await createWebhookSubscription(db.prisma, storeId, {
      url: `${receiver.url}/soak`,
      topics: ['customer.created', 'customer.updated', 'order.created', 'inventory_level.updated'],
    });
    return { storeId, secret, subscriptionId: subscription.id, productIds, levelIds };
  } finally {
    await db.close();
  }
}

/** When the service logged `msg` (its JSON log lines carry an ISO `time`), in ms since the epoch. */
function logTime(output: string, msg: string): number | undefined {
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const record = JSON.parse(line) as { msg?: string; time?: string };
      if (record.msg === msg && record.time) return Date.parse(record.time);
    } catch {
      // not a log record
    }
  }
  return undefined;
}

/** Spawns the service and waits for /readyz to answer 200. */
async function startAndWaitReady(target: Target): Promise<{ service: Service; toDatabaseOpenMs: number; toListeningMs: number; toReadyMs: number }> {
  const spawnedAt = Date.now();
  const started = performance.now();
  const service = await startService(target.url, { LOG_LEVEL: 'info' });
  const toListeningMs = performance.now() - started;
  const toDatabaseOpenMs = (logTime(service.output(), 'database opened') ?? Number.NaN) - spawnedAt;
  await waitFor(
    async () => (await fetch(`${service.url}/readyz`).then((r) => r.status).catch(() => 0)) === 200,
    '/readyz to answer 200',
    60_000,
    25,
  );
  return { service, toDatabaseOpenMs, toListeningMs, toReadyMs: performance.now() - started };
}

/** One write of `kind`; true when acknowledged, false when the service gave no answer, throws on a refusal. */
async function write(service: Service, fixture: Fixture, kind: WriteKind, key: string, n: number): Promise<boolean> {
  const headers = { authorization: `Bearer ${fixture.secret}`, 'content-type': 'application/json' };
  let response: Response;
  try {
    if (kind === 'customer') {
      response = await fetch(`${service.url}/v2.2/stores/${fixture.storeId}/customers`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ email: key, firstName: 'Soak', lastName: String(n) }),
      });
    } else if (kind === 'order') {
      const product = n % PRODUCTS;
      response = await fetch(`${service.url}/v2.2/stores/${fixture.storeId}/orders`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          orderId: key,
          createdAt: new Date().toISOString(),
          lineItems: [{ id: '1', productId: fixture.productIds[product], title: `Soak product ${product}`, quantity: 1 + (n % 3) }],
        }),
      });
    } else {
      response = await fetch(`${service.url}/v3/graphql`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          query: 'mutation($input: InventoryAdjustInput!) { inventoryAdjust(input: $input) { inventoryLevel { id } userErrors { message } } }',
          variables: { input: { inventoryLevelId: fixture.levelIds[n % PRODUCTS], quantityDelta: 1, reason: 'soak', referenceId: key } },
        }),
      });
    }
  } catch {
    return false;
  }
  let text: string;
  try {
    text = await response.text();
  } catch {
    return false;
  }
  const refused = () => new Error(`${kind} ${key} refused: ${response.status} ${text.slice(0, 300)}`);
  if (response.status >= 500) return false;
  if (response.status >= 300) throw refused();
  if (kind === 'adjustment') {
    const body = JSON.parse(text) as { data?: { inventoryAdjust?: { inventoryLevel: unknown; userErrors: unknown[] } } };
    if (!body.data?.inventoryAdjust?.inventoryLevel || body.data.inventoryAdjust.userErrors.length > 0) throw refused();
  }
  return true;
}

async function runRound(round: number, service: Service, fixture: Fixture, acknowledged: Acknowledged[]) {
  const killAfter = ACKS_BEFORE_KILL[0] + Math.floor(Math.random() * ACKS_BEFORE_KILL[1]);
  const counts: Record<WriteKind, number> = { customer: 0, order: 0, adjustment: 0 };
  const refused: string[] = [];
  let acks = 0;
  let unanswered = 0;
  let next = 0;
  let killed = false;
  const kinds: WriteKind[] = ['customer', 'order', 'adjustment'];
  const writer = async () => {
    while (!killed) {
      const n = next++;
      const kind = kinds[n % kinds.length];
      const key = kind === 'customer' ? `r${round}-${n}@soak.example.com` : `r${round}-${n}`;
      let answered: boolean;
      try {
        answered = await write(service, fixture, kind, key, n);
      } catch (error) {
        refused.push((error as Error).message);
        continue;
      }
      if (!answered) {
        unanswered++;
        continue;
      }
      // An answer that arrives after the kill was still sent by the service: it counts.
      acknowledged.push({ round, kind, key });
      counts[kind]++;
      if (++acks === killAfter && !killed) {
        killed = true;
        service.child.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
  await exited(service.child);
  return { counts, unanswered, refused };
}

interface SoakResult {
  rounds: RoundFigures[];
  failures: string[];
  events: number;
  received: number;
  redelivered: number;
  oversoldLines: number;
}

async function verify(target: Target, fixture: Fixture, acknowledged: Acknowledged[], receiver: Receiver) {
  const failures: string[] = [];
  const db = await target.open();
  try {
    const customers = new Set((await db.prisma.customer.findMany({ where: { storeId: fixture.storeId }, select: { email: true } })).map((c) => c.email));
    const orders = new Set((await db.prisma.order.findMany({ where: { storeId: fixture.storeId }, select: { externalId: true } })).map((o) => o.externalId));
    const adjustments = new Set(
      (await db.prisma.inventoryAdjustment.findMany({ where: { reason: 'soak' }, select: { referenceId: true } })).map((a) => a.referenceId),
    );
    const present = { customer: customers, order: orders, adjustment: adjustments };
    for (const write of acknowledged) {
      if (!present[write.kind].has(write.key)) failures.push(`round ${write.round}: acknowledged ${write.kind} ${write.key} is missing`);
    }

    const deliveries = await db.prisma.webhookDelivery.findMany({
      where: { subscriptionId: fixture.subscriptionId },
      orderBy: { sequence: 'asc' },
      select: { eventId: true, subjectId: true, status: true },
    });
    const notDelivered = deliveries.filter((d) => d.status !== 'DELIVERED');
    if (notDelivered.length > 0) failures.push(`${notDelivered.length} deliveries are not DELIVERED (first: ${notDelivered[0].eventId} ${notDelivered[0].status})`);
    const recorded = new Map<string, string[]>();
    for (const d of deliveries) recorded.set(d.subjectId, [...(recorded.get(d.subjectId) ?? []), d.eventId]);
    // Arrivals per subject with back-to-back repeats (a redelivery after a kill) folded.
    const arrived = new Map<string, string[]>();
    let redelivered = 0;
    for (const { body } of receiver.requests) {
      const list = arrived.get(body.subjectId) ?? [];
      if (list.at(-1) === body.id) redelivered++;
      else list.push(body.id);
      arrived.set(body.subjectId, list);
    }
    for (const [subject, expected] of recorded) {
      const got = arrived.get(subject) ?? [];
      if (got.join() !== expected.join()) failures.push(`subject ${subject}: received ${got.length} events out of order or incomplete (expected ${expected.length})`);
    }
    const oversoldLines = await db.prisma.orderLineItem.count({ where: { order: { storeId: fixture.storeId }, oversoldQuantity: { gt: 0 } } });
    return { failures, events: deliveries.length, redelivered, oversoldLines };
  } finally {
    await db.close();
  }
}

async function soak(target: Target): Promise<SoakResult> {
  const receiver = await startReceiver(async () => {
    await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 3)));
    return { status: 200 };
  });
  const rounds: RoundFigures[] = [];
  const failures: string[] = [];
  const acknowledged: Acknowledged[] = [];
  let service: Service | undefined;
  try {
    const fixture = await prepare(target, receiver);
    ({ service } = await startAndWaitReady(target));
    for (let round = 1; round <= ROUNDS; round++) {
      const { counts, unanswered, refused } = await runRound(round, service, fixture, acknowledged);
      const restart = await startAndWaitReady(target);
      service = restart.service;
      rounds.push({
        round,
        acknowledged: counts,
        unanswered,
        refused,
        restartToDatabaseOpenMs: Math.round(restart.toDatabaseOpenMs),
        restartToListeningMs: Math.round(restart.toListeningMs),
        restartToReadyMs: Math.round(restart.toReadyMs),
      });
      if (refused.length > 0) failures.push(`round ${round}: ${refused.length} writes refused, first: ${refused[0]}`);
      if (restart.toReadyMs > RESTART_LIMIT_MS) failures.push(`round ${round}: /readyz took ${Math.round(restart.toReadyMs)} ms after the restart`);
    }
    // The last service delivers what is left (watched through its own database
    // connection: a PGlite directory is reached through the running service's socket),
    // then stops cleanly and the database is checked.
    const watcher = await target.open();
    try {
      await waitFor(
        async () => (await watcher.prisma.webhookDelivery.count({ where: { subscriptionId: fixture.subscriptionId, status: 'PENDING' } })) === 0,
        'every webhook delivery to finish',
        60_000,
        100,
      );
    } finally {
      await watcher.close();
    }
    service.child.kill('SIGTERM');
    await exited(service.child);
    service = undefined;
    const checked = await verify(target, fixture, acknowledged, receiver);
    failures.push(...checked.failures);
    return { rounds, failures, events: checked.events, received: receiver.requests.length, redelivered: checked.redelivered, oversoldLines: checked.oversoldLines };
  } finally {
    if (service && service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGKILL');
      await exited(service.child);
    }
    await receiver.close();
  }
}

function report(target: Target, result: SoakResult): void {
  const lines = [`crash soak on ${target.name}: ${ROUNDS} rounds of SIGKILL during mixed writes`];
  for (const r of result.rounds) {
    lines.push(
      `  round ${r.round}: acknowledged ${r.acknowledged.customer} customers, ${r.acknowledged.order} orders, ${r.acknowledged.adjustment} adjustments; ` +
        `${r.unanswered} unanswered at the kill; restart: database open ${r.restartToDatabaseOpenMs} ms, listening ${r.restartToListeningMs} ms, /readyz ${r.restartToReadyMs} ms`,
    );
  }
  const ready = result.rounds.map((r) => r.restartToReadyMs);
  const acknowledged = result.rounds.reduce((sum, r) => sum + r.acknowledged.customer + r.acknowledged.order + r.acknowledged.adjustment, 0);
  lines.push(
    `  ${acknowledged} acknowledged writes checked after the restarts; restart to /readyz max ${Math.max(...ready)} ms (limit ${RESTART_LIMIT_MS} ms); ` +
      `${result.events} events, ${result.received} webhook requests, ${result.redelivered} redelivered after a kill; ${result.oversoldLines} oversold order lines`,
  );
  lines.push(result.failures.length === 0 ? '  all checks passed' : `  FAILED:\n${result.failures.map((f) => `    - ${f}`).join('\n')}`);
  process.stdout.write(lines.join('\n') + '\n');
}

async function main(): Promise<void> {
  const targets: (() => Promise<Target>)[] = [async () => pgliteTarget()];
  const postgresUrl = process.env.TEST_DATABASE_URL;
  if (postgresUrl) targets.push(() => postgresTarget(postgresUrl));
  else process.stdout.write('crash soak: TEST_DATABASE_URL is not set, PostgreSQL skipped\n');
  let failed = false;
  for (const make of targets) {
    const target = await make();
    try {
      const result = await soak(target);
      report(target, result);
      failed ||= result.failures.length > 0;
    } finally {
      await target.dispose();
    }
  }
  process.exit(failed ? 1 : 0);
}

main().catch((error) => {
  process.stderr.write(`crash soak failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
