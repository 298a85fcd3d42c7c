// The raw SQL channel (statements that do not go through Prisma's query engine) and the
// pg pool plumbing every PostgreSQL connection of the service is made with: the primary's
// pool, the replicas' (replicas.ts) and the transfer's (transfer.ts).
import type pg from 'pg';
import type { StatementNamer } from './preparedPglite.ts';

/** Plain SQL access that does not go through Prisma's query engine. */
export interface SqlChannel {
  /** Runs a script of one or more statements without parameters. */
  exec(script: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<T[]>;
}

export interface QueryOptions {
  /**
   * PostgreSQL cancels the statement after this many milliseconds (SQLSTATE 57014), and plans
   * it for its parameters every time (a generic plan of a search cannot see which index its
   * words can use). PGlite runs the statement in this thread and has no timer to cancel it by.
   */
  timeLimitMs?: number;
}

/** SQLSTATE of a statement cancelled by statement_timeout. */
export const QUERY_CANCELED = '57014';

export function pgChannel(client: pg.Pool | pg.PoolClient, nameOf: StatementNamer = () => ''): SqlChannel {
  const run = async <T>(on: pg.Pool | pg.PoolClient, sql: string, params: unknown[]) => {
    const name = nameOf({ sql });
    const result = await on.query(name === '' ? { text: sql, values: params } : { name, text: sql, values: params });
    return result.rows as T[];
  };
  return {
    async exec(script) {
      await client.query(script);
    },
    async query<T>(sql: string, params: unknown[] = [], options: QueryOptions = {}) {
      const { timeLimitMs } = options;
      if (timeLimitMs === undefined) return run<T>(client, sql, params);
      // SET LOCAL holds for this transaction only: the connection goes back to the pool as it came.
      const session = 'release' in client ? client : await client.connect();
      try {
        await session.query(`BEGIN READ ONLY; SET LOCAL statement_timeout = ${Math.max(1, Math.round(timeLimitMs))}; SET LOCAL plan_cache_mode = force_custom_plan`);
        try {
          const rows = await run<T>(session, sql, params);
          await session.query('COMMIT');
          return rows;
        } catch (error) {
          await session.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      } finally {
        if (session !== client) session.release();
      }
    },
  };
}

export function pgSession(pool: pg.Pool, nameOf?: StatementNamer) {
  return async <T>(fn: (sql: SqlChannel) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      return await fn(pgChannel(client, nameOf));
    } finally {
      client.release();
    }
  };
}

/** An idle pooled connection that the server ends is dropped by the pool; without a listener it would crash the process. */
export function keepPoolAlive(pool: pg.Pool): pg.Pool {
  pool.on('error', () => undefined);
  return pool;
}
