// Live updates (issue 26): how fast a committed change reaches SUBSCRIPTIONS open
// subscriptions on one instance, and how long it takes. The service runs as in production
// (src/main.ts in a child process, on a scratch PostgreSQL database); the subscribers run
// in a process of their own (liveWorker.mjs: plain node:http event streams), so parsing
// 1,000 streams never shares the server's event loop. Changes are committed from this
// process straight through the domain (adjustInventory on a Prisma client of its own, as
// another instance or a job would commit them), so the service's work is only the
// delivery: hear the NOTIFY, read the level once, send it down every stream.
//
// The floor, in the subscribers' process: a plain pg client LISTENing on the channel the
// service's feed hears, i.e. delivery with no service in between. Every time is taken on
// the clock both processes share (epoch ms from performance.timeOrigin + performance.now()),
// the commit's right after its transaction resolved here; PostgreSQL may hand the NOTIFY to
// listeners a little before this process reads its COMMIT answer, so the floor can be ~0.
//
// Every subscriber opens before the first commit, and the feed sends one event per commit in
// commit order, so a subscriber's n-th event is the n-th commit's. Each adjustment adds 1 to
// one level; the service reads the level when it sends the event (under a backlog it already
// shows later commits), so the n-th event must show a quantity of at least n, never less than
// the event before: the worker checks both.
//
// Phases: warm-up (not counted); burst (BURST_EVENTS commits back to back, faster than the
// service delivers to 1,000 streams: its delivery rate then is the most it sustains); steady
// (STEADY_EVENTS commits on a schedule at half that rate, or BENCH_LIVE_RATE: the latency of
// a load it keeps up with, whatever the machine). BURST_EVENTS stays below the service's
// SUBSCRIPTION_MAX_PENDING_EVENTS (256), so a burst's backlog never cuts a subscriber.
import { fork, type ChildProcess } from 'node:child_process';
import { cpuMsOf } from './load.ts';
import { fileURLToPath } from 'node:url';
import { scratchDatabase } from './scratchDatabase.ts';
import { openDatabase } from '../src/db/client.ts';
import { createProduct } from '../src/domain/catalog.ts';
import { adjustInventory, createLocation } from '../src/domain/inventory.ts';
import { createApiClient, createStore } from '../src/domain/stores.ts';
import { exited, startService } from '../test/support/service.ts';
import { waitFor } from '../test/webhooks/support.ts';

const SUBSCRIPTIONS = Number(process.env.BENCH_LIVE_SUBSCRIPTIONS ?? 1_000);
/** Commits/s of the steady phase; unset, half the burst's delivered events/s. */
const FIXED_RATE = process.env.BENCH_LIVE_RATE ? Number(process.env.BENCH_LIVE_RATE) : undefined;
const WARMUP_EVENTS = 10;
const WARMUP_RATE = 10;
const STEADY_EVENTS = Number(process.env.BENCH_LIVE_STEADY_EVENTS ?? 200);
const BURST_EVENTS = Number(process.env.BENCH_LIVE_BURST_EVENTS ?? 200);
const EVENTS = WARMUP_EVENTS + STEADY_EVENTS + BURST_EVENTS;
const WORKER = fileURLToPath(new URL('./liveWorker.mjs', import.meta.url));
const QUERY = 'subscription($productId: ID) { inventoryLevelUpdated(productId: $productId) { id quantity } }';

const now = () => performance.timeOrigin + performance.now();

interface WorkerResult {
  /** subscriber * EVENTS + n: when that subscriber received the n-th commit's event (epoch ms), NaN when it never did. */
  receipts: Float64Array;
  /** When the floor's listener heard each event (epoch ms). */
  floor: Float64Array;
  floorCount: number;
  outOfOrder: number;
  stale: number;
  extra: number;
  unexpected: string[];
  endedEarly: number;
}

type Reply =
  | { type: 'opened'; statuses: Record<string, number>; refusals: string[] }
  | { type: 'reached'; complete: boolean; lastAt: number }
  | ({ type: 'result' } & WorkerResult)
  | { type: 'failed'; error: string };

/** The subscribers' process, asked one thing at a time. */
function startSubscribers() {
  // No tsx loader: the worker is plain JavaScript. 'advanced' carries the receipt times as typed arrays.
  const child: ChildProcess = fork(WORKER, [], { execArgv: [], serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = <T extends Reply['type']>(message: Record<string, unknown>, expected: T): Promise<Extract<Reply, { type: T }>> =>
    new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the subscribers' process exited (${code}) while asked to ${String(message.type)}`));
      child.once('exit', onExit);
      child.once('message', (reply: Reply) => {
        child.off('exit', onExit);
        if (reply.type === expected) resolve(reply as Extract<Reply, { type: T }>);
        else reject(new Error(`the subscribers' process answered ${reply.type}: ${'error' in reply ? reply.error : ''}`));
      });
      child.send(message);
    });
  return { child, ask };
}

/** The service's live-update counters from /metrics (every label of a counter summed). */
async function liveMetrics(serviceUrl: string): Promise<{ open: number; sent: number; dropped: number }> {
  const text = await (await fetch(`${serviceUrl}/metrics`)).text();
  const sum = (name: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
      .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return { open: sum('graphql_subscriptions_open'), sent: sum('graphql_subscription_events_sent_total'), dropped: sum('graphql_subscriptions_dropped_total') };
}

/** CPU seconds a process has used (user + system), NaN where there is no /proc. */
const cpuSeconds = (pid: number | undefined) => cpuMsOf(pid) / 1000;

/** The q-quantile of values already sorted. */
const quantile = (sorted: Float64Array, q: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);

interface Phase {
  name: string;
  first: number;
  count: number;
  /** Just before its first commit. */
  started: number;
  /** CPU seconds each process used from the first commit until every subscriber had the last event (give or take the 20 ms the worker polls), and that time. */
  serviceCpuSeconds: number;
  subscribersCpuSeconds: number;
  seconds: number;
}

interface PhaseFigures {
  name: string;
  events: number;
  committedPerSecond: number;
  /** committed/s x subscriptions: what the subscribers would get if delivery cost nothing. */
  ceiling: number;
  deliveries: number;
  deliveriesPerSecond: number;
  missing: number;
  p50: number;
  p99: number;
  /** Per event, its last subscriber's latency: when the whole fan-out was done. */
  allP50: number;
  allP99: number;
  floorP50: number;
  floorP99: number;
  /** Shares of one core; on a busy machine the service may get less than it would use. */
  serviceCpu: number;
  subscribersCpu: number;
  /** The service's CPU time per delivery: what the machine's other load leaves unchanged. */
  serviceMicrosPerDelivery: number;
}

function figures(phase: Phase, commits: Float64Array, result: WorkerResult): PhaseFigures {
  const end = phase.first + phase.count;
  const latencies: number[] = [];
  const slowest = new Float64Array(phase.count).fill(Number.NEGATIVE_INFINITY);
  let lastReceipt = phase.started;
  for (let subscriber = 0; subscriber < SUBSCRIPTIONS; subscriber++) {
    for (let event = phase.first; event < end; event++) {
      const at = result.receipts[subscriber * EVENTS + event];
      if (Number.isNaN(at)) continue;
      const latency = at - commits[event];
      latencies.push(latency);
      slowest[event - phase.first] = Math.max(slowest[event - phase.first], latency);
      lastReceipt = Math.max(lastReceipt, at);
    }
  }
  const floor = Array.from(result.floor.subarray(phase.first, end), (at, i) => at - commits[phase.first + i]).filter((latency) => !Number.isNaN(latency));
  const sorted = Float64Array.from(latencies).sort();
  const all = slowest.filter((latency) => latency !== Number.NEGATIVE_INFINITY).sort();
  const floorSorted = Float64Array.from(floor).sort();
  const committedPerSecond = phase.count / ((commits[end - 1] - phase.started) / 1000);
  return {
    name: phase.name,
    events: phase.count,
    committedPerSecond,
    ceiling: committedPerSecond * SUBSCRIPTIONS,
    deliveries: latencies.length,
    deliveriesPerSecond: latencies.length / ((lastReceipt - phase.started) / 1000),
    missing: phase.count * SUBSCRIPTIONS - latencies.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    allP50: quantile(all, 0.5),
    allP99: quantile(all, 0.99),
    floorP50: quantile(floorSorted, 0.5),
    floorP99: quantile(floorSorted, 0.99),
    serviceCpu: phase.serviceCpuSeconds / phase.seconds,
    subscribersCpu: phase.subscribersCpuSeconds / phase.seconds,
    serviceMicrosPerDelivery: (phase.serviceCpuSeconds * 1e6) / latencies.length,
  };
}

const ms = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(Math.abs(value) < 10 ? 2 : 1));
const percent = (share: number) => (Number.isNaN(share) ? '-' : `${(100 * share).toFixed(0)}%`);
const count = (value: number) => Math.round(value).toLocaleString('en-US');
/** Service over floor; a floor under 0.05 ms (the NOTIFY came as the commit's answer did) gives no meaningful ratio. */
const ratio = (service: number, floor: number) => (floor >= 0.05 ? `${(service / floor).toFixed(0)}x` : '-');

function table(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  for (const row of [header, ...rows]) process.stdout.write(`  ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')}\n`);
}

function print(rows: PhaseFigures[]): void {
  process.stdout.write(
    `PostgreSQL, one service instance (src/main.ts in a child process), ${count(SUBSCRIPTIONS)} open subscriptions ` +
      `inventoryLevelUpdated(productId) { id quantity } in a process of their own; each event one adjustInventory committed from the bench process.\n` +
      'Throughput, beside its peer: committed/s x subscriptions, every event to every subscriber as it commits.\n',
  );
  table(
    ['phase', 'events', 'committed/s', 'peer: x subscriptions', 'deliveries', 'deliveries/s', 'missing', 'service CPU', 'us/delivery', 'subscribers CPU'],
    rows.map((r) => [
      r.name,
      String(r.events),
      r.committedPerSecond.toFixed(1),
      count(r.ceiling),
      count(r.deliveries),
      count(r.deliveriesPerSecond),
      String(r.missing),
      percent(r.serviceCpu),
      r.serviceMicrosPerDelivery.toFixed(0),
      percent(r.subscribersCpu),
    ]),
  );
  process.stdout.write(
    "CPU: share of one core used by the service and by the subscribers' process during the phase, and the service's CPU time per delivery " +
      '(the figure the machine\'s other load changes least).\n',
  );
  process.stdout.write(
    'Latency (ms) commit -> subscriber over every delivery, commit -> the last subscriber of each event (its whole fan-out), ' +
      "beside the floor: commit -> a plain pg LISTEN on live_events (the NOTIFY the service hears) in the subscribers' process.\n",
  );
  table(
    ['phase', 'subscriber p50', 'p99', 'last subscriber p50', 'p99', 'floor p50', 'p99', 'over floor p50', 'p99', 'ratio p50', 'p99'],
    rows.map((r) => [
      r.name,
      ms(r.p50),
      ms(r.p99),
      ms(r.allP50),
      ms(r.allP99),
      ms(r.floorP50),
      ms(r.floorP99),
      ms(r.p50 - r.floorP50),
      ms(r.p99 - r.floorP99),
      ratio(r.p50, r.floorP50),
      ratio(r.p99, r.floorP99),
    ]),
  );
}

export async function run(): Promise<void> {
  const scratch = await scratchDatabase('live');
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  let db: Awaited<ReturnType<typeof openDatabase>> | undefined;
  let subscribers: ReturnType<typeof startSubscribers> | undefined;
  try {
    // The service migrates the empty database as it starts.
    // BENCH_LIVE_CPU_PROF=<dir>: the service writes a CPU profile there when it stops (node --cpu-prof).
    const profile = process.env.BENCH_LIVE_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_LIVE_CPU_PROF}`] : [];
    service = await startService(scratch.url, { SUBSCRIPTIONS_PER_CLIENT: String(SUBSCRIPTIONS) }, 'source', profile);
    db = await openDatabase(scratch.url, { poolSize: 2 });
    const { id: storeId } = await createStore(db.prisma, { name: 'Live bench' });
    const { secret } = await createApiClient(db.prisma, { storeId, name: 'live bench', scopes: ['inventory_read', 'inventory_write'] });
    const { id: productId } = await createProduct(db.prisma, storeId, { title: 'Live bench product', sku: 'LIVE-1' });
    const { id: locationId } = await createLocation(db.prisma, storeId, { name: 'Live bench warehouse' });

    subscribers = startSubscribers();
    const opened = await subscribers.ask(
      { type: 'open', url: service.url, secret, query: QUERY, variables: { productId }, subscriptions: SUBSCRIPTIONS, events: EVENTS, databaseUrl: scratch.url },
      'opened',
    );
    if (opened.statuses['200'] !== SUBSCRIPTIONS) throw new Error(`subscriptions answered ${JSON.stringify(opened.statuses)}: ${opened.refusals.join(' | ')}`);
    // A stream's head may come before its subscription joins the feed; the gauge counts those that joined.
    await waitFor(async () => (await liveMetrics(service!.url)).open >= SUBSCRIPTIONS, `${SUBSCRIPTIONS} subscriptions open in the service`, 30_000, 50);

    const commits = new Float64Array(EVENTS);
    let levelId: string | undefined;
    let committed = 0;
    const commit = async () => {
      const level = await adjustInventory(db!.prisma, storeId, levelId ? { inventoryLevelId: levelId, quantityDelta: 1, reason: 'bench' } : { productId, locationId, quantityDelta: 1, reason: 'bench' });
      commits[committed++] = now();
      levelId = level.id;
    };
    /**
     * Commits `events` at `perSecond` (on a schedule, so a slow commit is caught up), or back to back without a rate,
     * and waits until every subscriber has them; resolves with the events/s delivered to all of them.
     */
    const phase = async (name: string, events: number, perSecond?: number): Promise<Phase & { deliveredPerSecond: number }> => {
      const first = committed;
      const cpuBefore = [cpuSeconds(service!.child.pid), cpuSeconds(subscribers!.child.pid)];
      const started = now();
      for (let i = 0; i < events; i++) {
        if (perSecond) {
          const wait = started + (i * 1000) / perSecond - now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        }
        await commit();
      }
      const { complete, lastAt } = await subscribers!.ask({ type: 'await', events: committed, timeoutMs: 60_000 }, 'reached');
      if (!complete) process.stdout.write(`${name}: not every subscriber had every event within 60 s of the last commit\n`);
      const seconds = (now() - started) / 1000;
      const [serviceCpuSeconds, subscribersCpuSeconds] = [cpuSeconds(service!.child.pid), cpuSeconds(subscribers!.child.pid)].map((cpu, i) => cpu - cpuBefore[i]);
      return { name, first, count: events, started, serviceCpuSeconds, subscribersCpuSeconds, seconds, deliveredPerSecond: events / ((lastAt - started) / 1000) };
    };

    await phase('warm-up', WARMUP_EVENTS, WARMUP_RATE);
    const burst = await phase('burst', BURST_EVENTS);
    const rate = FIXED_RATE ?? Math.max(1, Math.floor(burst.deliveredPerSecond / 2));
    const steady = await phase(`steady ${rate}/s`, STEADY_EVENTS, rate);
    const metrics = await liveMetrics(service.url);
    const result = await subscribers.ask({ type: 'collect' }, 'result');
    await exited(subscribers.child);
    subscribers = undefined;

    const rows = [figures(burst, commits, result), figures(steady, commits, result)];
    print(rows);
    if (burst.deliveredPerSecond >= 0.9 * rows[0].committedPerSecond) {
      process.stdout.write('The service delivered the burst as fast as it was committed: the most it sustains is above this rate, which the committer bounds.\n');
    }
    const missing = result.receipts.filter(Number.isNaN).length + EVENTS - result.floorCount;
    const expectedSent = EVENTS * SUBSCRIPTIONS;
    const faults = result.outOfOrder + result.stale + result.extra + result.unexpected.length;
    process.stdout.write(
      `every subscriber got every event, in order: ${missing === 0 && faults === 0 ? 'yes' : 'NO'} (${missing} missing, ${result.outOfOrder} out of order, ` +
        `${result.stale} older than their commit, ${result.extra} extra, ${result.unexpected.length} errors${result.unexpected.length > 0 ? `: ${result.unexpected.join(' | ')}` : ''}); ` +
        `streams ended by the service before the end: ${result.endedEarly}; the floor heard ${result.floorCount}/${EVENTS} announcements\n`,
    );
    process.stdout.write(
      `/metrics at the end: graphql_subscriptions_open ${metrics.open}, graphql_subscription_events_sent_total ${count(metrics.sent)} ` +
        `(${count(expectedSent)} expected, warm-up included), graphql_subscriptions_dropped_total ${metrics.dropped}${metrics.dropped > 0 ? '  <-- DROPPED SUBSCRIBERS' : ''}\n`,
    );
    if (missing > 0 || faults > 0 || result.endedEarly > 0 || metrics.dropped > 0) {
      throw new Error('events were lost, reordered, duplicated or subscribers dropped during the run');
    }
  } finally {
    subscribers?.child.kill();
    await db?.close();
    if (service) {
      service.child.kill('SIGTERM');
      await exited(service.child);
    }
    await scratch.drop();
  }
}
