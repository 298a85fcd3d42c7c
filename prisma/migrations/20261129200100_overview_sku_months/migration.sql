-- The return rate by SKU read a row per SKU and day of its period: the stores' SKUs are many and
-- each sells a few units a day, so a (day, SKU) row counts little more than a line, and 90 days
-- of a million orders read 364,000 rows (1.3 s). Each row of units ordered or returned of a SKU
-- is now also added to its month's row (figures ordered_month and returned_month, day = the
-- month's first day): a period reads its whole months from those and only the days before and
-- after them from the day rows. Exact, as every row is counted on both levels in the same
-- transaction; a month's rows are about a third of its days' rows at a million orders.

-- Every row of differences goes through here: figures counted by SKU get their month's row too.
CREATE OR REPLACE FUNCTION "overview_add_rows"(d "ReturnsOverviewRollup"[]) RETURNS void LANGUAGE sql SET jit = off AS $$
  INSERT INTO "ReturnsOverviewRollup" AS r ("storeId", "figure", "day", "key", "detail", "transactionId", "returns", "units", "amount", "amount2")
  SELECT x."storeId", x."figure", x."day", x."key", x."detail", txid_current(), sum(x."returns"), sum(x."units"), sum(x."amount"), sum(x."amount2")
  FROM unnest(d) AS y
  CROSS JOIN LATERAL (
    SELECT y."storeId", y."figure", y."day", y."key", y."detail", y."returns", y."units", y."amount", y."amount2"
    UNION ALL
    SELECT y."storeId", y."figure" || '_month', date_trunc('month', y."day")::date, y."key", y."detail", y."returns", y."units", y."amount", y."amount2"
    WHERE y."figure" IN ('ordered', 'returned')
  ) AS x
  WHERE EXISTS (SELECT 1 FROM "Store" s WHERE s.id = x."storeId")
  GROUP BY 1, 2, 3, 4, 5
  HAVING sum(x."returns") <> 0 OR sum(x."units") <> 0 OR sum(x."amount") <> 0 OR sum(x."amount2") <> 0
  ON CONFLICT ("storeId", "figure", "day", "key", "detail", "transactionId") DO UPDATE
    SET "returns" = r."returns" + excluded."returns", "units" = r."units" + excluded."units",
        "amount" = r."amount" + excluded."amount", "amount2" = r."amount2" + excluded."amount2"
$$;

CREATE OR REPLACE FUNCTION "overview_add"(store text, figure text, day date, key text, detail text, returns bigint, units bigint, amount numeric, amount2 numeric)
RETURNS void LANGUAGE sql AS $$
  SELECT overview_add_rows(ARRAY[ROW(store, figure, day, key, detail, 0, returns, units, amount, amount2)::"ReturnsOverviewRollup"])
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
  -- Each month's rows from its days' rows, as overview_add_rows adds them.
  INSERT INTO "ReturnsOverviewRollup" ("storeId", "figure", "day", "key", "detail", "transactionId", "returns", "units", "amount", "amount2")
  SELECT "storeId", "figure" || '_month', date_trunc('month', "day")::date, "key", "detail", 0, sum("returns"), sum("units"), sum("amount"), sum("amount2")
  FROM "ReturnsOverviewRollup" WHERE "figure" IN ('ordered', 'returned')
  GROUP BY 1, 2, 3, 4, 5;
END
$$;

SELECT overview_rebuild();
