// The returns overview counted from the records themselves, each figure by its definition (top
// of src/domain/overview.ts): the statements the overview ran over orders, returns, their items
// and status changes and the invoices before it read rollups. Tests compare the rollups'
// overview with this one after every kind of write.
import type { ReturnStatus } from '../../src/generated/prisma/client.ts';
import { NEEDING_ACTION, overviewFromRows, type AgeBucket, type OverviewDaysRow, type OverviewRateRow, type ReturnsOverview } from '../../src/domain/overview.ts';
import type { Db, Tx } from '../../src/domain/tx.ts';

// Timestamps are `timestamp(3)` holding UTC: parameters go in as ISO text cast to timestamp
// (the zone suffix is ignored by that cast), so no session time zone is involved.
const FROM = '$2::timestamp';
const TO = '$3::timestamp';

/** The returns awaiting action, counted by status and age bucket ($2 = now, $3 = statuses). */
const NEEDING_ACTION_SQL = `
SELECT "status"::text AS "status",
       CASE WHEN "createdAt" > $2::timestamp - interval '3 days' THEN 'DAYS_0_2'
            WHEN "createdAt" > $2::timestamp - interval '8 days' THEN 'DAYS_3_7'
            ELSE 'DAYS_8_PLUS' END AS "bucket",
       count(*)::int AS "count"
FROM "Return"
WHERE "storeId" = $1 AND "status" = ANY($3::"ReturnStatus"[])
GROUP BY 1, 2`;

/**
 * The returns completed in the period: complete now, with a change to complete in it and none
 * after it (so the period holds their last one, their closedAt).
 */
const COMPLETED_CTE = `
completed AS (
  SELECT r."id", r."createdAt", c."at", r."totalRefund", r."totalStoreCredit", r."currency"
  FROM (SELECT "returnId", max("createdAt") AS "at" FROM "ReturnStatusChange"
        WHERE "toStatus" = 'complete' AND "createdAt" >= ${FROM} AND "createdAt" < ${TO} GROUP BY 1) AS c
  CROSS JOIN LATERAL (
    SELECT "id", "createdAt", "totalRefund", "totalStoreCredit", "currency" FROM "Return"
    WHERE "id" = c."returnId" AND "storeId" = $1 AND "status" = 'complete' OFFSET 0) AS r
  WHERE NOT EXISTS (SELECT 1 FROM "ReturnStatusChange" AS later
                    WHERE later."returnId" = r."id" AND later."toStatus" = 'complete' AND later."createdAt" >= ${TO})
)`;

const day = (column: string) => `to_char(date_trunc('day', ${column}), 'YYYY-MM-DD')`;

/** Opened and completed per day, the median open-to-complete time, and the money per day and currency. */
const DAYS_SQL = `
WITH ${COMPLETED_CTE},
opened AS (
  SELECT ${day('"createdAt"')} AS "day", count(*)::int AS "n" FROM "Return"
  WHERE "storeId" = $1 AND "createdAt" >= ${FROM} AND "createdAt" < ${TO} AND "status" <> 'deleted' GROUP BY 1
),
closed AS (SELECT ${day('"at"')} AS "day", count(*)::int AS "n" FROM completed GROUP BY 1),
money AS (
  SELECT ${day('"at"')} AS "day", "currency", sum("totalRefund") AS "refunded", sum("totalStoreCredit") AS "storeCredit", 0::numeric AS "fees"
  FROM completed GROUP BY 1, 2
  UNION ALL
  SELECT ${day('ii."occurredAt"')}, i."currency", 0, 0, sum(ii."amount")
  FROM "Invoice" AS i CROSS JOIN LATERAL (
    SELECT "occurredAt", "amount" FROM "InvoiceItem"
    WHERE "invoiceId" = i."id" AND "occurredAt" >= ${FROM} AND "occurredAt" < ${TO} AND "kind" = 'RETURN_PROCESSING_FEE' OFFSET 0) AS ii
  WHERE i."storeId" = $1
  GROUP BY 1, 2
),
money_days AS (
  SELECT "currency", "day", sum("refunded") AS "refunded", sum("storeCredit") AS "storeCredit", sum("fees") AS "fees" FROM money GROUP BY 1, 2
)
SELECT
  (SELECT coalesce(json_agg(json_build_object('day', d."day", 'opened', coalesce(o."n", 0), 'completed', coalesce(c."n", 0)) ORDER BY d."day"), '[]')
   FROM (SELECT ${day('g')} AS "day" FROM generate_series(date_trunc('day', ${FROM}), ${TO} - interval '1 millisecond', interval '1 day') AS g) AS d
   LEFT JOIN opened AS o ON o."day" = d."day" LEFT JOIN closed AS c ON c."day" = d."day") AS "days",
  (SELECT coalesce(json_agg(m ORDER BY m."currency"), '[]')
   FROM (SELECT "currency", sum("refunded")::text AS "refunded", sum("storeCredit")::text AS "storeCredit", sum("fees")::text AS "fees",
                json_agg(json_build_object('day', "day", 'refunded', "refunded"::text, 'storeCredit', "storeCredit"::text, 'fees', "fees"::text) ORDER BY "day") AS "days"
         FROM money_days GROUP BY 1) AS m) AS "amounts",
  (SELECT count(*)::int FROM completed) AS "completed",
  (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM "at" - "createdAt")) FROM completed)::float8 AS "medianSeconds"`;

// The period's orders and returns come from their (storeId, date) indexes, and their lines and
// items are then looked up by parent, one index probe each: `OFFSET 0` keeps each LATERAL
// subquery a per-row lookup, where a join would let the planner hash the whole line and item
// tables of every store (a sequential scan of millions of rows for a few thousand wanted).

/** The live items of the returns opened in the period (`r` the return, `i` the item), `join` joined to each. */
const returnedItems = (join = '') => `
  FROM "Return" AS r CROSS JOIN LATERAL (
    SELECT "quantity", "reason", "sku", "orderLineItemId" FROM "ReturnItem" WHERE "returnId" = r."id" AND "removedAt" IS NULL OFFSET 0) AS i
  ${join}
  WHERE r."storeId" = $1 AND r."createdAt" >= ${FROM} AND r."createdAt" < ${TO}`;

/** Units ordered and returned per SKU, side by side in one grouping (a join of two aggregates would be planned blind). */
const RETURN_RATE_SQL = `
WITH per_sku AS (
  SELECT "sku", min("title") AS "title", sum("ordered")::bigint AS "ordered", sum("returned")::bigint AS "returned" FROM (
    SELECT l."sku", l."title", l."quantity" AS "ordered", 0 AS "returned"
    FROM "Order" AS o CROSS JOIN LATERAL (SELECT "sku", "title", "quantity" FROM "OrderLineItem" WHERE "orderId" = o."id" OFFSET 0) AS l
    WHERE o."storeId" = $1 AND o."placedAt" >= ${FROM} AND o."placedAt" < ${TO}
    UNION ALL
    -- An imported item names its SKU; an ordered one's is its line's.
    SELECT coalesce(i."sku", l."sku"), NULL, 0, i."quantity"
    ${returnedItems(`LEFT JOIN LATERAL (SELECT "sku" FROM "OrderLineItem" WHERE "id" = i."orderLineItemId" OFFSET 0) AS l ON true`)}
      AND r."status" NOT IN ('rejected', 'deleted')
  ) AS units
  GROUP BY 1
)
SELECT (SELECT coalesce(sum("ordered"), 0)::float8 FROM per_sku) AS "unitsOrdered",
       (SELECT coalesce(sum("returned"), 0)::float8 FROM per_sku) AS "unitsReturned",
       (SELECT coalesce(json_agg(t ORDER BY t."rate" DESC, t."unitsReturned" DESC, t."sku"), '[]') FROM (
          SELECT "sku", "title", "ordered" AS "unitsOrdered", "returned" AS "unitsReturned", "returned"::float8 / "ordered" AS "rate"
          FROM per_sku WHERE "sku" IS NOT NULL AND "ordered" > 0 AND "returned" > 0
          ORDER BY 5 DESC, 4 DESC, 1 LIMIT 10) AS t) AS "top"`;

const REASONS_SQL = `
SELECT i."reason", sum(i."quantity")::int AS "units", count(DISTINCT r."id")::int AS "returns"
${returnedItems()} AND r."status" <> 'deleted'
GROUP BY 1 ORDER BY 2 DESC, 3 DESC, 1 NULLS LAST`;

export async function countedOverview(db: Db | Tx, storeId: string, period: { from: Date; to: Date }, now: Date): Promise<ReturnsOverview> {
  const { from, to } = period;
  const range = [storeId, from.toISOString(), to.toISOString()];
  // Independent statements: on a pool they run side by side, each on its own connection.
  const [waiting, [daysRow], [rateRow], reasons] = await Promise.all([
    db.$queryRawUnsafe<{ status: ReturnStatus; bucket: AgeBucket; count: number }[]>(NEEDING_ACTION_SQL, storeId, now.toISOString(), NEEDING_ACTION),
    db.$queryRawUnsafe<(OverviewDaysRow & { medianSeconds: number | null })[]>(DAYS_SQL, ...range),
    db.$queryRawUnsafe<OverviewRateRow[]>(RETURN_RATE_SQL, ...range),
    db.$queryRawUnsafe<{ reason: string | null; units: number; returns: number }[]>(REASONS_SQL, ...range),
  ]);
  return overviewFromRows({ from, to, now }, { waiting, days: daysRow, rate: rateRow, reasons, medianSeconds: daysRow.medianSeconds });
}
