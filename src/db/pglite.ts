// The PGlite side of openDatabase (client.ts): an in-memory database, or a directory this
// process owns (served to other processes on a local socket) or reaches through its owner's
// socket. Loaded only for a pglite: URL, so a PostgreSQL deployment never loads PGlite.
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { keepPoolAlive, pgChannel, pgSession, type SqlChannel } from './sqlChannel.ts';
import {
  observedClients,
  poolStatsOf,
  preparedStatementNames,
  type Database,
  type OpenOptions,
} from './database.ts';
import { EMBEDDED_START_PARAMS, openEmbedded, type EmbeddedHandle } from './embedded.ts';
import { PGLITE_EXTENSIONS } from './pgliteExtensions.ts';
import { withPreparedStatements } from './preparedPglite.ts';
import { changesFirstChannel, changesFirstSession } from './storeChanges.ts';

/** `pglite:memory:` (or `pglite:`) in this process's memory, else the directory `target`. */
export async function openPGlite(url: string, target: string, options: OpenOptions): Promise<Database> {
  if (target === 'memory:' || target === '') {
    const pglite = new PGlite({ loadDataDir: options.loadDataDir, startParams: EMBEDDED_START_PARAMS, extensions: PGLITE_EXTENSIONS });
    await pglite.waitReady;
    return fromPGlite(url, pglite, async () => pglite.close(), options);
  }
  const embedded = await openEmbedded(target, { share: options.shareEmbedded ?? false });
  return fromEmbedded(url, embedded, options);
}

export function pgliteChannel(pglite: PGlite): SqlChannel {
  return {
    async exec(script) {
      await pglite.exec(script);
    },
    async query<T>(text: string, params: unknown[] = []) {
      const result = await pglite.query<T>(text, params);
      return result.rows;
    },
  };
}

function fromPGlite(url: string, pglite: PGlite, close: () => Promise<void>, options: OpenOptions): Database {
  // Prisma and the raw channel share one view: their named statements live in one session.
  const prepared = withPreparedStatements(pglite, preparedStatementNames());
  const sql = pgliteChannel(prepared);
  const { prisma, reads, onStatement } = observedClients(new PrismaPGlite(prepared), sql, options);
  return {
    kind: 'pglite',
    url,
    prisma,
    reads,
    onStatement,
    poolStats: () => ({ total: 1 }),
    singleConnection: true,
    sql: changesFirstChannel(sql),
    session: changesFirstSession((fn) => fn(sql)),
    async listen(channel, handlers) {
      const unsubscribe = await pglite.listen(channel, handlers.onNotify);
      handlers.onState(true);
      return unsubscribe;
    },
    async close() {
      await prisma.$disconnect();
      // PGlite keeps the process alive until it is closed explicitly.
      await close();
    },
  };
}

function fromEmbedded(url: string, embedded: EmbeddedHandle, options: OpenOptions): Database {
  if (embedded.mode === 'owner') return fromPGlite(url, embedded.pglite, embedded.close, options);
  // Another process owns the directory: talk to it over its socket, one connection.
  const pool = keepPoolAlive(new pg.Pool({ host: embedded.socketDir, user: 'postgres', database: 'postgres', max: 1 }));
  const sql = pgChannel(pool);
  const { prisma, reads, onStatement } = observedClients(new PrismaPg(pool), sql, options);
  return {
    kind: 'pglite',
    url,
    prisma,
    reads,
    onStatement,
    poolStats: poolStatsOf(pool),
    singleConnection: true,
    sql: changesFirstChannel(sql),
    session: changesFirstSession(pgSession(pool)),
    // The owning process listens on its own PGlite; this one (a CLI beside the server) serves no requests.
    async listen(_channel, handlers) {
      handlers.onState(false);
      return async () => undefined;
    },
    async close() {
      await prisma.$disconnect();
      await pool.end().catch(() => undefined);
    },
  };
}
