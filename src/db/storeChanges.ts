// How far the data a store's answers read has changed: the sum of the store's change counter
// rows (migration store_change_counter), which every committed write raises, for the store
// itself and for every store linked to it by a fulfillment-service link (a merchant reads its
// services' locations, a service the levels merchants keep at its locations). One statement
// over primary-key and StoreLink index reads. Each writing transaction adds a row of its own;
// foldStoreChanges keeps their number small.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { SqlDriverAdapter, SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { REPLAYED_POSITION_SQL } from './replicas.ts';
import type { SqlChannel } from './sqlChannel.ts';

export interface StoreChanges {
  storeId: string;
  /** The sum of the store's rows, as exact text (it passes 2^53). */
  changes: string;
}

const storeChangesSql = (extraColumns: string) => `
SELECT s.id AS "storeId", (SELECT coalesce(sum(k.value), 0) FROM "StoreChangeCounter" k WHERE k."storeId" = s.id)::text AS changes${extraColumns}
FROM (SELECT $1::text AS id
      UNION SELECT l."fulfillmentServiceId" FROM "StoreLink" l WHERE l."merchantId" = $1
      UNION SELECT l."merchantId" FROM "StoreLink" l WHERE l."fulfillmentServiceId" = $1) s
ORDER BY s.id COLLATE "C"`;
const STORE_CHANGES_SQL = storeChangesSql('');
const STORE_CHANGES_AT_POSITION_SQL = storeChangesSql(`, ${REPLAYED_POSITION_SQL} AS position`);

/**
 * The same changes as one JSON array, an expression any statement can carry as a column (the
 * store's id its parameter `param`, e.g. `$3`): read in that statement's snapshot, they count
 * exactly the writes its rows show.
 */
export function storeChangesColumn(param: string): string {
  return `(SELECT coalesce(json_agg(json_build_object('storeId', s."storeId", 'changes', s.changes) ORDER BY s."storeId" COLLATE "C"), '[]'::json)
  FROM (${storeChangesSql('').replaceAll('$1', param)}) s)`;
}

/** The changes of the store and of each store linked to it, in store id order. */
export function readStoreChanges(sql: Pick<SqlChannel, 'query'>, storeId: string): Promise<StoreChanges[]> {
  return sql.query<StoreChanges>(STORE_CHANGES_SQL, [storeId]);
}

/**
 * The same, and the WAL position the server had reached when it read them (PostgreSQL only):
 * a replica that has replayed that far holds every change they count.
 */
export async function readStoreChangesWithPosition(sql: Pick<SqlChannel, 'query'>, storeId: string): Promise<{ changes: StoreChanges[]; position: bigint }> {
  const rows = await sql.query<StoreChanges & { position: string }>(STORE_CHANGES_AT_POSITION_SQL, [storeId]);
  // Each row evaluates the position anew; the furthest covers them all.
  const position = rows.reduce((furthest, row) => (BigInt(row.position) > furthest ? BigInt(row.position) : furthest), 0n);
  return { changes: rows.map(({ storeId: id, changes }) => ({ storeId: id, changes })), position };
}

/** Taken for the length of one fold, so two instances never fold at once. */
const FOLD_LOCK = 'store_change_counter_fold';

// One statement, so a reader sees every store's rows either all before the fold or all after
// it, with the same sum. Only rows of committed transactions are visible to it; a transaction
// still running keeps its row until the next fold. Nothing a writer does waits for it: writers
// only insert rows of their own transaction.
const FOLD_SQL = `
WITH lock AS (SELECT pg_try_advisory_xact_lock(hashtext('${FOLD_LOCK}')) AS held),
folded AS (
  DELETE FROM "StoreChangeCounter" k WHERE k."transactionId" <> 0 AND (SELECT held FROM lock)
  RETURNING k."storeId", k.value
)
INSERT INTO "StoreChangeCounter" AS k ("storeId", "transactionId", value)
SELECT "storeId", 0, sum(value) FROM folded GROUP BY "storeId"
ON CONFLICT ("storeId", "transactionId") DO UPDATE SET value = k.value + excluded.value`;

/** Folds the rows of finished transactions into one row per store, leaving every store's sum as it was; answers the stores folded. */
export async function foldStoreChanges(sql: Pick<SqlChannel, 'query'>): Promise<number> {
  const rows = await sql.query(`${FOLD_SQL} RETURNING 1`);
  return rows.length;
}

// ---------------------------------------------------------------- changes read along

/**
 * The changes an answer is as of, read by the first statement the answer makes rather than by
 * a statement of their own before it. A validator must never be newer than the data: every
 * statement of the answer sees at least what the one that read the changes saw, so the tag
 * is older than the data or as old, never newer. A compiled read carries them as a column of
 * its own statement (one round trip, one snapshot for both); any other statement (Prisma, the
 * raw channel) has them read on their own first; statements that start while the first one
 * runs wait for it, so none takes an older snapshot than it.
 */
export class ChangesAlong {
  private first?: Promise<unknown>;
  private read?: StoreChanges[];

  constructor(
    readonly storeId: string,
    private readonly sql: Pick<SqlChannel, 'query'>,
  ) {}

  /** Whether the next statement is the first: the one to carry the changes. */
  get untaken(): boolean {
    return this.first === undefined;
  }

  /** Runs `statement` as the first, which reads the changes along: it answers its own result and them. */
  async carry<T>(statement: () => Promise<{ result: T; changes: StoreChanges[] }>): Promise<T> {
    const running = statement();
    this.first = running;
    const { result, changes } = await running;
    this.read = changes;
    return result;
  }

  /** Before a statement that carries nothing: the changes first, unless a statement has begun to read them. */
  async before(): Promise<void> {
    if (this.first === undefined) {
      this.first = changesAlong.exit(() => readStoreChanges(this.sql, this.storeId)).then((changes) => {
        this.read = changes;
      });
    }
    // A failed first statement failed the answer; this one runs on the snapshot it takes itself.
    await this.first.catch(() => undefined);
  }

  /** The changes the answer is as of: read now when it ran no statement (it read nothing of the database). */
  async changes(): Promise<StoreChanges[]> {
    await this.before();
    return this.read ?? (this.read = await readStoreChanges(this.sql, this.storeId));
  }
}

const changesAlong = new AsyncLocalStorage<ChangesAlong>();

/** Runs `answer` with the changes of `storeId` read along by its first statement; `along.changes()` says them afterwards. */
export function readingChangesAlong<T>(along: ChangesAlong, answer: () => Promise<T>): Promise<T> {
  return changesAlong.run(along, answer);
}

/** The changes the current answer reads along, while its first statement has yet to carry them. */
export function untakenChangesAlong(): ChangesAlong | undefined {
  const along = changesAlong.getStore();
  return along?.untaken ? along : undefined;
}

/** Awaited before any statement that cannot carry the changes itself. */
export function beforeStatement(): Promise<void> | undefined {
  return changesAlong.getStore()?.before();
}

/** The raw channel, its statements after the changes an answer reads along. */
export function changesFirstChannel(sql: SqlChannel): SqlChannel {
  return {
    async exec(script) {
      await beforeStatement();
      return sql.exec(script);
    },
    async query(text, params, options) {
      await beforeStatement();
      return sql.query(text, params, options);
    },
  };
}

/** A session runner whose sessions start after the changes an answer reads along. */
export function changesFirstSession(session: <T>(fn: (sql: SqlChannel) => Promise<T>) => Promise<T>) {
  return async <T>(fn: (sql: SqlChannel) => Promise<T>): Promise<T> => {
    await beforeStatement();
    return session(fn);
  };
}

/** Prisma's driver adapter, its statements and transactions after the changes an answer reads along. */
export function changesFirstAdapter<F extends SqlDriverAdapterFactory>(factory: F): F {
  const adapter = (connected: SqlDriverAdapter): SqlDriverAdapter =>
    new Proxy(connected, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (property !== 'queryRaw' && property !== 'executeRaw' && property !== 'startTransaction') return value;
        const method = value as (...args: unknown[]) => Promise<unknown>;
        return async (...args: unknown[]) => {
          await beforeStatement();
          return method.apply(target, args);
        };
      },
    });
  return new Proxy(factory, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== 'connect') return value;
      return async () => adapter(await (value as () => Promise<SqlDriverAdapter>).call(target));
    },
  });
}
