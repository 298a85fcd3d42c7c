// Opens the database named by DATABASE_URL and hands back a Prisma client plus a
// raw SQL channel (migrations, row locks). One rule for the server, the CLI and tests:
//   pglite:memory:       in-process PGlite held in memory
//   pglite:<directory>   in-process PGlite on disk, shared with other processes through
//                        a local socket while one process (the server) owns it
//   postgresql://...     PostgreSQL through @prisma/adapter-pg, its compiled reads on streaming
//                        replicas when some are given (replicas.ts)
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { ReplicaReads } from './replicas.ts';
import { keepPoolAlive, pgChannel, pgSession } from './sqlChannel.ts';
import { changesFirstChannel, changesFirstSession } from './storeChanges.ts';
import {
  observedClients,
  poolStatsOf,
  preparedStatementNames,
  type Database,
  type DatabaseKind,
  type OpenOptions,
} from './database.ts';

export class DatabaseUrlError extends Error {}

const RELISTEN_DELAY_MS = 1_000;

/**
 * LISTEN on a connection of its own (a pooled one would be handed to others), reconnecting
 * when it drops. An exclusive listener keeps its connection and asks for the lock on it every
 * RELISTEN_DELAY_MS until it gets it, so waiting instances cost the server no new connections.
 */
function pgListen(connectionString: string): Database['listen'] {
  return async (channel, handlers, options = {}) => {
    let client: pg.Client | undefined;
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    let listening = false;
    const later = (step: () => Promise<void>) => {
      if (!stopped) timer = setTimeout(() => void step(), RELISTEN_DELAY_MS);
    };
    const lost = (gone: pg.Client) => {
      if (client !== gone) return;
      client = undefined;
      if (stopped) return;
      // An exclusive handle that never got the lock had nothing to lose.
      if (listening || !options.exclusive) handlers.onState(false);
      listening = false;
      later(connect);
    };
    const failed = async (held: pg.Client) => {
      lost(held);
      await held.end().catch(() => undefined);
    };
    const becomeListener = async (held: pg.Client): Promise<void> => {
      try {
        if (options.exclusive) {
          const [{ locked }] = (await held.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [`listen:${channel}`])).rows;
          if (!locked) {
            if (client === held) later(() => becomeListener(held));
            return;
          }
        }
        if (client !== held) return;
        await held.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
        if (client !== held) return;
        listening = true;
        handlers.onState(true);
      } catch {
        await failed(held);
      }
    };
    const connect = async (): Promise<void> => {
      const next = new pg.Client({ connectionString });
      client = next;
      next.on('notification', (message) => message.channel === channel && handlers.onNotify(message.payload ?? ''));
      next.on('error', () => undefined);
      next.on('end', () => lost(next));
      try {
        await next.connect();
      } catch {
        return failed(next);
      }
      await becomeListener(next);
    };
    await connect();
    return async () => {
      stopped = true;
      clearTimeout(timer);
      const open = client;
      client = undefined;
      await open?.end().catch(() => undefined);
    };
  };
}

export function describeUrl(url: string): { kind: DatabaseKind; target: string } {
  if (url.startsWith('pglite:')) return { kind: 'pglite', target: url.slice('pglite:'.length) };
  if (/^postgres(ql)?:\/\//.test(url)) return { kind: 'postgresql', target: url };
  throw new DatabaseUrlError(
    `DATABASE_URL must be "pglite:<directory>", "pglite:memory:" or "postgresql://...", got "${url}"`,
  );
}

export async function openDatabase(url: string, options: OpenOptions = {}): Promise<Database> {
  const { kind, target } = describeUrl(url);
  if (kind === 'postgresql') return openPostgres(url, target, options);
  if (options.replicas && options.replicas.urls.length > 0) {
    throw new DatabaseUrlError(`replicas need a PostgreSQL primary: PGlite ("${url}") has none; unset DATABASE_REPLICA_URLS`);
  }
  // Loaded only for PGlite: its module alone is ~50 MB of resident memory.
  const { openPGlite } = await import('./pglite.ts');
  return openPGlite(url, target, options);
}

/** Connects once so a newcomer's typical mistakes read as one sentence, not a driver stack trace. */
export async function checkReachable(pool: pg.Pool, connectionString: string): Promise<void> {
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    const target = new URL(connectionString);
    const name = decodeURIComponent(target.pathname.slice(1)) || target.username || 'postgres';
    const where = `${target.hostname}:${target.port || 5432}`;
    await pool.end().catch(() => undefined);
    if (code === '3D000') {
      throw new DatabaseUrlError(`PostgreSQL database "${name}" does not exist on ${where}; create it first (createdb -h ${target.hostname} ${name}, or CREATE DATABASE "${name}")`);
    }
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      throw new DatabaseUrlError(`cannot reach PostgreSQL at ${where} (${code}); is the server running and DATABASE_URL right?`);
    }
    if (code === '28P01' || code === '28000') throw new DatabaseUrlError(`PostgreSQL at ${where} refused the login: ${message}`);
    throw error;
  }
}

/**
 * How long a request waits for a pooled connection (all busy, or a server that does not
 * answer) before it is told the database is unavailable (503, db/failures.ts) instead of
 * hanging until its client gives up.
 */
const CONNECTION_WAIT_MS = 5_000;

async function openPostgres(url: string, connectionString: string, options: OpenOptions): Promise<Database> {
  const replicaOptions = options.replicas;
  const pool = keepPoolAlive(new pg.Pool({ connectionString, max: options.poolSize ?? 10, connectionTimeoutMillis: CONNECTION_WAIT_MS }));
  // One naming for Prisma, the raw channel and the replicas: each prepares a text once per connection.
  const nameOf = preparedStatementNames();
  // Before the first connection opens: the replicas' routing watches every primary connection's commits.
  const replicas = replicaOptions && replicaOptions.urls.length > 0 ? new ReplicaReads(pool, nameOf, { poolSize: options.poolSize ?? 10, ...replicaOptions }) : undefined;
  try {
    await checkReachable(pool, connectionString);
    await replicas?.start();
  } catch (error) {
    await replicas?.close();
    throw error;
  }
  const sql = pgChannel(pool, nameOf);
  const { prisma, reads, onStatement } = observedClients(new PrismaPg(pool, { statementNameGenerator: nameOf }), replicas?.reads ?? sql, options);
  return {
    kind: 'postgresql',
    url,
    prisma,
    reads,
    onStatement,
    poolStats: poolStatsOf(pool),
    sql: changesFirstChannel(sql),
    session: changesFirstSession(pgSession(pool, nameOf)),
    listen: pgListen(connectionString),
    singleConnection: false,
    replicas,
    async close() {
      await prisma.$disconnect();
      await replicas?.close();
      await pool.end().catch(() => undefined);
    },
  };
}
