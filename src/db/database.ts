// What every part of the service holds a database by (`Database`), and the pieces both
// kinds of database are built from: the raw SQL channel over pg, the observed Prisma client
// and reader, and statement naming. client.ts opens PostgreSQL, pglite.ts PGlite.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { SpanKind, trace } from '@opentelemetry/api';
import { ATTR_DB_QUERY_TEXT, ATTR_DB_SYSTEM_NAME, DB_SYSTEM_NAME_VALUE_POSTGRESQL } from '@opentelemetry/semantic-conventions';
import { withinSpan } from '../observability/spans.ts';
import type { PrismaPg } from '@prisma/adapter-pg';
import type { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { StatementNamer } from './preparedPglite.ts';
import { createReads, type Reads } from './reads/reader.ts';
import type { QueryOptions, SqlChannel } from './sqlChannel.ts';
import type { ReplicaOptions, ReplicaRouting } from './replicas.ts';
import { joinedTransaction, joiningClient } from './requestTransaction.ts';
import { changesFirstAdapter } from './storeChanges.ts';

export type DatabaseKind = 'pglite' | 'postgresql';


export interface Database {
  kind: DatabaseKind;
  url: string;
  /** Writes, migrations and the reads that rules make inside their transactions. */
  prisma: PrismaClient;
  /** Reads answered as plain JSON, one statement each (reads/reader.ts): what every door's resolvers read through. */
  reads: Reads;
  sql: SqlChannel;
  /** Runs fn on one connection (session state such as advisory locks stays put). */
  session<T>(fn: (sql: SqlChannel) => Promise<T>): Promise<T>;
  /** True when queries are serialised through one connection (PGlite). */
  singleConnection: boolean;
  /** Calls `listener` with each SQL statement Prisma or `reads` runs (metrics, statement-count tests); returns the unsubscribe. */
  onStatement(listener: StatementListener): () => void;
  /** Connections of this process (metrics); idle and waiting only where there is a pool. */
  poolStats(): PoolStats;
  /**
   * Subscribes to NOTIFY on `channel`, from this process and every other one on the
   * database. `onState(false)` says notifications may have been missed (the listening
   * connection was lost, or this handle cannot listen), `onState(true)` that they flow
   * again. Resolves to the unsubscribe.
   */
  listen(channel: string, handlers: NotificationHandlers, options?: ListenOptions): Promise<() => Promise<void>>;
  /** Present when `reads` are routed to streaming replicas (replicas.ts): their state, for metrics. */
  replicas?: ReplicaRouting;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Serve an owned PGlite directory on a local socket so other processes can use it. */
  shareEmbedded?: boolean;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
  /** Start an in-memory PGlite from a dump made by `dumpDataDir` (test templates). */
  loadDataDir?: Blob;
  /** PostgreSQL streaming replicas for the compiled reads (PostgreSQL only). */
  replicas?: ReplicaOptions;
  /** How long a read that searches text may run (SEARCH_TIME_LIMIT_MS); reads/reader.ts has the default. */
  searchTimeLimitMs?: number;
}

export interface PoolStats {
  total: number;
  idle?: number;
  waiting?: number;
}

export const poolStatsOf = (pool: pg.Pool) => (): PoolStats => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });

export interface ListenOptions {
  /**
   * Listen only while no other session on the database does so exclusively (a session-level
   * advisory lock named after the channel, held by the listening connection): one listener
   * across every instance, another taking over within seconds when it goes. `onState(true)`
   * says this handle became that listener.
   */
  exclusive?: boolean;
}

export interface NotificationHandlers {
  onNotify(payload: string): void;
  onState(listening: boolean): void;
}

export interface ObservedStatement {
  sql: string;
  durationMs: number;
  /** The statement's parameters (parsed when read: Prisma hands them over as JSON text). */
  readonly params: unknown[];
}

export type StatementListener = (statement: ObservedStatement) => void;

/** A Prisma client, and a reader on `sql`, that report their statements to the listeners of `onStatement`. */
export function observedClients(
  adapter: PrismaPg | PrismaPGlite,
  sql: Pick<SqlChannel, 'query'>,
  options: Pick<OpenOptions, 'searchTimeLimitMs'>,
): Pick<Database, 'prisma' | 'reads' | 'onStatement'> {
  const prisma = new PrismaClient({ adapter: changesFirstAdapter(adapter), log: [{ emit: 'event', level: 'query' }] });
  const listeners = new Set<StatementListener>();
  const report = (statement: ObservedStatement) => {
    for (const listener of listeners) listener(statement);
  };
  prisma.$on('query', (event) =>
    report({
      sql: event.query,
      durationMs: event.duration,
      get params() {
        return JSON.parse(event.params) as unknown[];
      },
    }),
  );
  const observed = async <T>(text: string, params: unknown[], options?: QueryOptions) => {
    // Inside a request transaction the read runs on it (Prisma reports it to the listeners then), so the request reads its own writes.
    // (Unbounded there: a SET LOCAL would outlive the read, for the rest of the request's transaction.)
    const tx = joinedTransaction();
    if (tx) return tx.$queryRawUnsafe<T[]>(text, ...params);
    if (listeners.size === 0) return sql.query<T>(text, params, options);
    const started = performance.now();
    try {
      return await sql.query<T>(text, params, options);
    } finally {
      report({ sql: text, durationMs: performance.now() - started, params });
    }
  };
  const reads = createReads({
    query: <T>(text: string, params: unknown[], options?: QueryOptions) =>
      // Only inside a traced request: with tracing off no span is ever active, so this costs one lookup.
      trace.getActiveSpan()?.isRecording() ? inReadSpan(text, () => observed<T>(text, params, options)) : observed<T>(text, params, options),
  }, { searchTimeLimitMs: options.searchTimeLimitMs });
  return {
    // The log option only adds the query event; the client is the plain one every layer types.
    prisma: joiningClient(prisma as unknown as PrismaClient),
    reads,
    onStatement(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

const readTracer = trace.getTracer('commerce-backoffice/reads');
/** A span keeps the start of a longer read statement. */
const MAX_TRACED_SQL = 4_096;

/**
 * The span of one read statement: reads bypass Prisma's engine, so its instrumentation
 * does not see them. It holds the parameterised text, never the values.
 */
async function inReadSpan<T>(text: string, run: () => Promise<T>): Promise<T> {
  const span = readTracer.startSpan('reads:db_query', {
    kind: SpanKind.CLIENT,
    attributes: {
      [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
      [ATTR_DB_QUERY_TEXT]: text.length > MAX_TRACED_SQL ? `${text.slice(0, MAX_TRACED_SQL)}…` : text,
    },
  });
  return withinSpan(span, run);
}


/**
 * Names statements (Prisma's, and the raw channel's, on both database kinds) so that each connection parses and
 * plans a statement once and then only binds and executes it: for the larger
 * single-statement writes (the customer upsert's CTE, the webhook dispatcher's claims and
 * records), planning cost PostgreSQL more than running them. The name is
 * the SQL text's hash. A connection keeps every statement it prepared for its lifetime,
 * so only the first MAX_PREPARED_STATEMENTS distinct texts a process sees are named (the
 * hot ones come first); later texts, such as lists of an unusual length, run
 * unnamed.
 */
export function preparedStatementNames(limit = MAX_PREPARED_STATEMENTS): StatementNamer {
  const names = new Map<string, string>();
  return ({ sql }) => {
    const known = names.get(sql);
    // pg runs a statement with an empty name unnamed.
    if (known !== undefined || names.size >= limit) return known ?? '';
    const name = `p_${createHash('sha1').update(sql).digest('base64url')}`;
    names.set(sql, name);
    return name;
  };
}

const MAX_PREPARED_STATEMENTS = 1_000;
