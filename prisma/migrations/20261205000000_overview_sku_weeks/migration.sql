-- The return rate by SKU read 180,000 to 250,000 rollup rows for a period of 60 to 90 days at a
-- million orders: its whole months as two rows per SKU (ordered_month and returned_month, nearly
-- every SKU selling and being returned in a month), and up to 30 days around them as day rows
-- (a day row of a SKU counts about one line, so the days around the months were most of the rows).
-- The SKU figures are now also counted per ISO week (figure sku_week, day = its Monday) and per
-- month (sku_month, day = its first), one row per SKU holding both sums: units ordered in
-- "units", units returned in "returns" (no title: only the ten ranked highest get theirs, from
-- the day rows). A period reads its whole months from sku_month, the whole weeks around them from
-- sku_week and only the few days left (at most six on each side) from the day rows. Exact: each
-- day row is counted on every level in the same transaction. ordered_month and returned_month are
-- no longer read, so no longer kept.

-- Every row of differences goes through here: figures counted by SKU get their week's and month's rows too.
CREATE OR REPLACE FUNCTION "overview_add_rows"(d "ReturnsOverviewRollup"[]) RETURNS void LANGUAGE plpgsql SET jit = off AS $$
BEGIN
  INSERT INTO "ReturnsOverviewRollup" AS r ("storeId", "figure", "day", "key", "detail", "transactionId", "returns", "units", "amount", "amount2")
  SELECT x."storeId", x."figure", x."day", x."key", x."detail", txid_current(), sum(x."returns"), sum(x."units"), sum(x."amount"), sum(x."amount2")
  FROM unnest(d) AS y
  CROSS JOIN LATERAL (
    SELECT y."storeId", y."figure", y."day", y."key", y."detail", y."returns", y."units", y."amount", y."amount2"
    UNION ALL
    SELECT y."storeId", 'sku_' || p."level", date_trunc(p."level", y."day")::date, y."key", NULL,
           CASE WHEN y."figure" = 'returned' THEN y."units" ELSE 0 END, CASE WHEN y."figure" = 'ordered' THEN y."units" ELSE 0 END, 0, 0
    FROM (VALUES ('week'), ('month')) AS p("level")
    WHERE y."figure" IN ('ordered', 'returned')
  ) AS x
  WHERE EXISTS (SELECT 1 FROM "Store" s WHERE s.id = x."storeId")
  GROUP BY 1, 2, 3, 4, 5
  HAVING sum(x."returns") <> 0 OR sum(x."units") <> 0 OR sum(x."amount") <> 0 OR sum(x."amount2") <> 0
  ON CONFLICT ("storeId", "figure", "day", "key", "detail", "transactionId") DO UPDATE
    SET "returns" = r."returns" + excluded."returns", "units" = r."units" + excluded."units",
        "amount" = r."amount" + excluded."amount", "amount2" = r."amount2" + excluded."amount2";
END
$$;

-- The SKU figures' week and month rows from the day rows, as overview_add_rows adds them.
CREATE OR REPLACE FUNCTION "overview_add_sku_periods"() RETURNS void LANGUAGE sql AS $$
  INSERT INTO "ReturnsOverviewRollup" ("storeId", "figure", "day", "key", "detail", "transactionId", "returns", "units", "amount", "amount2")
  SELECT r."storeId", 'sku_' || p."level", date_trunc(p."level", r."day")::date, r."key", NULL, 0,
         sum(CASE WHEN r."figure" = 'returned' THEN r."units" ELSE 0 END), sum(CASE WHEN r."figure" = 'ordered' THEN r."units" ELSE 0 END), 0, 0
  FROM "ReturnsOverviewRollup" r CROSS JOIN (VALUES ('week'), ('month')) AS p("level")
  WHERE r."figure" IN ('ordered', 'returned')
  GROUP BY 1, 2, 3, 4
  HAVING sum(CASE WHEN r."figure" = 'returned' THEN r."units" ELSE 0 END) <> 0 OR sum(CASE WHEN r."figure" = 'ordered' THEN r."units" ELSE 0 END) <> 0
$$;

CREATE OR REPLACE FUNCTION "overview_rebuild"() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "ReturnsOverviewRollup";
  DELETE FROM "ReturnOverviewFact";
  -- overview_return_facts of every return, in joins of whole tables (a look-up per return takes a
  -- million returns tens of minutes); the tests hold the two to the same facts.
  INSERT INTO "ReturnOverviewFact"
  SELECT r.id, r."storeId", r."createdAt", r."status", r."currency", c."closedAt",
         extract(epoch FROM c."closedAt" - r."createdAt")::float8, r."totalRefund", r."totalStoreCredit", coalesce(i."items", '[]')
  FROM "Return" r
  LEFT JOIN (SELECT "returnId", max("createdAt") AS "closedAt" FROM "ReturnStatusChange" WHERE "toStatus" = 'complete' GROUP BY 1) AS c
    ON c."returnId" = r.id AND r."status" = 'complete'
  LEFT JOIN (
    SELECT i."returnId", jsonb_agg(jsonb_build_object('sku', coalesce(i."sku", l."sku"), 'reason', i."reason", 'quantity', i."quantity") ORDER BY i.id) AS "items"
    FROM "ReturnItem" i LEFT JOIN "OrderLineItem" l ON l.id = i."orderLineItemId"
    WHERE i."removedAt" IS NULL GROUP BY 1
  ) AS i ON i."returnId" = r.id;
  INSERT INTO "ReturnsOverviewRollup" ("storeId", "figure", "day", "key", "detail", "transactionId", "returns", "units", "amount", "amount2")
  SELECT c."storeId", c."figure", c."day", c."key", c."detail", 0, sum(c."returns"), sum(c."units"), sum(c."amount"), sum(c."amount2")
  FROM (
    SELECT c.* FROM "ReturnOverviewFact" f CROSS JOIN LATERAL overview_return_counts(f) c
    UNION ALL
    SELECT o."storeId", 'ordered', o."placedAt"::date, l."sku", l."title", 1, l."quantity", 0, 0
    FROM "Order" o JOIN "OrderLineItem" l ON l."orderId" = o.id
    UNION ALL
    SELECT v."storeId", 'fee', x."occurredAt"::date, v."currency", NULL, 1, 0, x."amount", 0
    FROM "Invoice" v JOIN "InvoiceItem" x ON x."invoiceId" = v.id WHERE x."kind" = 'RETURN_PROCESSING_FEE'
  ) AS c
  GROUP BY 1, 2, 3, 4, 5;
  PERFORM overview_add_sku_periods();
END
$$;

-- This migration's backfill: the week and month rows from the day rows already kept (those of
-- transactions not yet folded included, summed into folded rows).
DELETE FROM "ReturnsOverviewRollup" WHERE "figure" IN ('ordered_month', 'returned_month');
SELECT overview_add_sku_periods();

-- What the return rate's pass reads, from the index alone once vacuumed (as overview_sku_units
-- does for the day rows); the index of that migration now covers the day rows only.
CREATE INDEX "ReturnsOverviewRollup_sku_periods_idx" ON "ReturnsOverviewRollup" ("storeId", "figure", "day") INCLUDE ("key", "units", "returns")
  WHERE "figure" IN ('sku_week', 'sku_month');
