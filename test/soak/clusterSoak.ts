// Cluster soak (`npm run soak:cluster`; not in CI, see the README): three instances of the
// built service (as `npm start` runs it) behind HAProxy, on a throwaway PostgreSQL server of
// their own (initdb in a temporary directory, its own loopback port) and the local Redis.
// Writers send mixed REST and v3 writes through the balancer, webhooks go to two
// subscribers, a budget client keeps asking past its rate limit; meanwhile each instance is
// killed with SIGKILL in turn (and started again), then PostgreSQL restarts once. It checks:
//   - every write the cluster acknowledged is in the database;
//   - a killed instance costs only the requests that were in flight on it: none sent after
//     the process was gone fails (the balancer retries refused connections on the other
//     instances), and none fails before the first kill;
//   - every webhook event reached its subscriber, per subject in the order the outbox
//     recorded, whichever instance's dispatcher sent it (repeats are counted);
//   - the budget client is admitted at most its limit per one-minute window (plus the
//     requests it has in flight) although its requests reach all three instances.
// It prints the figures of every failover and exits non-zero when a check fails.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { openDatabase } from '../../src/db/client.ts';
import type { Database } from '../../src/db/database.ts';
import type { Topic } from '../../src/domain/events.ts';
import { createApiClient } from '../../src/domain/stores.ts';
import { freePort, startPostgresServer } from '../support/postgresServer.ts';
import { exited, startService } from '../support/service.ts';
import { startReceiver, waitFor, type Receiver } from '../webhooks/support.ts';
import { cleanups, ensurePackages, instancesHaproxyConfig, runSoak, startHaproxy, watchRotation, type Instance } from './cluster.ts';
import { checkDeliveries, missingWrites, prepareFixture, write, WRITE_KINDS, writeKey, type Acknowledged, type DeliveryCheck, type Fixture, type WriteKind } from './support.ts';

const INSTANCES = 3;
const WRITERS = 6;
/** The budget client's limit: RATE_LIMIT_COMPAT_PER_MINUTE, a door only that client uses (the writers' REST limit is out of reach). */
const BUDGET_LIMIT = 120;
/** Budget requests in flight at once, each loop pausing between requests: about 25 a second, 12 times the limit. */
const BUDGET_LOOPS = 3;
const BUDGET_PAUSE_MS = 100;
const WINDOW_MS = 60_000;
/** Load before the first event, and from one event to the next: the run lasts past two rate-limit windows. */
const EVENT_SPACING_MS = 25_000;
/** Steady load between a killed instance leaving the rotation and its restart. */
const DEGRADED_MS = 5_000;
const HEALTH_CHECK_INTERVAL_MS = 250;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Two subscriptions with overlapping topics: an order's event goes to both, under the same Webhook-Id. */
const SUBSCRIBERS: { name: string; topics: Topic[] }[] = [
  { name: 'customers', topics: ['customer.created', 'customer.updated', 'order.created'] },
  { name: 'stock', topics: ['order.created', 'inventory_level.updated'] },
];

async function startInstance(instance: Instance, databaseUrl: string, cursorSecret: string): Promise<void> {
  instance.service = await startService(
    databaseUrl,
    {
      PORT: String(instance.port),
      REDIS_URL,
      CURSOR_SECRET: cursorSecret,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_REST_PER_MINUTE: '1000000',
      RATE_LIMIT_COMPAT_PER_MINUTE: String(BUDGET_LIMIT),
    },
    'build',
  );
}

type RequestKind = WriteKind | 'budget';

interface Sample {
  kind: RequestKind;
  sentAt: number;
  answeredAt: number;
  /** Why it failed; absent when it was answered as it should be (a 429 is the budget client's due). */
  failure?: string;
}

interface BudgetAnswer {
  answeredAt: number;
  status: number | null;
  server: string | null;
}

/** The writers and the budget client, through the balancer, until stopped. */
function startLoad(frontUrl: string, fixture: Fixture, budgetSecret: string) {
  const samples: Sample[] = [];
  const acknowledged: Acknowledged[] = [];
  const refused: string[] = [];
  const budget: BudgetAnswer[] = [];
  let stopped = false;
  let next = 0;
  const writer = async () => {
    while (!stopped) {
      const n = next++;
      const kind = WRITE_KINDS[n % WRITE_KINDS.length];
      const key = writeKey(kind, 'c', n);
      const sentAt = performance.now();
      const outcome = await write(frontUrl, fixture, kind, key, n);
      const sample: Sample = { kind, sentAt, answeredAt: performance.now() };
      if (outcome.result === 'acknowledged') acknowledged.push({ kind, key });
      else if (outcome.result === 'failed') sample.failure = outcome.reason;
      else {
        sample.failure = 'refused';
        refused.push(outcome.message);
      }
      samples.push(sample);
    }
  };
  const budgetClient = async () => {
    while (!stopped) {
      const sentAt = performance.now();
      const answer: BudgetAnswer = { answeredAt: 0, status: null, server: null };
      try {
        const response = await fetch(`${frontUrl}/api/v1/warehouse/return/list`, { headers: { 'x-authorization': budgetSecret } });
        await response.text();
        answer.status = response.status;
        answer.server = response.headers.get('x-served-by');
      } catch {
        // no answer: recorded as such
      }
      answer.answeredAt = performance.now();
      budget.push(answer);
      const ok = answer.status !== null && (answer.status < 300 || answer.status === 429);
      samples.push({ kind: 'budget', sentAt, answeredAt: answer.answeredAt, failure: ok ? undefined : answer.status === null ? 'no answer' : `HTTP ${answer.status}` });
      await sleep(BUDGET_PAUSE_MS);
    }
  };
  const running = Promise.all([...Array.from({ length: WRITERS }, writer), ...Array.from({ length: BUDGET_LOOPS }, budgetClient)]);
  return {
    samples,
    acknowledged,
    refused,
    budget,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

interface Event {
  name: string;
  at: number;
  /** What the balancer and the restart did, already in words. */
  notes: string[];
  /**
   * A kill: when the soak saw the killed process exit. The exit event waits for the soak's
   * busy event loop, so the first failure the kill caused may show the death earlier.
   */
  reapedAt?: number;
}

interface EventFigures {
  event: Event;
  failed: Sample[];
  /** From the event to the first answer to a request sent after the last failed one was sent. */
  servedAgainMs: number | undefined;
  slowestMs: number;
}

function eventFigures(event: Event, until: number, samples: Sample[]): EventFigures {
  const during = samples.filter((s) => s.answeredAt >= event.at && s.answeredAt < until);
  const failed = during.filter((s) => s.failure);
  const from = Math.max(event.at, ...failed.map((s) => s.sentAt));
  const served = during.filter((s) => !s.failure && s.sentAt >= from).map((s) => s.answeredAt);
  return {
    event,
    failed,
    servedAgainMs: served.length > 0 ? Math.min(...served) - event.at : undefined,
    slowestMs: Math.max(0, ...during.map((s) => s.answeredAt - s.sentAt)),
  };
}

function countBy<T>(items: T[], key: (item: T) => string): string {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n} ${k}`).join(', ');
}

interface BudgetWindow {
  admitted: number;
  refused: number;
  other: number;
  byServer: Map<string, number>;
}

/**
 * The budget client's answers per rate-limit window. The limiter's window starts at the
 * client's first admitted request and each next one right when the previous ends (the client
 * never pauses long), so windows are counted from the first request's sending: an answer is
 * placed by when it arrived, which can only move a request admitted at a window's end into
 * the next one, hence the allowance of the requests in flight.
 */
function budgetWindows(answers: BudgetAnswer[], startedAt: number): BudgetWindow[] {
  const windows: BudgetWindow[] = [];
  for (const answer of answers) {
    const index = Math.floor((answer.answeredAt - startedAt) / WINDOW_MS);
    windows[index] ??= { admitted: 0, refused: 0, other: 0, byServer: new Map() };
    const window = windows[index];
    if (answer.status === 429) window.refused++;
    else if (answer.status !== null && answer.status < 300) {
      window.admitted++;
      window.byServer.set(answer.server ?? '?', (window.byServer.get(answer.server ?? '?') ?? 0) + 1);
    } else window.other++;
  }
  return windows;
}

interface SoakResult {
  failures: string[];
  acknowledged: Acknowledged[];
  lost: number;
  samples: Sample[];
  figures: EventFigures[];
  deliveries: (DeliveryCheck & { name: string; requests: number })[];
  windows: BudgetWindow[];
}

async function verify(db: Database, fixture: Fixture, load: ReturnType<typeof startLoad>, events: Event[], receiver: Receiver, loadStoppedAt: number): Promise<SoakResult> {
  const failures: string[] = [];
  if (load.refused.length > 0) failures.push(`${load.refused.length} writes refused, first: ${load.refused[0]}`);
  const lost = await missingWrites(db, fixture.storeId, load.acknowledged);
  failures.push(...lost.slice(0, 20));

  const figures = events.map((event, i) => eventFigures(event, events[i + 1]?.at ?? loadStoppedAt, load.samples));
  for (const { event, failed } of figures) {
    if (event.reapedAt === undefined) continue;
    // A request sent before the process was gone may have reached it (it was in flight); one sent later must not fail.
    const diedAt = Math.min(event.reapedAt, ...failed.map((s) => s.answeredAt));
    const late = failed.filter((s) => s.sentAt > diedAt);
    if (late.length > 0) {
      const after = late.map((s) => Math.round(s.sentAt - diedAt)).join(', ');
      failures.push(`${event.name}: ${late.length} requests sent after the process was gone failed (${countBy(late, (s) => `${s.kind} ${s.failure}`)}; sent ${after} ms after)`);
    }
  }
  const steady = load.samples.filter((s) => s.failure && s.answeredAt < events[0].at);
  if (steady.length > 0) failures.push(`${steady.length} requests failed before anything was killed (${countBy(steady, (s) => `${s.kind} ${s.failure}`)})`);

  const deliveries: SoakResult['deliveries'] = [];
  for (const [i, { name }] of SUBSCRIBERS.entries()) {
    const requests = receiver.requests.filter((r) => r.path === `/${name}`);
    const checked = await checkDeliveries(db, fixture.subscriptionIds[i], requests);
    failures.push(...checked.failures.map((f) => `subscriber ${name}: ${f}`));
    deliveries.push({ name, requests: requests.length, ...checked });
  }

  const windows = budgetWindows(load.budget, load.samples.find((s) => s.kind === 'budget')!.sentAt);
  windows.forEach((w, i) => {
    if (w.admitted > BUDGET_LIMIT + BUDGET_LOOPS) failures.push(`budget window ${i + 1}: ${w.admitted} requests admitted, more than the limit ${BUDGET_LIMIT} + ${BUDGET_LOOPS} in flight`);
  });
  if (!windows.some((w) => w.refused > 0)) failures.push('the budget client never reached its limit, so the shared budget went untested');
  return { failures, acknowledged: load.acknowledged, lost: lost.length, samples: load.samples, figures, deliveries, windows };
}

function report(result: SoakResult, loadMs: number): void {
  const lines = [
    `cluster soak: ${INSTANCES} instances behind HAProxy on a throwaway PostgreSQL server and Redis; ${WRITERS} writers and a budget client for ${Math.round(loadMs / 1000)} s`,
  ];
  for (const { event, failed, servedAgainMs, slowestMs } of result.figures) {
    lines.push(
      `  ${event.name}: failed requests ${failed.length}${failed.length > 0 ? ` (${countBy(failed, (s) => `${s.kind} ${s.failure}`)})` : ''}; ` +
        `serving again after ${servedAgainMs === undefined ? '(never)' : `${Math.round(servedAgainMs)} ms`}; slowest answer ${Math.round(slowestMs)} ms; ${event.notes.join('; ')}`,
    );
  }
  lines.push(
    `  writes: ${result.acknowledged.length} acknowledged (${countBy(result.acknowledged, (w) => `${w.kind}s`)}), ${result.lost} lost; ` +
      `${result.samples.length} requests in all, ${result.samples.filter((s) => s.failure).length} failed`,
  );
  for (const d of result.deliveries) {
    lines.push(`  webhooks to ${d.name}: ${d.events} events, ${d.requests} requests, ${d.duplicates} duplicates (same Webhook-Id), order per subject ${d.failures.length === 0 ? 'held' : 'BROKEN'}`);
  }
  lines.push(`  rate-limit budget: limit ${BUDGET_LIMIT}/min for one client, ${BUDGET_LOOPS} requests in flight, allowed ${BUDGET_LIMIT + BUDGET_LOOPS} per window`);
  result.windows.forEach((w, i) => {
    const servers = [...w.byServer].sort().map(([server, n]) => `${server} ${n}`).join(', ');
    lines.push(`    window ${i + 1}: ${w.admitted} admitted (${servers}), ${w.refused} refused with 429, ${w.other} failed`);
  });
  lines.push(result.failures.length === 0 ? '  all checks passed' : `  FAILED:\n${result.failures.map((f) => `    - ${f}`).join('\n')}`);
  process.stdout.write(lines.join('\n') + '\n');
}

async function soak(): Promise<boolean> {
  ensurePackages('cluster soak', [{ command: 'haproxy', versionFlag: '-v', package: 'haproxy' }]);
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(`Redis at ${REDIS_URL} is unreachable (${(error as Error).message}); the shared budget needs it`);
  } finally {
    redis.disconnect();
  }

  const postgres = await startPostgresServer();
  cleanups.push(() => postgres.destroy());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cluster-soak-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const receiver = await startReceiver(async () => ({ status: 200, delayMs: Math.floor(Math.random() * 3) }));
  cleanups.push(() => receiver.close());

  const setup = await openDatabase(postgres.url, { poolSize: 2 });
  let fixture: Fixture;
  let budgetSecret: string;
  try {
    fixture = await prepareFixture(setup, SUBSCRIBERS.map(({ name, topics }) => ({ url: `${receiver.url}/${name}`, topics })));
    // A fresh API client, so its Redis counter (named after its id) is nobody else's and expires on its own.
    ({ secret: budgetSecret } = await createApiClient(setup.prisma, { storeId: fixture.storeId, name: 'budget', scopes: ['returns_read'] }));
  } finally {
    await setup.close();
  }

  const cursorSecret = crypto.randomBytes(32).toString('hex');
  const instances: Instance[] = [];
  for (let i = 1; i <= INSTANCES; i++) instances.push({ name: `i${i}`, port: await freePort() });
  cleanups.push(async () => {
    for (const { service } of instances) {
      if (service && service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
      if (service) await exited(service.child);
    }
  });
  // The first start builds dist/ when it is stale; the others then start from it together.
  await startInstance(instances[0], postgres.url, cursorSecret);
  await Promise.all(instances.slice(1).map((instance) => startInstance(instance, postgres.url, cursorSecret)));

  const frontPort = await freePort();
  const statsPort = await freePort();
  const haproxy = startHaproxy(dir, instancesHaproxyConfig(frontPort, statsPort, instances, HEALTH_CHECK_INTERVAL_MS));
  const rotation = watchRotation(`http://127.0.0.1:${statsPort}/stats`, INSTANCES);
  cleanups.push(() => rotation.stop());
  await waitFor(() => rotation.allUp() || haproxy.child.exitCode !== null, 'every instance in rotation', 60_000, 50);
  if (haproxy.child.exitCode !== null) throw new Error(`haproxy exited (${haproxy.child.exitCode}):\n${haproxy.output()}`);

  const frontUrl = `http://127.0.0.1:${frontPort}`;
  const load = startLoad(frontUrl, fixture, budgetSecret);
  const loadStartedAt = performance.now();
  const events: Event[] = [];
  const nextSlot = () => sleep(Math.max(0, loadStartedAt + (events.length + 1) * EVENT_SPACING_MS - performance.now()));

  for (const instance of instances) {
    await nextSlot();
    const event: Event = { name: `SIGKILL ${instance.name}`, at: performance.now(), notes: [] };
    events.push(event);
    instance.service!.child.kill('SIGKILL');
    await exited(instance.service!.child);
    event.reapedAt = performance.now();
    event.notes.push(`exit seen after ${Math.round(event.reapedAt - event.at)} ms`);
    const downAt = await rotation.until(instance.name, 'DOWN', event.at);
    event.notes.push(`out of rotation after ${Math.round(downAt - event.at)} ms`);
    await sleep(DEGRADED_MS);
    const spawnedAt = performance.now();
    await startInstance(instance, postgres.url, cursorSecret);
    const listeningAt = performance.now();
    const upAt = await rotation.until(instance.name, 'UP', spawnedAt);
    event.notes.push(`restarted: listening ${Math.round(listeningAt - spawnedAt)} ms, back in rotation ${Math.round(upAt - spawnedAt)} ms after spawning`);
  }

  await nextSlot();
  const restart: Event = { name: 'PostgreSQL restart (pg_ctl restart -m fast)', at: performance.now(), notes: [] };
  events.push(restart);
  await postgres.restart();
  restart.notes.push(`pg_ctl returned after ${Math.round(performance.now() - restart.at)} ms`);
  await waitFor(() => rotation.allUp(), 'every instance back in rotation', 60_000, 20);
  restart.notes.push(`every instance in rotation again after ${Math.round(performance.now() - restart.at)} ms`);

  await nextSlot();
  await load.stop();
  const loadStoppedAt = performance.now();

  // Deliveries a killed dispatcher held are sent again once their lease expires (15 s).
  const db = await openDatabase(postgres.url, { poolSize: 2 });
  try {
    await waitFor(
      async () => (await db.prisma.webhookDelivery.count({ where: { subscriptionId: { in: fixture.subscriptionIds }, status: 'PENDING' } })) === 0,
      'every webhook delivery to finish',
      120_000,
      200,
    );
    for (const { service } of instances) {
      service!.child.kill('SIGTERM');
      await exited(service!.child);
    }

    const result = await verify(db, fixture, load, events, receiver, loadStoppedAt);
    report(result, loadStoppedAt - loadStartedAt);
    return result.failures.length === 0;
  } finally {
    await db.close();
  }
}

runSoak('cluster soak', soak);
