// The raw SQL channel (statements that do not go through Prisma's query engine) and the
// pg pool plumbing every PostgreSQL connection of the service is made with: the primary's
// pool, the replicas' (replicas.ts) and the transfer's (transfer.ts).
import type pg from 'pg';
import type { StatementNamer } from './preparedPglite.ts';

/** Plain SQL access that does not go through Prisma's query engine. */
export interface SqlChannel {
  /** Runs a script of one or more statements without parameters. */
  exec(script: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export function pgChannel(client: pg.Pool | pg.PoolClient, nameOf: StatementNamer = () => ''): SqlChannel {
  return {
    async exec(script) {
      await client.query(script);
    },
    async query<T>(sql: string, params: unknown[] = []) {
      const name = nameOf({ sql });
      const result = await client.query(name === '' ? { text: sql, values: params } : { name, text: sql, values: params });
      return result.rows as T[];
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
