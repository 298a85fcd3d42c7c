// How far the data a store's answers read has changed: the sum of the store's change counter
// rows (migration store_change_counter), which every committed write raises, for the store
// itself and for every store linked to it by a fulfillment-service link (a merchant reads its
// services' locations, a service the levels merchants keep at its locations). One statement
// over primary-key and StoreLink index reads. Each writing transaction adds a row of its own;
// foldStoreChanges keeps their number small.
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
