// Reads on PostgreSQL streaming replicas (DATABASE_REPLICA_URLS), each client reading its own
// writes. Only the reads that the reads compiler builds (reads/reader.ts, below every
// resolver) come here; writes, transactions, `db.sql`, Prisma and LISTEN stay on the primary.
//
// Read-your-writes by WAL position: when a statement on the primary commits a write made for
// an actor (an API client, a merchant user, a shopper session; requestScope.ts), the same
// connection asks where the primary's WAL now ends (pg_current_wal_lsn(), which covers the
// commit) and raises that actor's position to it before the statement's result is handed
// back, so before the write is acknowledged. Positions live where every instance sees them:
// in Redis when REDIS_URL is set, else in a table on the primary ("ReadPosition"). A read of
// that actor then goes to a replica only if the replica has replayed that far
// (pg_last_wal_replay_lsn()), else to the primary. Replay positions are known per server
// (a balancer's read port reaches several), from the connection a read is about to use:
// a position once reached stays reached, and one short of a client's is trusted for
// POSITION_FRESH_MS before the server is asked again.
//
// Each replica is probed every PROBE_INTERVAL_MS. Its lag is how long ago the primary's WAL
// first went past what the replica has replayed (the primary's position is sampled at each
// probe), so an idle primary shows no lag and a replica stuck behind a moving one does. A
// replica lagging past DATABASE_REPLICA_MAX_LAG_MS, or down (a failed probe, connection or
// read), is left out of the reads with a warn line and a metric, and comes back by itself
// once a probe finds it well again.
//
// While the primary is unreachable (a failover), a read that fails on it is served by a
// replica in rotation: data as of the primary's loss, which holds every write a synchronous
// standby confirmed.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import DataLoader from 'dataloader';
import pg from 'pg';
import { Redis } from 'ioredis';
import { currentScope, type Actor, type RequestScope } from '../observability/requestScope.ts';
import type { Logger } from '../observability/logger.ts';
import { keepPoolAlive, pgChannel, type QueryOptions, type SqlChannel } from './sqlChannel.ts';
import { databaseFailure } from './failures.ts';
import type { StatementNamer } from './preparedPglite.ts';

export interface ReplicaOptions {
  /** postgresql:// URLs, each a standby or a balancer's read port in front of several. */
  urls: string[];
  /** A replica replaying further behind the primary than this is left out. */
  maxLagMs: number;
  /** Keep the actors' positions in this Redis (every instance sees them) instead of on the primary. */
  redisUrl?: string;
  logger?: Logger;
  /** Connections per replica. */
  poolSize?: number;
  probeIntervalMs?: number;
}

/** In rotation, left out for lagging past the bound, or left out for being unreachable. */
export type ReplicaState = 'in' | 'lagging' | 'down';

export interface ReplicaStatus {
  /** host:port/database, without credentials. */
  name: string;
  state: ReplicaState;
  /** Replay lag at the last probe that reached it. */
  lagMs: number | undefined;
}

export type ReadTarget = 'replica' | 'primary';

/**
 * Why a read went where it did: `replica`; to the primary because it must be current
 * (outside any client's request, or pinned by readsOnPrimary), no replica is in rotation,
 * none has replayed the client's last write, the client's position could not be read, or
 * the replica failed the read; to a replica because the primary is unreachable.
 */
export type RouteReason = 'replica' | 'current' | 'no_replica' | 'behind' | 'position_unknown' | 'replica_failed' | 'primary_unavailable';

export interface ReplicaObserver {
  routed(target: ReadTarget, reason: RouteReason): void;
  leftOut(replica: string, state: Exclude<ReplicaState, 'in'>): void;
}

export interface ReplicaRouting {
  /** Where compiled reads run. */
  reads: Pick<SqlChannel, 'query'>;
  /** Reads that must be current: on the primary, or while it is unreachable on a replica in rotation. */
  current: Pick<SqlChannel, 'query'>;
  status(): ReplicaStatus[];
  /** Where positions are kept. */
  positionStore: 'redis' | 'primary';
  observe(observer: ReplicaObserver): () => void;
  close(): Promise<void>;
}

export const PROBE_INTERVAL_MS = 1_000;
/** A probe or a replica connection that takes longer than this finds the replica down. */
const PROBE_TIMEOUT_MS = 2_000;
/** A replica's replay position short of a client's is believed this long before the replica is asked again. */
const POSITION_FRESH_MS = 10;
const PRUNE_INTERVAL_MS = 60_000;
/** An actor's position outlives its use: after the lag bound every replica in rotation has replayed it. */
const positionTtlMs = (maxLagMs: number) => Math.max(60_000, 2 * maxLagMs);

const SERVER_SQL = `coalesce(host(inet_server_addr()) || ':' || inet_server_port(), 'local:' || current_setting('port'))`;
const REPLAYED_SQL = `(pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::text`;
const CHECK_SQL = `SELECT ${SERVER_SQL} AS server, ${REPLAYED_SQL} AS replayed`;
const PRIMARY_POSITION_SQL = `SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::text AS lsn`;
/** A server not in recovery (a replica promoted since) is as current as the primary. */
const CURRENT = 2n ** 64n;

// ---------------------------------------------------------------- holding reads to a position

const pinned = new AsyncLocalStorage<true>();
const floors = new AsyncLocalStorage<bigint>();

/**
 * Runs fn with its compiled reads on the primary: for reads that must see a change the
 * instance heard of (a live event) although the client did not make it.
 */
export function readsOnPrimary<T>(fn: () => T): T {
  return pinned.run(true, fn);
}

/**
 * Runs fn with its compiled reads on a server that has replayed at least `position` (a
 * WAL position read with REPLAYED_POSITION_SQL): for an answer that must be as current as
 * something read before it, such as the change counters its validator is made of.
 */
export function readsReplayedTo<T>(position: bigint, fn: () => T): T {
  return floors.run(position, fn);
}

/**
 * Where the server's WAL stands, as a column of a statement whose rows a later read must be
 * as current as: the primary's end of WAL (it covers every commit the statement's snapshot
 * sees), or on a replica what it has replayed. Evaluated after the snapshot is taken.
 */
export const REPLAYED_POSITION_SQL = `(CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END - '0/0'::pg_lsn)::text`;

// ---------------------------------------------------------------- actors and their positions

/** The key an actor's position is kept under; jobs read current data and have none. */
function actorKey(actor: Actor | undefined): string | undefined {
  switch (actor?.kind) {
    case 'api_client':
    case 'merchant_user':
      return `${actor.kind}:${actor.id}`;
    case 'shopper':
      // A session token is a credential: only its hash is stored.
      return `shopper:${createHash('sha256').update(actor.session).digest('base64url').slice(0, 22)}`;
    default:
      return undefined;
  }
}

type RawQuery = (text: string, values?: unknown[]) => Promise<pg.QueryResult>;

interface PositionStore {
  kind: ReplicaRouting['positionStore'];
  /** Raises `actor`'s position to where the WAL ends now, asked on `connection` (the primary's, right after the commit). */
  record(actor: string, connection: RawQuery): Promise<bigint>;
  /** The positions of these actors (distinct), where they have one. */
  lookUp(actors: string[]): Promise<Map<string, bigint>>;
  prune(): Promise<void>;
  close(): Promise<void>;
}

/**
 * One round trip on the connection that committed the write. Its own commit waits for no flush
 * (synchronous_commit off): waiting, it cost a second synchronous commit per write, and every
 * write of one client queued behind the lock on that client's row for it (half the upsert
 * rate, bench/replicas.ts). What a crash of the primary can lose is the last fraction of a
 * second of positions, whose writes the standbys had then all but replayed anyway.
 */
const recordSql = (actor: string) => `BEGIN;
SET LOCAL synchronous_commit = off;
INSERT INTO "ReadPosition" (actor, lsn, "updatedAt") VALUES ('${actor.replaceAll("'", "''")}', (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint, now())
ON CONFLICT (actor) DO UPDATE SET lsn = GREATEST("ReadPosition".lsn, EXCLUDED.lsn), "updatedAt" = EXCLUDED."updatedAt"
RETURNING lsn::text;
COMMIT`;

/** A row per actor on the primary; one indexed read per request. */
function primaryPositions(primary: SqlChannel, ttlMs: number): PositionStore {
  return {
    kind: 'primary',
    async record(actor, connection) {
      // A script of several statements (simple protocol, so no parameters: the key is quoted above).
      const results = (await connection(recordSql(actor))) as unknown as pg.QueryResult[];
      return BigInt((results.find((result) => result.command === 'INSERT')!.rows[0] as { lsn: string }).lsn);
    },
    async lookUp(actors) {
      const rows = await primary.query<{ actor: string; lsn: string }>(`SELECT actor, lsn::text FROM "ReadPosition" WHERE actor = ANY($1::text[])`, [actors]);
      return new Map(rows.map((row) => [row.actor, BigInt(row.lsn)]));
    },
    async prune() {
      await primary.query(`DELETE FROM "ReadPosition" WHERE "updatedAt" < now() - make_interval(secs => $1)`, [ttlMs / 1000]);
    },
    async close() {},
  };
}

/** Sets the key to ARGV[1] unless it already holds a later position (several instances write one actor's), renewing its expiry. */
const RAISE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current and tonumber(current) >= tonumber(ARGV[1]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return current
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ARGV[1]`;

function redisPositions(url: string, ttlMs: number): PositionStore {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2_000 });
  // ioredis reports connection trouble as events and reconnects itself; a failed command is handled where it is made.
  redis.on('error', () => undefined);
  const key = (actor: string) => `read-position:${actor}`;
  return {
    kind: 'redis',
    async record(actor, connection) {
      const { rows } = await connection(PRIMARY_POSITION_SQL);
      const raised = await redis.eval(RAISE_SCRIPT, 1, key(actor), (rows[0] as { lsn: string }).lsn, ttlMs);
      return BigInt(raised as string);
    },
    async lookUp(actors) {
      const values = await redis.mget(actors.map(key));
      return new Map(actors.flatMap((actor, i) => (values[i] === null ? [] : [[actor, BigInt(values[i]!)] as const])));
    },
    // Keys expire by themselves.
    async prune() {},
    async close() {
      redis.disconnect();
    },
  };
}

/**
 * Looks positions up for the requests of this instance with one statement at a time: the
 * lookups asked while one is on its way go together in the next. Each is sent after its
 * request began, so none misses a write acknowledged before that. Under load a request waits
 * at most one lookup longer, and the store answers one statement for many requests instead of
 * one each (bench/replicas.ts: positions on the primary).
 */
function batchedLookUps(positions: PositionStore): (actor: string) => Promise<bigint | undefined> {
  let inFlight: Promise<unknown> | undefined;
  const loader = new DataLoader<string, bigint | undefined>(
    (actors) => {
      const answered = positions.lookUp([...new Set(actors)]).then((found) => actors.map((actor) => found.get(actor)));
      inFlight = answered.catch(() => undefined).finally(() => (inFlight = undefined));
      return answered;
    },
    { cache: false, batchScheduleFn: (send) => void (inFlight ? inFlight.then(send) : process.nextTick(send)) },
  );
  return (actor) => loader.load(actor);
}

// ---------------------------------------------------------------- noticing committed writes

const WRITE_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'COPY']);
/** A SELECT that writes through a data-modifying CTE (the customer upsert) says so in its text. */
const WRITING_SELECT = /\b(insert|update|delete|merge)\b/i;

type QueryCallback = (error: Error | null, result?: pg.QueryResult | pg.QueryResult[]) => void;
type AnyQuery = (...args: unknown[]) => unknown;

function wrote(text: string | undefined, result: pg.QueryResult | pg.QueryResult[]): boolean {
  return (Array.isArray(result) ? result : [result]).some(
    ({ command }) => WRITE_COMMANDS.has(command) || (command === 'SELECT' && text !== undefined && WRITING_SELECT.test(text)),
  );
}

const committed = (result: pg.QueryResult | pg.QueryResult[]) => (Array.isArray(result) ? result : [result]).some(({ command }) => command === 'COMMIT');

/**
 * Wraps a primary connection's `query` so that a statement ending a write of an actor (an
 * autocommit write, or the COMMIT of a transaction that wrote) hands its result back only
 * once `onCommit` has recorded the actor's position, on this same connection (which the pool
 * lends to no one else until then). Streams and cursors (submittables) pass through.
 */
function trackCommits(client: pg.Client, onCommit: (actor: string, scope: RequestScope, connection: RawQuery) => Promise<void>): void {
  const query = client.query.bind(client) as AnyQuery;
  const connection: RawQuery = (text, values) => query(text, values) as Promise<pg.QueryResult>;
  let transactionWrote = false;
  const after = async (scope: RequestScope, actor: string, text: string | undefined, result: pg.QueryResult | pg.QueryResult[]) => {
    const wroteNow = wrote(text, result);
    if (client.getTransactionStatus() !== 'I') {
      transactionWrote ||= wroteNow;
      return;
    }
    const commitOfWrite = wroteNow || (transactionWrote && committed(result));
    transactionWrote = false;
    if (commitOfWrite) await onCommit(actor, scope, connection);
  };
  (client as unknown as { query: AnyQuery }).query = (...args: unknown[]) => {
    const [config, values, callback] = args as [{ text?: string; submit?: unknown } | string, unknown, unknown];
    const scope = currentScope();
    const actor = actorKey(scope?.actor);
    if (!scope || !actor || (typeof config === 'object' && typeof config?.submit === 'function')) return query(...args);
    const text = typeof config === 'string' ? config : config?.text;
    const done = (typeof values === 'function' ? values : callback) as QueryCallback | undefined;
    if (done) {
      // The pool's own query: it releases the connection in this callback, so the position is recorded first.
      query(config, typeof values === 'function' ? undefined : values, (error: Error | null, result: pg.QueryResult | pg.QueryResult[]) => {
        if (error) return done(error);
        after(scope, actor, text, result).then(
          () => done(null, result),
          () => done(null, result),
        );
      });
      return undefined;
    }
    return (query(config, values) as Promise<pg.QueryResult>).then(async (result) => {
      await after(scope, actor, text, result).catch(() => undefined);
      return result;
    });
  };
}

// ---------------------------------------------------------------- the replicas

interface Replica {
  name: string;
  pool: pg.Pool;
  state: ReplicaState;
  lagMs: number | undefined;
  /** False until the first probe has said whether it is in. */
  probed: boolean;
}

interface ServerPosition {
  replayed: bigint;
  at: number;
}

/** What a request's reads wait for: the actor's position (none when it wrote nothing lately), or unknown when it could not be read. */
type Requirement = { actor: string | undefined; position: Promise<bigint | undefined | 'unknown'> };

function replicaName(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
}

function timedOut<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** SQLSTATE 40001 on a standby: the statement was cancelled because replay had to remove rows it could still see. */
const isRecoveryConflict = (error: unknown) => (error as { code?: string }).code === '40001';

/**
 * Reads routed between `primaryPool` and the replicas of `options`. Installs the commit
 * tracking on the primary pool's connections at once, so call it before the pool's first
 * connection opens; `start()` then probes every replica once.
 */
export class ReplicaReads implements ReplicaRouting {
  readonly reads: Pick<SqlChannel, 'query'>;
  readonly current: Pick<SqlChannel, 'query'>;
  readonly positionStore: ReplicaRouting['positionStore'];
  private readonly replicas: Replica[];
  private readonly positions: PositionStore;
  private readonly lookUpPosition: (actor: string) => Promise<bigint | undefined>;
  private readonly primary: SqlChannel;
  private readonly servers = new Map<string, ServerPosition>();
  private readonly serverOf = new WeakMap<pg.PoolClient, string>();
  private readonly requirements = new WeakMap<RequestScope, Requirement>();
  /** The primary's WAL position at each probe, oldest first: how far back a replica's replay is. */
  private readonly primaryHistory: { at: number; lsn: bigint }[] = [];
  private readonly observers = new Set<ReplicaObserver>();
  private readonly logger?: Logger;
  private readonly probeIntervalMs: number;
  private next = 0;
  /** Set when a position could not be recorded: until then this instance reads everything from the primary. */
  private positionsLostUntil = 0;
  private probing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastPrune = 0;
  private readonly poolSize: number;

  constructor(
    primaryPool: pg.Pool,
    private readonly nameOf: StatementNamer,
    private readonly options: ReplicaOptions,
  ) {
    this.logger = options.logger;
    this.probeIntervalMs = options.probeIntervalMs ?? PROBE_INTERVAL_MS;
    this.poolSize = options.poolSize ?? 10;
    this.primary = pgChannel(primaryPool, nameOf);
    const ttlMs = positionTtlMs(options.maxLagMs);
    this.positions = options.redisUrl ? redisPositions(options.redisUrl, ttlMs) : primaryPositions(this.primary, ttlMs);
    this.positionStore = this.positions.kind;
    this.lookUpPosition = batchedLookUps(this.positions);
    primaryPool.on('connect', (client) => trackCommits(client, (actor, scope, connection) => this.recordWrite(actor, scope, connection)));
    this.replicas = options.urls.map((url) => ({
      name: replicaName(url),
      pool: keepPoolAlive(new pg.Pool({ connectionString: url, max: this.poolSize, connectionTimeoutMillis: PROBE_TIMEOUT_MS })),
      state: 'down',
      lagMs: undefined,
      probed: false,
    }));
    this.reads = { query: (text, params, options) => this.read(text, params ?? [], options) };
    this.current = { query: (text, params, options) => this.readOnPrimary(text, params ?? [], 'current', options) };
  }

  /** Probes every replica once, then keeps probing in the background. */
  async start(): Promise<void> {
    await this.probe();
    this.timer = setInterval(() => {
      this.probing ??= this.probe().finally(() => (this.probing = undefined));
    }, this.probeIntervalMs);
    this.timer.unref();
  }

  status(): ReplicaStatus[] {
    return this.replicas.map(({ name, state, lagMs }) => ({ name, state, lagMs }));
  }

  observe(observer: ReplicaObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.probing;
    await Promise.all(this.replicas.map((replica) => replica.pool.end().catch(() => undefined)));
    await this.positions.close();
  }

  // ---- writes

  private async recordWrite(actor: string, scope: RequestScope, connection: RawQuery): Promise<void> {
    let position: bigint;
    try {
      position = await this.positions.record(actor, connection);
    } catch (error) {
      // The write stands; other instances may not know of it, so this one stops trusting replicas for a while.
      this.positionsLostUntil = performance.now() + positionTtlMs(this.options.maxLagMs);
      this.logger?.warn('could not record a write position for read-your-writes; reading from the primary for a while', { store: this.positions.kind, error });
      return;
    }
    // Later reads of this request wait for this write without asking the store again.
    const known = this.requirements.get(scope);
    const before = known?.actor === actor ? known.position : Promise.resolve(undefined);
    this.requirements.set(scope, {
      actor,
      position: before.then((previous) => (previous === 'unknown' ? 'unknown' : previous !== undefined && previous > position ? previous : position)),
    });
  }

  // ---- reads

  private notify(target: ReadTarget, reason: RouteReason): void {
    for (const observer of this.observers) observer.routed(target, reason);
  }

  private async read<T>(text: string, params: unknown[], options?: QueryOptions): Promise<T[]> {
    const route = await this.route();
    if (route.reason !== 'replica') return this.readOnPrimary<T>(text, params, route.reason, options);
    const { replica, client } = route;
    try {
      const rows = await pgChannel(client, this.nameOf).query<T>(text, params, options);
      client.release();
      this.notify('replica', 'replica');
      return rows;
    } catch (error) {
      const unavailable = databaseFailure(error) === 'unavailable';
      client.release(unavailable ? (error as Error) : undefined);
      if (unavailable) this.leaveOut(replica, 'down', { error });
      if (!unavailable && !isRecoveryConflict(error)) throw error;
      return this.readOnPrimary<T>(text, params, 'replica_failed', options);
    }
  }

  /** On the primary; should the primary be unreachable, on any replica in rotation. */
  private async readOnPrimary<T>(text: string, params: unknown[], reason: RouteReason, options?: QueryOptions): Promise<T[]> {
    try {
      const rows = await this.primary.query<T>(text, params, options);
      this.notify('primary', reason);
      return rows;
    } catch (error) {
      if (databaseFailure(error) !== 'unavailable') throw error;
      const floor = floors.getStore();
      for (const replica of this.inRotation()) {
        const client = await this.connect(replica);
        if (!client) continue;
        if (floor !== undefined && !(await this.hasReplayed(replica, client, floor))) continue;
        try {
          const rows = await pgChannel(client, this.nameOf).query<T>(text, params, options);
          client.release();
          this.notify('replica', 'primary_unavailable');
          return rows;
        } catch (replicaError) {
          client.release(databaseFailure(replicaError) === 'unavailable' ? (replicaError as Error) : undefined);
        }
      }
      throw error;
    }
  }

  private inRotation(): Replica[] {
    const candidates = this.replicas.filter((replica) => replica.state === 'in');
    if (candidates.length < 2) return candidates;
    const start = this.next++ % candidates.length;
    return [...candidates.slice(start), ...candidates.slice(0, start)];
  }

  private async route(): Promise<{ reason: 'replica'; replica: Replica; client: pg.PoolClient } | { reason: Exclude<RouteReason, 'replica'> }> {
    const scope = currentScope();
    // A job (the webhook dispatcher building a payload) reads what it was woken for.
    if (!scope || scope.actor?.kind === 'job' || pinned.getStore() || performance.now() < this.positionsLostUntil) return { reason: 'current' };
    const candidates = this.inRotation();
    if (candidates.length === 0) return { reason: 'no_replica' };
    const own = await this.requiredPosition(scope);
    if (own === 'unknown') return { reason: 'position_unknown' };
    const floor = floors.getStore();
    const required = floor !== undefined && (own === undefined || floor > own) ? floor : own;
    for (const replica of candidates) {
      const client = await this.connect(replica);
      if (!client) continue;
      if (required === undefined || (await this.hasReplayed(replica, client, required))) return { reason: 'replica', replica, client };
    }
    return { reason: 'behind' };
  }

  private requiredPosition(scope: RequestScope): Promise<bigint | undefined | 'unknown'> {
    const actor = actorKey(scope.actor);
    const known = this.requirements.get(scope);
    if (known && known.actor === actor) return known.position;
    const position = actor === undefined ? Promise.resolve(undefined) : this.lookUpPosition(actor).catch(() => 'unknown' as const);
    this.requirements.set(scope, { actor, position });
    return position;
  }

  private async connect(replica: Replica): Promise<pg.PoolClient | undefined> {
    try {
      return await replica.pool.connect();
    } catch (error) {
      // Every connection busy is no sign of trouble: this read goes elsewhere.
      if (replica.pool.totalCount < this.poolSize) this.leaveOut(replica, 'down', { error });
      return undefined;
    }
  }

  /** True when the server behind `client` has replayed `required`; releases the connection when not. */
  private async hasReplayed(replica: Replica, client: pg.PoolClient, required: bigint): Promise<boolean> {
    const server = this.serverOf.get(client);
    const known = server === undefined ? undefined : this.servers.get(server);
    if (known && known.replayed >= required) return true;
    if (known && performance.now() - known.at < POSITION_FRESH_MS) {
      client.release();
      return false;
    }
    try {
      const { rows } = await client.query<{ server: string; replayed: string | null }>(CHECK_SQL);
      const replayed = this.learn(rows[0].server, rows[0].replayed);
      this.serverOf.set(client, rows[0].server);
      if (replayed >= required) return true;
      client.release();
      return false;
    } catch (error) {
      const unavailable = databaseFailure(error) === 'unavailable';
      client.release(unavailable ? (error as Error) : undefined);
      if (unavailable) this.leaveOut(replica, 'down', { error });
      return false;
    }
  }

  private learn(server: string, replayed: string | null): bigint {
    const position = replayed === null ? CURRENT : BigInt(replayed);
    const known = this.servers.get(server);
    if (!known || known.replayed <= position) this.servers.set(server, { replayed: position, at: performance.now() });
    return position;
  }

  // ---- health

  private async probe(): Promise<void> {
    const now = performance.now();
    try {
      const [{ lsn }] = await timedOut(this.primary.query<{ lsn: string }>(PRIMARY_POSITION_SQL), PROBE_TIMEOUT_MS, 'reading the primary position');
      this.primaryHistory.push({ at: now, lsn: BigInt(lsn) });
    } catch {
      // No primary (a failover): the replicas' lag is measured against what it had.
    }
    const horizon = now - 2 * this.options.maxLagMs - this.probeIntervalMs;
    while (this.primaryHistory.length > 1 && this.primaryHistory[0].at < horizon) this.primaryHistory.shift();
    await Promise.all(this.replicas.map((replica) => this.probeReplica(replica)));
    if (now - this.lastPrune >= PRUNE_INTERVAL_MS) {
      this.lastPrune = now;
      await this.positions.prune().catch((error) => this.logger?.warn('pruning read positions failed', { error }));
    }
  }

  private async probeReplica(replica: Replica): Promise<void> {
    let row: { server: string; replayed: string | null };
    try {
      [row] = (await timedOut(replica.pool.query<typeof row>(CHECK_SQL), PROBE_TIMEOUT_MS, 'probing the replica')).rows;
    } catch (error) {
      this.leaveOut(replica, 'down', { error });
      return;
    }
    const replayed = this.learn(row.server, row.replayed);
    // The first sample the replica has not reached says since when it is behind.
    const behindSince = this.primaryHistory.find((sample) => sample.lsn > replayed)?.at;
    replica.lagMs = behindSince === undefined ? 0 : Math.round(performance.now() - behindSince);
    if (replica.lagMs > this.options.maxLagMs) this.leaveOut(replica, 'lagging', { lagMs: replica.lagMs, maxLagMs: this.options.maxLagMs });
    else if (replica.state !== 'in' || !replica.probed) {
      if (replica.probed) this.logger?.info('replica back in the reads', { replica: replica.name, was: replica.state, lagMs: replica.lagMs });
      else this.logger?.info('replica in the reads', { replica: replica.name, lagMs: replica.lagMs, positions: this.positions.kind });
      replica.state = 'in';
      replica.probed = true;
    }
  }

  private leaveOut(replica: Replica, state: Exclude<ReplicaState, 'in'>, fields: Record<string, unknown>): void {
    if (replica.state === state && replica.probed) return;
    replica.state = state;
    replica.probed = true;
    this.logger?.warn(state === 'down' ? 'replica unreachable; reads go elsewhere until it answers again' : 'replica lagging past the bound; reads go elsewhere until it catches up', {
      replica: replica.name,
      ...fields,
    });
    for (const observer of this.observers) observer.leftOut(replica.name, state);
  }
}
