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
import { openDatabase } from '../../src/db/client.ts';
import type { Database } from '../../src/db/database.ts';
import { databaseName } from '../support/globalSetup.ts';
import { exited, startService, type Service } from '../support/service.ts';
import { startReceiver, waitFor, type Receiver } from '../webhooks/support.ts';
import { checkDeliveries, missingWrites, prepareFixture, write, WRITE_KINDS, WRITE_TOPICS, writeKey, type Acknowledged, type Fixture, type WriteKind } from './support.ts';

const ROUNDS = 5;
const WRITERS = 6;
/** Acknowledged writes per round before the kill: a fixed part and a random part, so kills land at varied points. */
const ACKS_BEFORE_KILL = [40, 80] as const;
const RESTART_LIMIT_MS = 10_000;

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
    return await prepareFixture(db, [{ url: `${receiver.url}/soak`, topics: WRITE_TOPICS }]);
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

async function runRound(round: number, service: Service, fixture: Fixture, acknowledged: Acknowledged[]) {
  const killAfter = ACKS_BEFORE_KILL[0] + Math.floor(Math.random() * ACKS_BEFORE_KILL[1]);
  const counts: Record<WriteKind, number> = { customer: 0, order: 0, adjustment: 0 };
  const refused: string[] = [];
  let acks = 0;
  let unanswered = 0;
  let next = 0;
  let killed = false;
  const writer = async () => {
    while (!killed) {
      const n = next++;
      const kind = WRITE_KINDS[n % WRITE_KINDS.length];
      const key = writeKey(kind, `r${round}`, n);
      const outcome = await write(service.url, fixture, kind, key, n);
      if (outcome.result === 'refused') {
        refused.push(outcome.message);
        continue;
      }
      if (outcome.result === 'failed') {
        unanswered++;
        continue;
      }
      // An answer that arrives after the kill was still sent by the service: it counts.
      acknowledged.push({ kind, key });
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
  const db = await target.open();
  try {
    const failures = await missingWrites(db, fixture.storeId, acknowledged);
    const deliveries = await checkDeliveries(db, fixture.subscriptionIds[0], receiver.requests);
    failures.push(...deliveries.failures);
    const oversoldLines = await db.prisma.orderLineItem.count({ where: { order: { storeId: fixture.storeId }, oversoldQuantity: { gt: 0 } } });
    return { failures, events: deliveries.events, redelivered: deliveries.duplicates, oversoldLines };
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
        async () => (await watcher.prisma.webhookDelivery.count({ where: { subscriptionId: fixture.subscriptionIds[0], status: 'PENDING' } })) === 0,
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
