// HA soak (`npm run soak:ha`; minutes, not in CI): the PostgreSQL HA deployment of the README
// under load, losing machines. Three PostgreSQL nodes under Patroni with synchronous
// replication (fsync on, every commit flushed on a synchronous standby), etcd as Patroni's
// store, all in temporary directories on loopback ports; HAProxy routing write connections to
// the leader and read connections to the replicas by Patroni's checks, and HTTP to three
// instances of the built service, which are given only those two database URLs.
//
// Writers send customer upserts (REST), orders and returns of them (REST) and stock
// adjustments (v3), each with an Idempotency-Key, and send a write that failed or got no
// answer again with the same key after Retry-After, until it is answered. Right after each
// acknowledged customer and order they read it back (read-your-writes, through any
// instance). Readers poll every API door (REST, v3, /v3/rest, the compat door). Two
// webhook subscribers receive the events. Meanwhile: SIGKILL to an instance, then to the
// PostgreSQL leader with its Patroni, later to a replica (the synchronous standby), each
// brought back afterwards.
//
// The instances use the local Redis when it answers (rate limits, live relay, read positions);
// HA_SOAK_POSITIONS=primary runs them without it, the read positions then on the primary.
//
// The last line printed is the summary as JSON: acknowledged writes lost, writes applied twice,
// requests that failed for good, per-subject webhook order, the time from the leader's loss to
// the first write served again, and the reads served meanwhile. It exits non-zero when one of
// those is not as it must be.
import crypto, { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { openDatabase } from '../../src/db/client.ts';
import type { Database } from '../../src/db/database.ts';
import type { Topic } from '../../src/domain/events.ts';
import { freePort, postgresBinDir } from '../support/postgresServer.ts';
import { exited, startService } from '../support/service.ts';
import { startReceiver, waitFor, type Receiver } from '../webhooks/support.ts';
import { cleanups, ensurePackages, instancesHaproxyConfig, runSoak, startHaproxy, watchRotation, type Instance } from './cluster.ts';
import {
  clusterMembers,
  haproxyDatabaseSections,
  healthy,
  killNode,
  patroniConfig,
  serverUser,
  startEtcd,
  startPatroni,
  stopNode,
  type ClusterSettings,
  type Member,
  type RunningNode,
} from './patroni.ts';
import { checkDeliveries, prepareFixture, PRODUCTS, type DeliveryCheck, type Fixture } from './support.ts';

const NAME = 'HA soak';
const INSTANCES = 3;
const NODES = 3;
const WRITERS = 6;
const READERS = 4;
/** Load before the first event, and between events once the cluster is whole again. */
const EVENT_SPACING_MS = 20_000;
/** How long an instance or a node stays down before it is brought back. */
const DOWN_MS = 8_000;
/** A write or read still failing this long after it was first sent has failed for good. */
const RETRY_BUDGET_MS = 120_000;
/** Wait before sending again when the answer named no Retry-After (no answer at all). */
const DEFAULT_RETRY_MS = 1_000;
const HEALTH_CHECK_INTERVAL_MS = 250;
/** Short, for loopback: a lost leader's key expires after `ttl` seconds, then a synchronous standby is promoted. */
const TIMING = { ttl: 10, loopWait: 1, retryTimeout: 3 };
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SUBSCRIBERS: { name: string; topics: Topic[] }[] = [
  { name: 'customers', topics: ['customer.created', 'customer.updated', 'order.created', 'return.created'] },
  { name: 'stock', topics: ['order.created', 'inventory_level.updated'] },
];

// ---------------------------------------------------------------- requests that are sent until answered

interface Attempt {
  sentAt: number;
  answeredAt: number;
  status: number | null;
  /** Why the attempt did not settle the request (no answer, 5xx, v3 UNAVAILABLE, 409 in progress). */
  failure?: string;
  /** The start of a failed answer's body. */
  detail?: string;
  replayed: boolean;
  server: string | null;
}

interface Settled {
  attempts: Attempt[];
  /** The answer that settled it: acknowledged (2xx), refused (another 4xx), or failed for good. */
  outcome: 'acknowledged' | 'refused' | 'failed';
  status: number | null;
  text: string;
}

interface Call {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** v3 error codes that say the service, not the request, failed: the request is sent again. */
const SERVICE_ERROR_CODES = new Set(['INTERNAL_SERVER_ERROR', 'UNAVAILABLE']);

function retryAfterMs(response: Response | undefined): number {
  const seconds = Number(response?.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_RETRY_MS;
}

/**
 * Sends `call` until it is answered for good: again after Retry-After when there was no
 * answer, a 5xx, a v3 service error, or a 409 saying the key's first request is still
 * running (the same key on every attempt, so a write the service honours keys for is made once).
 */
async function sendUntilAnswered(baseUrl: string, call: Call, stopAt: () => number): Promise<Settled> {
  const attempts: Attempt[] = [];
  const firstSent = performance.now();
  for (;;) {
    const attempt: Attempt = { sentAt: performance.now(), answeredAt: 0, status: null, replayed: false, server: null };
    attempts.push(attempt);
    let response: Response | undefined;
    let text = '';
    try {
      response = await fetch(baseUrl + call.path, {
        method: call.method,
        headers: { ...(call.body === undefined ? {} : { 'content-type': 'application/json' }), ...call.headers },
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: AbortSignal.timeout(30_000),
      });
      text = await response.text();
      attempt.status = response.status;
      attempt.replayed = response.headers.get('idempotent-replayed') === 'true';
      attempt.server = response.headers.get('x-served-by');
    } catch {
      attempt.failure = 'no answer';
    }
    attempt.answeredAt = performance.now();
    if (response) {
      if (response.status >= 500) {
        attempt.failure = `HTTP ${response.status}`;
        attempt.detail = text.slice(0, 160);
      }
      // The key's first request is still running (on some instance): asked to come back after Retry-After.
      else if (response.status === 409 && response.headers.has('retry-after') && call.headers?.['idempotency-key']) attempt.failure = 'HTTP 409 key in use';
      else if (response.status < 300 && call.path === '/v3/graphql') {
        const code = (JSON.parse(text) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code;
        if (code && SERVICE_ERROR_CODES.has(code)) attempt.failure = `v3 ${code}`;
      }
    }
    if (!attempt.failure) return { attempts, outcome: response!.status < 300 ? 'acknowledged' : 'refused', status: response!.status, text };
    if (attempt.answeredAt - firstSent > RETRY_BUDGET_MS || attempt.answeredAt > stopAt()) return { attempts, outcome: 'failed', status: attempt.status, text };
    await sleep(retryAfterMs(response));
  }
}

// ---------------------------------------------------------------- writers and readers

type WriteKind = 'customer' | 'order' | 'return' | 'adjustment';
const CYCLE: WriteKind[] = ['customer', 'order', 'return', 'adjustment'];

interface Write extends Settled {
  kind: WriteKind;
  key: string;
  /** What identifies it in the database: e-mail, orderId, the order a return is of, adjustment referenceId. */
  ref: string;
  /** The return's id from its answer. */
  returnId?: string;
  /** Read back right after its acknowledgement: whether the writer saw it, and whether a primary was serving writes then. */
  readBack?: { seen: boolean; duringFailover: boolean };
}

interface Read extends Settled {
  door: string;
}

function writeCall(fixture: Fixture, kind: WriteKind, key: string, n: number, order: { externalId: string } | undefined): { call: Call; ref: string } {
  const auth = { authorization: `Bearer ${fixture.secret}`, 'idempotency-key': key };
  const store = `/v2.2/stores/${fixture.storeId}`;
  if (kind === 'customer') {
    const email = `ha-${n}@soak.example.com`;
    return { ref: email, call: { method: 'PUT', path: `${store}/customers`, headers: auth, body: { email, firstName: 'Soak', lastName: String(n) } } };
  }
  if (kind === 'order') {
    const product = n % PRODUCTS;
    const orderId = `ha-${n}`;
    return {
      ref: orderId,
      call: {
        method: 'POST',
        path: `${store}/orders`,
        headers: auth,
        body: {
          orderId,
          createdAt: new Date().toISOString(),
          lineItems: [{ id: '1', productId: fixture.productIds[product], title: `Soak product ${product}`, quantity: 1 + (n % 3) }],
        },
      },
    };
  }
  if (kind === 'return') {
    return {
      ref: order!.externalId,
      call: {
        method: 'POST',
        path: `${store}/returns`,
        headers: auth,
        body: {
          data: {
            provider: 'shopify',
            externalOrderId: order!.externalId,
            items: [{ lineItemId: '1', quantity: 1, reason: 'Too small', compensation: 'refund' }],
            shippingAddress: { line1: '5 Elm St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' },
          },
        },
      },
    };
  }
  const referenceId = `ha-${n}`;
  return {
    ref: referenceId,
    call: {
      method: 'POST',
      path: '/v3/graphql',
      headers: auth,
      body: {
        query: 'mutation($input: InventoryAdjustInput!) { inventoryAdjust(input: $input) { inventoryLevel { id } userErrors { message } } }',
        variables: { input: { inventoryLevelId: fixture.levelIds[n % PRODUCTS], quantityDelta: 1, reason: 'ha soak', referenceId } },
      },
    },
  };
}

/** The read right after an acknowledged write of the same client, which must see it. */
function readBackCall(fixture: Fixture, write: Write): Call | undefined {
  const auth = { authorization: `Bearer ${fixture.secret}` };
  if (write.kind === 'customer') return { method: 'GET', path: `/v2.2/stores/${fixture.storeId}/customers?email=${encodeURIComponent(write.ref)}`, headers: auth };
  if (write.kind === 'order') {
    return {
      method: 'POST',
      path: '/v3/graphql',
      headers: auth,
      body: { query: 'query($e: String!) { orderByExternalId(externalId: $e) { id } }', variables: { e: write.ref } },
    };
  }
  return undefined;
}

function seenInAnswer(write: Write, answer: Settled): boolean {
  if (answer.outcome !== 'acknowledged') return false;
  if (write.kind === 'customer') return answer.status === 200;
  return (JSON.parse(answer.text) as { data?: { orderByExternalId?: { id: string } | null } }).data?.orderByExternalId != null;
}

function readCalls(fixture: Fixture): { door: string; call: Call }[] {
  const bearer = { authorization: `Bearer ${fixture.secret}` };
  return [
    { door: 'rest', call: { method: 'GET', path: `/v2.2/stores/${fixture.storeId}/returns?page-size=20`, headers: bearer } },
    {
      door: 'v3',
      call: { method: 'POST', path: '/v3/graphql', headers: bearer, body: { query: '{ inventoryLevels(first: 20) { nodes { id quantity committed } } }' } },
    },
    { door: 'v3rest', call: { method: 'GET', path: '/v3/rest/customers?first=20', headers: bearer } },
    { door: 'compat', call: { method: 'GET', path: '/api/v1/warehouse/return/list', headers: { 'x-authorization': fixture.secret } } },
  ];
}

interface Phase {
  /** Set while no primary serves writes: from the leader's loss to the first write served again. */
  failoverFrom?: number;
  failoverUntil?: number;
}

function startLoad(frontUrl: string, fixture: Fixture, phase: Phase) {
  const writes: Write[] = [];
  const reads: Read[] = [];
  let stopped = false;
  let stopAt = Number.POSITIVE_INFINITY;
  let next = 0;
  const inFailover = (at: number) => phase.failoverFrom !== undefined && at >= phase.failoverFrom && (phase.failoverUntil === undefined || at <= phase.failoverUntil);
  const writer = async () => {
    let returnable: { externalId: string } | undefined;
    while (!stopped) {
      const n = next++;
      let kind = CYCLE[n % CYCLE.length];
      if (kind === 'return' && !returnable) kind = 'order';
      const key = randomUUID();
      const { call, ref } = writeCall(fixture, kind, key, n, returnable);
      const settled = await sendUntilAnswered(frontUrl, call, () => stopAt);
      const write: Write = { kind, key, ref, ...settled };
      if (kind === 'adjustment' && settled.outcome === 'acknowledged') {
        const body = JSON.parse(settled.text) as { data?: { inventoryAdjust?: { userErrors: unknown[] } } };
        if (!body.data?.inventoryAdjust || body.data.inventoryAdjust.userErrors.length > 0) write.outcome = 'refused';
      }
      if (kind === 'return') {
        returnable = undefined;
        if (write.outcome === 'acknowledged') write.returnId = (JSON.parse(settled.text) as { return?: { id: string } }).return?.id;
      }
      if (kind === 'order' && write.outcome === 'acknowledged') returnable = { externalId: ref };
      const readBack = write.outcome === 'acknowledged' ? readBackCall(fixture, write) : undefined;
      if (readBack) {
        const answer = await sendUntilAnswered(frontUrl, readBack, () => stopAt);
        write.readBack = { seen: seenInAnswer(write, answer), duringFailover: inFailover(answer.attempts.at(-1)!.sentAt) };
      }
      writes.push(write);
    }
  };
  const reader = async (index: number) => {
    const calls = readCalls(fixture);
    for (let n = index; !stopped; n++) {
      const { door, call } = calls[n % calls.length];
      reads.push({ door, ...(await sendUntilAnswered(frontUrl, call, () => stopAt)) });
      await sleep(20);
    }
  };
  const running = Promise.all([...Array.from({ length: WRITERS }, writer), ...Array.from({ length: READERS }, (_, i) => reader(i))]);
  return {
    writes,
    reads,
    /** Stops sending new requests; those under way get until then plus the retry budget. */
    stop: async () => {
      stopped = true;
      stopAt = performance.now() + RETRY_BUDGET_MS;
      await running;
    },
  };
}

// ---------------------------------------------------------------- the cluster

interface Cluster {
  nodes: RunningNode[];
  members(): Promise<Member[] | undefined>;
  /** Resolves once three nodes run with a leader and a synchronous standby. */
  whole(timeoutMs?: number): Promise<Member[]>;
  nodeNamed(name: string): RunningNode;
}

async function startCluster(dir: string): Promise<Cluster> {
  const binDir = postgresBinDir();
  if (!binDir) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql');
  const user = serverUser();
  const etcdClient = await freePort();
  const etcd = startEtcd(dir, etcdClient, await freePort());
  cleanups.push(async () => {
    etcd.kill('SIGTERM');
    await exited(etcd);
  });
  await waitFor(
    () => fetch(`http://127.0.0.1:${etcdClient}/health`).then((r) => r.ok, () => false),
    'etcd to answer',
    30_000,
    100,
  );
  const nodes: RunningNode[] = [];
  for (let i = 1; i <= NODES; i++) {
    const nodeDir = path.join(dir, `pg${i}`);
    fs.mkdirSync(nodeDir);
    if (user) fs.chownSync(nodeDir, user.uid, user.gid);
    nodes.push({
      name: `pg${i}`,
      host: '127.0.0.1',
      postgresPort: await freePort(),
      restPort: await freePort(),
      dataDir: path.join(nodeDir, 'data'),
      configFile: path.join(nodeDir, 'patroni.yml'),
      logFile: path.join(nodeDir, 'patroni.log'),
    });
  }
  const settings: ClusterSettings = {
    scope: `ha-soak-${process.pid}`,
    etcdHosts: [`127.0.0.1:${etcdClient}`],
    binDir,
    timing: TIMING,
    authMethod: 'trust',
    clientNetwork: '127.0.0.1/32',
    passwords: { superuser: 'soak', replication: 'soak', rewind: 'soak' },
    socketDir: (node) => path.dirname(node.dataDir),
    maxConnections: 200,
  };
  for (const node of nodes) {
    fs.writeFileSync(node.configFile, patroniConfig(node, settings));
    if (user) fs.chownSync(node.configFile, user.uid, user.gid);
  }
  cleanups.push(async () => {
    for (const node of nodes) await stopNode(node);
  });
  const members = () => clusterMembers(nodes);
  // The first node initialises the cluster; the others then clone it.
  startPatroni(nodes[0]);
  await waitFor(async () => (await members())?.some((m) => m.role === 'leader' && m.state === 'running'), 'the first node to lead', 120_000, 200);
  for (const node of nodes.slice(1)) startPatroni(node);
  const whole = (timeoutMs = 180_000) => waitFor(async () => ((m) => (healthy(m, NODES) ? m : undefined))(await members()), 'the cluster to be whole', timeoutMs, 200);
  await whole();
  return { nodes, members, whole, nodeNamed: (name) => nodes.find((n) => n.name === name)! };
}

// ---------------------------------------------------------------- the run

/** Every service process's output, the killed ones' too. */
const serviceOutputs: (() => string)[] = [];

async function startInstance(instance: Instance, urls: { write: string; read: string }, redisUrl: string | undefined, cursorSecret: string): Promise<void> {
  instance.service = await startService(
    urls.write,
    {
      PORT: String(instance.port),
      DATABASE_REPLICA_URLS: urls.read,
      ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
      CURSOR_SECRET: cursorSecret,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_REST_PER_MINUTE: '1000000',
      RATE_LIMIT_COMPAT_PER_MINUTE: '1000000',
    },
    'build',
  );
  serviceOutputs.push(instance.service.output);
}

async function redisReachable(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: true, connectTimeout: 1_000 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return true;
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

interface Event {
  name: string;
  at: number;
  notes: string[];
}

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

/** What the database holds of the acknowledged writes: those missing, and those applied more than once. */
async function checkWrites(db: Database, fixture: Fixture, writes: Write[]) {
  const acknowledged = writes.filter((w) => w.outcome === 'acknowledged');
  const customers = new Set((await db.prisma.customer.findMany({ where: { storeId: fixture.storeId }, select: { email: true } })).map((c) => c.email));
  const orders = new Set((await db.prisma.order.findMany({ where: { storeId: fixture.storeId }, select: { externalId: true } })).map((o) => o.externalId));
  const returns = await db.sql.query<{ id: string; externalId: string }>(
    `SELECT r.id, o."externalId" FROM "Return" r JOIN "Order" o ON o.id = r."orderId" WHERE r."storeId" = $1`,
    [fixture.storeId],
  );
  const returnIds = new Set(returns.map((r) => r.id));
  const adjustments = await db.sql.query<{ referenceId: string; n: number }>(
    `SELECT "referenceId", count(*)::int AS n FROM "InventoryAdjustment" WHERE reason = 'ha soak' GROUP BY "referenceId"`,
  );
  const adjusted = new Map(adjustments.map((a) => [a.referenceId, a.n]));
  // A customer upsert applied again announces the customer again.
  const customerEvents = await db.sql.query<{ email: string; n: number }>(
    `SELECT c.email, count(*)::int AS n FROM "Event" e JOIN "Customer" c ON c.id = e."subjectId"
     WHERE e."storeId" = $1 AND e.topic IN ('customer.created', 'customer.updated') GROUP BY c.email`,
    [fixture.storeId],
  );
  const announced = new Map(customerEvents.map((c) => [c.email, c.n]));
  const returnsPerOrder = countBy(returns, (r) => r.externalId);

  const lost: string[] = [];
  for (const w of acknowledged) {
    const present =
      w.kind === 'customer' ? customers.has(w.ref) : w.kind === 'order' ? orders.has(w.ref) : w.kind === 'return' ? w.returnId !== undefined && returnIds.has(w.returnId) : adjusted.has(w.ref);
    if (!present) lost.push(`${w.kind} ${w.ref}`);
  }
  const twice: string[] = [];
  for (const w of writes) {
    const times = w.kind === 'customer' ? announced.get(w.ref) ?? 0 : w.kind === 'return' ? returnsPerOrder[w.ref] ?? 0 : w.kind === 'adjustment' ? adjusted.get(w.ref) ?? 0 : 0;
    if (times > 1) twice.push(`${w.kind} ${w.ref} (${times} times)`);
  }
  return { lost, twice };
}

async function soak(): Promise<boolean> {
  ensurePackages(NAME, [
    { command: 'haproxy', versionFlag: '-v', package: 'haproxy' },
    { command: 'patroni', versionFlag: '--version', package: 'patroni' },
    { command: 'etcd', versionFlag: '--version', package: 'etcd-server' },
  ]);
  const redisUrl = process.env.HA_SOAK_POSITIONS !== 'primary' && (await redisReachable()) ? REDIS_URL : undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-soak-'));
  // Kept, with every process's log, unless the soak passes.
  let keepDir = true;
  cleanups.push(() => {
    if (keepDir) process.stderr.write(`${NAME}: logs kept in ${dir}\n`);
    else fs.rmSync(dir, { recursive: true, force: true });
  });
  fs.chmodSync(dir, 0o755);

  const setupStarted = performance.now();
  const cluster = await startCluster(dir);
  process.stdout.write(`${NAME}: Patroni cluster whole after ${Math.round(performance.now() - setupStarted)} ms\n`);

  const instances: Instance[] = [];
  for (let i = 1; i <= INSTANCES; i++) instances.push({ name: `i${i}`, port: await freePort() });
  const ports = { front: await freePort(), stats: await freePort(), write: await freePort(), read: await freePort() };
  const haproxy = startHaproxy(
    dir,
    instancesHaproxyConfig(ports.front, ports.stats, instances, HEALTH_CHECK_INTERVAL_MS) +
      '\n' +
      haproxyDatabaseSections(cluster.nodes, { bind: '127.0.0.1', write: ports.write, read: ports.read }, { interMs: HEALTH_CHECK_INTERVAL_MS }),
  );
  const urls = { write: `postgresql://postgres@127.0.0.1:${ports.write}/postgres`, read: `postgresql://postgres@127.0.0.1:${ports.read}/postgres` };
  const rotation = watchRotation(`http://127.0.0.1:${ports.stats}/stats`, INSTANCES);
  const writeRotation = watchRotation(`http://127.0.0.1:${ports.stats}/stats`, 1, 'postgres_primary');
  cleanups.push(() => rotation.stop());
  cleanups.push(() => writeRotation.stop());
  await waitFor(() => writeRotation.allUp() || haproxy.child.exitCode !== null, 'the leader behind the write port', 30_000, 50);
  if (haproxy.child.exitCode !== null) throw new Error(`haproxy exited (${haproxy.child.exitCode}):\n${haproxy.output()}`);

  const receiver: Receiver = await startReceiver(async () => ({ status: 200, delayMs: Math.floor(Math.random() * 3) }));
  cleanups.push(() => receiver.close());
  const setup = await openDatabase(urls.write, { poolSize: 2 });
  let fixture: Fixture;
  try {
    fixture = await prepareFixture(setup, SUBSCRIBERS.map(({ name, topics }) => ({ url: `${receiver.url}/${name}`, topics })));
  } finally {
    await setup.close();
  }

  const cursorSecret = crypto.randomBytes(32).toString('hex');
  cleanups.push(async () => {
    for (const { service } of instances) {
      if (service && service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
      if (service) await exited(service.child);
    }
  });
  // The first start builds dist/ when it is stale; the others then start from it together.
  await startInstance(instances[0], urls, redisUrl, cursorSecret);
  await Promise.all(instances.slice(1).map((instance) => startInstance(instance, urls, redisUrl, cursorSecret)));
  await waitFor(() => rotation.allUp(), 'every instance in rotation', 60_000, 50);

  const frontUrl = `http://127.0.0.1:${ports.front}`;
  const phase: Phase = {};
  const load = startLoad(frontUrl, fixture, phase);
  const loadStartedAt = performance.now();
  const events: Event[] = [];
  const pause = () => sleep(EVENT_SPACING_MS);

  // 1. An instance dies.
  await pause();
  {
    const instance = instances[0];
    const event: Event = { name: `SIGKILL instance ${instance.name}`, at: performance.now(), notes: [] };
    events.push(event);
    instance.service!.child.kill('SIGKILL');
    await exited(instance.service!.child);
    const downAt = await rotation.until(instance.name, 'DOWN', event.at);
    event.notes.push(`out of rotation after ${Math.round(downAt - event.at)} ms`);
    await sleep(DOWN_MS);
    const spawnedAt = performance.now();
    await startInstance(instance, urls, redisUrl, cursorSecret);
    const upAt = await rotation.until(instance.name, 'UP', spawnedAt);
    event.notes.push(`back in rotation ${Math.round(upAt - spawnedAt)} ms after spawning`);
  }

  // 2. The PostgreSQL leader's machine is lost: its Patroni and PostgreSQL get SIGKILL.
  await pause();
  const failover = { newLeaderMs: undefined as number | undefined, writePortMs: undefined as number | undefined, firstWriteMs: undefined as number | undefined };
  {
    const before = await cluster.whole();
    const lostLeader = before.find((m) => m.role === 'leader')!.name;
    const event: Event = { name: `SIGKILL PostgreSQL leader ${lostLeader} and its Patroni`, at: performance.now(), notes: [] };
    events.push(event);
    phase.failoverFrom = event.at;
    await killNode(cluster.nodeNamed(lostLeader));
    const promoted = await waitFor(
      async () => (await cluster.members())?.find((m) => m.role === 'leader' && m.name !== lostLeader && m.state === 'running'),
      'a new leader',
      120_000,
      100,
    );
    failover.newLeaderMs = Math.round(performance.now() - event.at);
    event.notes.push(`Patroni promoted ${promoted.name} after ${failover.newLeaderMs} ms`);
    await writeRotation.until(promoted.name, 'UP', event.at);
    failover.writePortMs = Math.round(performance.now() - event.at);
    event.notes.push(`HAProxy's write port on it after ${failover.writePortMs} ms`);
    const firstWrite = await waitFor(
      () => {
        const served = load.writes.flatMap((w) => w.attempts).filter((a) => a.sentAt >= event.at && a.status !== null && a.status < 300 && !a.failure);
        return served.length > 0 ? Math.min(...served.map((a) => a.answeredAt)) : undefined;
      },
      'a write served after the failover',
      120_000,
      100,
    );
    phase.failoverUntil = firstWrite;
    failover.firstWriteMs = Math.round(firstWrite - event.at);
    event.notes.push(`first write served ${failover.firstWriteMs} ms after the loss`);
    await sleep(DOWN_MS);
    const restartedAt = performance.now();
    startPatroni(cluster.nodeNamed(lostLeader));
    await cluster.whole();
    event.notes.push(`${lostLeader} back as a replica (pg_rewind) ${Math.round(performance.now() - restartedAt)} ms after its restart`);
  }

  // 3. Later, a replica's machine is lost: the synchronous standby, so commits must move to the other one.
  await pause();
  {
    const before = await cluster.whole();
    const standby = before.find((m) => m.role === 'sync_standby')!.name;
    const event: Event = { name: `SIGKILL synchronous standby ${standby} and its Patroni`, at: performance.now(), notes: [] };
    events.push(event);
    await killNode(cluster.nodeNamed(standby));
    const moved = await waitFor(
      async () => (await cluster.members())?.find((m) => m.role === 'sync_standby' && m.name !== standby),
      'another synchronous standby',
      120_000,
      100,
    );
    event.notes.push(`${moved.name} synchronous standby after ${Math.round(performance.now() - event.at)} ms`);
    await sleep(DOWN_MS);
    const restartedAt = performance.now();
    startPatroni(cluster.nodeNamed(standby));
    await cluster.whole();
    event.notes.push(`${standby} back ${Math.round(performance.now() - restartedAt)} ms after its restart`);
  }

  await pause();
  await load.stop();
  const loadStoppedAt = performance.now();

  // Deliveries a killed dispatcher held are sent again once their lease expires.
  const db = await openDatabase(urls.write, { poolSize: 2 });
  try {
    await waitFor(
      async () => (await db.prisma.webhookDelivery.count({ where: { subscriptionId: { in: fixture.subscriptionIds }, status: 'PENDING' } })) === 0,
      'every webhook delivery to finish',
      180_000,
      250,
    );
    for (const { service } of instances) {
      service!.child.kill('SIGTERM');
      await exited(service!.child);
    }
    const { lost, twice } = await checkWrites(db, fixture, load.writes);
    const deliveries: (DeliveryCheck & { name: string; requests: number })[] = [];
    for (const [i, { name }] of SUBSCRIBERS.entries()) {
      const requests = receiver.requests.filter((r) => r.path === `/${name}`);
      deliveries.push({ name, requests: requests.length, ...(await checkDeliveries(db, fixture.subscriptionIds[i], requests)) });
    }
    const inFailover = (at: number) => at >= phase.failoverFrom! && at <= phase.failoverUntil!;
    const readsInFailover = load.reads.flatMap((r) => r.attempts.map((a) => ({ ...a, door: r.door }))).filter((a) => inFailover(a.answeredAt));
    const writes = load.writes;
    const retried = writes.filter((w) => w.attempts.length > 1);
    const failedForGood = [...writes.filter((w) => w.outcome === 'failed'), ...load.reads.filter((r) => r.outcome === 'failed')];
    const refused = writes.filter((w) => w.outcome === 'refused');
    const readBack = writes.filter((w) => w.readBack);
    const unseen = readBack.filter((w) => !w.readBack!.seen);
    const summary = {
      soak: 'ha',
      seconds: Math.round((loadStoppedAt - loadStartedAt) / 1000),
      instances: INSTANCES,
      postgresNodes: NODES,
      readPositions: redisUrl ? 'redis' : 'primary',
      writes: writes.length,
      acknowledgedWrites: writes.filter((w) => w.outcome === 'acknowledged').length,
      acknowledgedWritesLost: lost.length,
      writesAppliedTwice: twice.length,
      requestsFailedForGood: failedForGood.length,
      writesRefused: refused.length,
      webhookOrderKept: deliveries.every((d) => d.failures.length === 0),
      leaderLossToFirstWriteMs: failover.firstWriteMs,
      leaderLossToNewLeaderMs: failover.newLeaderMs,
      leaderLossToWritePortMs: failover.writePortMs,
      readsServedDuringFailover: readsInFailover.filter((a) => !a.failure && a.status !== null && a.status < 300).length,
      readsFailedDuringFailover: readsInFailover.filter((a) => a.failure).length,
      readFailuresDuringFailover: countBy(readsInFailover.filter((a) => a.failure), (a) => `${a.door} ${a.failure}`),
      readFailureAnswers: [...new Set(readsInFailover.filter((a) => a.detail).map((a) => `${a.door}: ${a.detail}`))].slice(0, 6),
      reads: load.reads.length,
      readsByDoor: countBy(load.reads.filter((r) => r.outcome === 'acknowledged'), (r) => r.door),
      ownWritesReadBack: readBack.length,
      ownWritesNotSeen: unseen.filter((w) => !w.readBack!.duringFailover).length,
      ownWritesNotSeenDuringFailover: unseen.filter((w) => w.readBack!.duringFailover).length,
      retriedWrites: countBy(retried, (w) => w.kind),
      retriedWritesReplayed: countBy(retried.filter((w) => w.attempts.at(-1)!.replayed || (w.kind === 'return' && w.status === 200)), (w) => w.kind),
      retryFailures: countBy(retried.flatMap((w) => w.attempts.filter((a) => a.failure)), (a) => a.failure!),
      webhooks: deliveries.map(({ name, events, requests, duplicates }) => ({ name, events, requests, duplicates })),
      events: events.map((e) => `${e.name}: ${e.notes.join('; ')}`),
    };
    const failures = [
      ...lost.slice(0, 10).map((w) => `acknowledged ${w} is missing`),
      ...twice.slice(0, 10).map((w) => `applied more than once: ${w}`),
      ...failedForGood.slice(0, 10).map((r) => `failed for good: ${'kind' in r ? `${(r as Write).kind} ${(r as Write).ref}` : (r as Read).door} (${r.attempts.at(-1)!.failure})`),
      ...refused.slice(0, 10).map((w) => `refused: ${w.kind} ${w.ref} after ${w.attempts.length} attempts: ${w.status} ${w.text.slice(0, 200)}`),
      ...deliveries.flatMap((d) => d.failures.map((f) => `subscriber ${d.name}: ${f}`)),
      ...unseen.filter((w) => !w.readBack!.duringFailover).slice(0, 10).map((w) => `the writer did not read its acknowledged ${w.kind} ${w.ref} back`),
    ];
    if (summary.readsServedDuringFailover === 0) failures.push('no read was served while there was no primary');
    process.stdout.write(
      [
        `${NAME}: ${INSTANCES} instances behind HAProxy, ${NODES} PostgreSQL nodes under Patroni (synchronous replication, fsync on), read positions in ${summary.readPositions}`,
        ...events.map((e) => `  ${e.name}: ${e.notes.join('; ')}`),
        failures.length === 0 ? '  all checks passed' : `  FAILED:\n${failures.map((f) => `    - ${f}`).join('\n')}`,
        JSON.stringify(summary),
      ].join('\n') + '\n',
    );
    keepDir = failures.length > 0;
    if (keepDir) for (const [i, output] of serviceOutputs.entries()) fs.writeFileSync(path.join(dir, `service-${i + 1}.log`), output());
    return failures.length === 0;
  } finally {
    await db.close();
  }
}

runSoak(NAME, soak);
