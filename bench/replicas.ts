// Reads on a streaming replica against reads on the primary (db/replicas.ts), measured from
// outside (bench/load.ts: autocannon in a process of its own). A PostgreSQL primary and a
// standby of their own (initdb, pg_basebackup; test/support/streamingReplica.ts) on this
// machine; a service instance per variant, in this process. The pages are v3's page of 20
// returns (POST /v3/graphql) and REST v2.2's (a GET with a validator, whose reads are held to
// a server that has replayed its change counters: conditionalRequests.ts). The bench checks
// that each replica variant's reads ran on the standby.
//   primary            no replicas configured: the page is read on the primary
//   replica            DATABASE_REPLICA_URLS set, positions on the primary: the client's
//                      position is looked up (it has none), the page read on the standby
//   replica, redis     the same with the positions in Redis
//   replica, own write the client wrote before, so its position is found and compared with
//                      the standby's (known, so no further statement)
//   REST, primary / REST, replica   the REST page without and with the replica (positions on
//                      the primary): the counters' position is compared with the standby's
// and the write side: a customer upsert without replicas, and with its position recorded on
// the primary or in Redis after the commit.
// Both servers run with production durability (fsync on, synchronous commit to the standby) and
// share this machine's cores, so a replica cannot add capacity here: the point is that routing
// costs the page nothing measurable, and what recording a position costs a write.
// BENCH_PROFILE=primary,replica writes a CPU profile of this process (the service) while those
// variants are under load (bench/profiles/), with a summary.
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { SCOPES } from '../src/auth/scopes.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import type { Database, OpenOptions } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { seedOrdersWithReturns } from './returnsSeed.ts';
import { createApiClient, createStore } from '../src/domain/stores.ts';
import { createLogger } from '../src/observability/logger.ts';
import { createApp, type App } from '../src/process/server.ts';
import { startStreamingPair, streamingPairUnavailable } from '../test/support/streamingReplica.ts';
import { measureLoad, type Measured, type Variant } from './load.ts';

const RETURNS = 200;
const PAGE = 20;
const CONNECTIONS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const ROUNDS = 3;
const WARMUP_SECONDS = 2;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PROFILED = (process.env.BENCH_PROFILE ?? '').split(',').filter(Boolean);
const PROFILE_DIR = fileURLToPath(new URL('./profiles', import.meta.url));
const PAGE_QUERY = JSON.stringify({
  query: `{ returns(first: ${PAGE}) { nodes { id number status createdAt total { amount currency } items { id quantity reason } order { id name } } } }`,
});

interface Instance {
  db: Database;
  app: App;
  url: string;
}

async function startInstance(url: string, replicas?: OpenOptions['replicas']): Promise<Instance> {
  const db = await openDatabase(url, { poolSize: CONNECTIONS, replicas });
  const config = { ...loadConfig({ LOG_LEVEL: 'silent' }), rateLimits: { rest: 100_000_000, compat: 100_000_000 } };
  const app = createApp({ db, config, logger: createLogger('silent') });
  app.server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  return { db, app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

async function seed(db: Database) {
  const { id: storeId } = await createStore(db.prisma, { name: 'Replica bench store' });
  const reader = await createApiClient(db.prisma, { storeId, name: 'reader', scopes: SCOPES });
  const writer = await createApiClient(db.prisma, { storeId, name: 'writer', scopes: SCOPES });
  await seedOrdersWithReturns(db, storeId, RETURNS / 2, 'bench');
  return { storeId, reader: reader.secret, writer: writer.secret };
}

function printTable(title: string, rows: Measured[]): void {
  const base = rows[0].rps;
  process.stdout.write(`${title}\n`);
  for (const row of rows) {
    process.stdout.write(
      `  ${row.name.padEnd(22)} ${row.rps.toFixed(0).padStart(6)} req/s  ${(row.rps / base).toFixed(2)}x  p50 ${row.p50} ms  p99 ${row.p99} ms  ${row.cpuMsPerRequest.toFixed(2)} ms CPU/request (service)\n`,
    );
  }
}

export async function run(): Promise<void> {
  const unavailable = streamingPairUnavailable();
  if (unavailable) {
    process.stdout.write(`skipped: ${unavailable}\n`);
    return;
  }
  // As in production: fsync on, and a commit acknowledged once the standby has flushed it, so a recorded position costs what a commit costs.
  const pair = await startStreamingPair({ applyDelay: '0', durable: true });
  const instances: Instance[] = [];
  try {
    const setup = await openDatabase(pair.primaryUrl, { poolSize: 2 });
    const fixture = await applyMigrations(setup)
      .then(() => seed(setup))
      .finally(() => setup.close());
    const replicas = { urls: [pair.standbyUrl], maxLagMs: 10_000 };
    const primary = await startInstance(pair.primaryUrl);
    const onReplica = await startInstance(pair.primaryUrl, replicas);
    const onReplicaRedis = await startInstance(pair.primaryUrl, { ...replicas, redisUrl: REDIS_URL });
    instances.push(primary, onReplica, onReplicaRedis);
    const reader = { authorization: `Bearer ${fixture.reader}`, 'content-type': 'application/json' };
    const writer = { authorization: `Bearer ${fixture.writer}`, 'content-type': 'application/json' };
    // The writer's one write: its position is then looked up and compared on every read.
    await fetch(`${onReplica.url}/v2.2/stores/${fixture.storeId}/customers`, {
      method: 'PUT',
      headers: writer,
      body: JSON.stringify({ email: 'writer@example.com', firstName: 'Once' }),
    });
    // Every variant answers the same page, from wherever it reads.
    const pageOf = (instance: Instance, headers: Record<string, string>) => ({ url: `${instance.url}/v3/graphql`, method: 'POST', headers, bodies: [PAGE_QUERY] });
    const restPageOf = (instance: Instance) => ({ url: `${instance.url}/v2.2/stores/${fixture.storeId}/returns?page-size=${PAGE}`, method: 'GET', headers: reader });
    const answers = await Promise.all([primary, onReplica, onReplicaRedis].map((i) => fetch(i.url + '/v3/graphql', { method: 'POST', headers: reader, body: PAGE_QUERY }).then((r) => r.text())));
    if (new Set(answers).size !== 1 || !answers[0].includes('"nodes"')) throw new Error(`the instances answer the page differently: ${answers[0].slice(0, 200)}`);

    const routed = new Map<string, number>();
    const observer = { routed: (target: string, reason: string) => routed.set(`${target} (${reason})`, (routed.get(`${target} (${reason})`) ?? 0) + 1), leftOut: () => undefined };
    for (const instance of [onReplica, onReplicaRedis]) instance.db.replicas!.observe(observer);
    const reads: Variant[] = [
      { name: 'primary', request: pageOf(primary, reader) },
      { name: 'replica', request: pageOf(onReplica, reader) },
      { name: 'replica, redis', request: pageOf(onReplicaRedis, reader) },
      { name: 'replica, own write', request: pageOf(onReplica, writer) },
      { name: 'REST, primary', request: restPageOf(primary) },
      { name: 'REST, replica', request: restPageOf(onReplica) },
    ];
    const options = { connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, warmupSeconds: WARMUP_SECONDS };
    const profile = PROFILED.length > 0 ? { variants: PROFILED, dir: PROFILE_DIR, label: 'replicas' } : undefined;
    const readRows = await measureLoad(reads, { ...options, profile });
    printTable(`returns page of ${PAGE} (${RETURNS} returns; ${CONNECTIONS} connections, ${SECONDS} s each)`, readRows);
    process.stdout.write(`  the replica variants' reads: ${[...routed].map(([where, count]) => `${count} ${where}`).join(', ')}\n`);
    // A validated page's change counters are read on the primary (reason "current"), and may be a moment ahead of
    // the standby, which replays as the primary writes: that page then reads on the primary ("behind").
    const misrouted = [...routed.keys()].filter((where) => where.startsWith('primary') && where !== 'primary (behind)' && where !== 'primary (current)');
    if (misrouted.length > 0) throw new Error(`replica variants read on the primary: ${misrouted.join(', ')}`);

    const upsert = (instance: Instance) => ({
      url: `${instance.url}/v2.2/stores/${fixture.storeId}/customers`,
      method: 'PUT',
      headers: { ...writer, 'content-type': 'application/json' },
      bodies: [JSON.stringify({ email: 'bench-{{unique}}@example.com', firstName: 'Bench' })],
    });
    const writeRows = await measureLoad(
      [
        { name: 'no replicas', request: upsert(primary) },
        { name: 'positions on primary', request: upsert(onReplica) },
        { name: 'positions in redis', request: upsert(onReplicaRedis) },
      ],
      options,
    );
    printTable(`customer upsert (new customers; ${CONNECTIONS} connections): the write position recorded after each commit`, writeRows);
  } finally {
    for (const instance of instances) {
      await instance.app.shutdown(1_000);
      await instance.db.close();
    }
    await pair.destroy();
  }
}
