-- Rollups of the returns overview (src/domain/overview.ts), kept by triggers in the transaction
-- of every write to the rows they count (whoever writes: a door, a job, an import, SQL), so the
-- overview reads a few rows per day of its period instead of every order, return and fee in it.
--
-- "ReturnsOverviewRollup" holds, per store, figure and UTC day, what the overview sums:
--   status     key = status: returns opened that day now in it (needing action, opened per day)
--   completed  key = currency: returns whose last completion (closedAt) fell that day, their
--              refund (amount) and store credit (amount2)
--   returned   key = SKU: units on the live items of returns opened that day, not rejected or deleted
--   reason     key = reason: returns opened that day (not deleted) with a live item of it, and its units
--   ordered    key = SKU, detail = title: lines of orders placed that day (returns), their units
--   fee        key = currency: RETURN_PROCESSING_FEE invoice items that day (returns), their amount
-- A NULL key (no SKU, no reason) is a value of its own (NULLS NOT DISTINCT). A reason is a
-- shopper's words: once no return counts for it on a day (an erasure rewrote it), no row keeps it.
--
-- Contention: no row is written by two transactions. Rows per (store, day) that every order of a
-- busy store updated would serialise the store's order writes from each one's first line to its
-- commit, and two orders naming the same SKUs in opposite orders would deadlock. So, as the store
-- change counters do (migration store_change_counter), each transaction adds rows of its own
-- (transactionId = txid_current(): an insert waits for no one), and the background work folds the
-- rows of finished transactions into transactionId 0 in one statement that leaves every sum as it
-- was (src/domain/overview.ts foldOverviewRollups). Readers sum a day's rows.
--
-- "ReturnOverviewFact" is what each return counts for, as last counted: a change to a return,
-- its items, its completions or the SKU of an ordered line it names recounts that return from
-- the rows as they are now and adds the difference (so a cascade, a reset or an edit by SQL
-- cannot leave a count behind). Its (storeId, closedAt, openSeconds) index gives the exact
-- median time to complete of a period without reading the returns; by openedAt and closedAt it
-- also counts the part-days at the ends of a period that does not start or end at midnight.

CREATE TABLE "ReturnsOverviewRollup" (
    "storeId" TEXT NOT NULL,
    "figure" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "key" TEXT,
    "detail" TEXT,
    "transactionId" BIGINT NOT NULL,
    "returns" BIGINT NOT NULL DEFAULT 0,
    "units" BIGINT NOT NULL DEFAULT 0,
    "amount" DECIMAL NOT NULL DEFAULT 0,
    "amount2" DECIMAL NOT NULL DEFAULT 0,

    CONSTRAINT "ReturnsOverviewRollup_storeId_fkey" FOREIGN KEY ("storeId") REFERENCES "Store"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "ReturnsOverviewRollup_storeId_figure_day_key_detail_transac_key"
    ON "ReturnsOverviewRollup"("storeId", "figure", "day", "key", "detail", "transactionId") NULLS NOT DISTINCT;

CREATE TABLE "ReturnOverviewFact" (
    "returnId" TEXT NOT NULL,
    "storeId" TEXT NOT NULL,
    "openedAt" TIMESTAMP(3) NOT NULL,
    "status" "ReturnStatus" NOT NULL,
    "currency" TEXT NOT NULL,
    "closedAt" TIMESTAMP(3),
    "openSeconds" DOUBLE PRECISION,
    "refunded" DECIMAL(19,4) NOT NULL,
    "storeCredit" DECIMAL(19,4) NOT NULL,
    "items" JSONB NOT NULL,

    CONSTRAINT "ReturnOverviewFact_pkey" PRIMARY KEY ("returnId"),
    CONSTRAINT "ReturnOverviewFact_storeId_fkey" FOREIGN KEY ("storeId") REFERENCES "Store"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "ReturnOverviewFact_storeId_closedAt_openSeconds_idx" ON "ReturnOverviewFact"("storeId", "closedAt", "openSeconds");
CREATE INDEX "ReturnOverviewFact_storeId_openedAt_idx" ON "ReturnOverviewFact"("storeId", "openedAt");

-- Adds one row of differences for `store` in the current transaction (nothing once the store is
-- gone: its rows went with it).
CREATE FUNCTION "overview_add"(store text, figure text, day date, key text, detail text, returns bigint, units bigint, amount numeric, amount2 numeric)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO "ReturnsOverviewRollup" AS r ("storeId", "figure", "day", "key", "detail", "transactionId", "returns", "units", "amount", "amount2")
  SELECT store, figure, day, key, detail, txid_current(), returns, units, amount, amount2
  WHERE EXISTS (SELECT 1 FROM "Store" s WHERE s.id = store)
  ON CONFLICT ("storeId", "figure", "day", "key", "detail", "transactionId") DO UPDATE
    SET "returns" = r."returns" + excluded."returns", "units" = r."units" + excluded."units",
        "amount" = r."amount" + excluded."amount", "amount2" = r."amount2" + excluded."amount2"
$$;

-- What one return counts for (see the table of figures above).
CREATE FUNCTION "overview_return_counts"(f "ReturnOverviewFact")
RETURNS TABLE ("storeId" text, "figure" text, "day" date, "key" text, "detail" text, "returns" bigint, "units" bigint, "amount" numeric, "amount2" numeric)
LANGUAGE sql STABLE AS $$
  SELECT f."storeId", 'status', f."openedAt"::date, f."status"::text, NULL::text, 1::bigint, 0::bigint, 0::numeric, 0::numeric
  WHERE f."returnId" IS NOT NULL
  UNION ALL
  SELECT f."storeId", 'completed', f."closedAt"::date, f."currency", NULL, 1, 0, f."refunded", f."storeCredit"
  WHERE f."closedAt" IS NOT NULL
  UNION ALL
  SELECT f."storeId", 'returned', f."openedAt"::date, i."sku", NULL, 0, sum(i."quantity"), 0, 0
  FROM jsonb_to_recordset(f."items") AS i("sku" text, "reason" text, "quantity" bigint)
  WHERE f."status" NOT IN ('rejected', 'deleted')
  GROUP BY i."sku"
  UNION ALL
  SELECT f."storeId", 'reason', f."openedAt"::date, i."reason", NULL, 1, sum(i."quantity"), 0, 0
  FROM jsonb_to_recordset(f."items") AS i("sku" text, "reason" text, "quantity" bigint)
  WHERE f."status" <> 'deleted'
  GROUP BY i."reason"
$$;

-- The return as it counts now: NULL fields when it is gone.
CREATE FUNCTION "overview_return_fact"(id text) RETURNS "ReturnOverviewFact" LANGUAGE sql STABLE AS $$
  SELECT x."returnId", x."storeId", x."openedAt", x."status", x."currency", x."closedAt",
         extract(epoch FROM x."closedAt" - x."openedAt")::float8, x."refunded", x."storeCredit", x."items"
  FROM (
    SELECT r.id AS "returnId", r."storeId", r."createdAt" AS "openedAt", r."status", r."currency",
           CASE WHEN r."status" = 'complete' THEN
             (SELECT max(c."createdAt") FROM "ReturnStatusChange" c WHERE c."returnId" = r.id AND c."toStatus" = 'complete') END AS "closedAt",
           r."totalRefund" AS "refunded", r."totalStoreCredit" AS "storeCredit",
           -- An imported item names its SKU; an ordered one's is its line's.
           (SELECT coalesce(jsonb_agg(jsonb_build_object('sku', coalesce(i."sku", l."sku"), 'reason', i."reason", 'quantity', i."quantity") ORDER BY i.id), '[]')
            FROM "ReturnItem" i LEFT JOIN "OrderLineItem" l ON l.id = i."orderLineItemId"
            WHERE i."returnId" = r.id AND i."removedAt" IS NULL) AS "items"
    FROM "Return" r WHERE r.id = overview_return_fact.id
  ) AS x
$$;

-- Recounts one return: takes back what it counted for, adds what it counts for now.
CREATE FUNCTION "overview_recount_return"(id text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  counted "ReturnOverviewFact";
  now_counts "ReturnOverviewFact";
  d record;
  left_returns bigint;
  left_units bigint;
BEGIN
  -- Locked, so two transactions recounting one return take turns and the second sees the first's counts.
  SELECT * INTO counted FROM "ReturnOverviewFact" f WHERE f."returnId" = id FOR UPDATE;
  now_counts := overview_return_fact(id);
  IF counted IS NOT DISTINCT FROM now_counts THEN RETURN; END IF;
  FOR d IN
    SELECT x."storeId", x."figure", x."day", x."key", x."detail", sum(x."returns")::bigint AS "returns", sum(x."units")::bigint AS "units", sum(x."amount") AS "amount", sum(x."amount2") AS "amount2"
    FROM (
      SELECT c.* FROM overview_return_counts(now_counts) c
      UNION ALL
      SELECT c."storeId", c."figure", c."day", c."key", c."detail", -c."returns", -c."units", -c."amount", -c."amount2" FROM overview_return_counts(counted) c
    ) AS x
    GROUP BY 1, 2, 3, 4, 5
    HAVING sum(x."returns") <> 0 OR sum(x."units") <> 0 OR sum(x."amount") <> 0 OR sum(x."amount2") <> 0
  LOOP
    IF d."figure" = 'reason' AND d."returns" < 0 THEN
      -- A reason is a shopper's words: when a return stops counting for one (its erasure rewrote
      -- it, an item went), the reason's committed rows of the day are taken up into one row of
      -- this transaction, none if it is down to nothing, so no row keeps words no return has.
      WITH taken AS (
        DELETE FROM "ReturnsOverviewRollup" r
        WHERE r."storeId" = d."storeId" AND r."figure" = 'reason' AND r."day" = d."day" AND r."key" IS NOT DISTINCT FROM d."key"
        RETURNING r."returns", r."units"
      )
      SELECT coalesce(sum(t."returns"), 0)::bigint, coalesce(sum(t."units"), 0)::bigint INTO left_returns, left_units FROM taken t;
      IF left_returns + d."returns" <> 0 OR left_units + d."units" <> 0 THEN
        PERFORM overview_add(d."storeId", 'reason', d."day", d."key", NULL, left_returns + d."returns", left_units + d."units", 0, 0);
      END IF;
    ELSE
      PERFORM overview_add(d."storeId", d."figure", d."day", d."key", d."detail", d."returns", d."units", d."amount", d."amount2");
    END IF;
  END LOOP;
  IF now_counts."returnId" IS NULL THEN
    DELETE FROM "ReturnOverviewFact" f WHERE f."returnId" = id;
  ELSIF EXISTS (SELECT 1 FROM "Store" s WHERE s.id = now_counts."storeId") THEN
    INSERT INTO "ReturnOverviewFact" SELECT now_counts.*
    ON CONFLICT ("returnId") DO UPDATE SET "storeId" = excluded."storeId", "openedAt" = excluded."openedAt", "status" = excluded."status",
      "currency" = excluded."currency", "closedAt" = excluded."closedAt", "openSeconds" = excluded."openSeconds",
      "refunded" = excluded."refunded", "storeCredit" = excluded."storeCredit", "items" = excluded."items";
  END IF;
END
$$;

CREATE FUNCTION "overview_return_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  before_id text;
  after_id text;
BEGIN
  -- A Return row names itself; its items and changes name it in "returnId".
  IF TG_TABLE_NAME = 'Return' THEN
    IF TG_OP <> 'INSERT' THEN before_id := OLD.id; END IF;
    IF TG_OP <> 'DELETE' THEN after_id := NEW.id; END IF;
  ELSE
    IF TG_OP <> 'INSERT' THEN before_id := OLD."returnId"; END IF;
    IF TG_OP <> 'DELETE' THEN after_id := NEW."returnId"; END IF;
  END IF;
  IF before_id IS NOT NULL THEN PERFORM overview_recount_return(before_id); END IF;
  IF after_id IS DISTINCT FROM before_id THEN PERFORM overview_recount_return(after_id); END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Return_overview_insert" AFTER INSERT ON "Return" FOR EACH ROW EXECUTE FUNCTION overview_return_changed();
CREATE TRIGGER "Return_overview_update" AFTER UPDATE OF "storeId", "createdAt", "status", "currency", "totalRefund", "totalStoreCredit" ON "Return" FOR EACH ROW
  WHEN (OLD."storeId" IS DISTINCT FROM NEW."storeId" OR OLD."createdAt" IS DISTINCT FROM NEW."createdAt" OR OLD."status" IS DISTINCT FROM NEW."status"
        OR OLD."currency" IS DISTINCT FROM NEW."currency" OR OLD."totalRefund" IS DISTINCT FROM NEW."totalRefund" OR OLD."totalStoreCredit" IS DISTINCT FROM NEW."totalStoreCredit")
  EXECUTE FUNCTION overview_return_changed();
CREATE TRIGGER "Return_overview_delete" AFTER DELETE ON "Return" FOR EACH ROW EXECUTE FUNCTION overview_return_changed();

CREATE TRIGGER "ReturnItem_overview_insert" AFTER INSERT ON "ReturnItem" FOR EACH ROW EXECUTE FUNCTION overview_return_changed();
CREATE TRIGGER "ReturnItem_overview_update" AFTER UPDATE OF "returnId", "orderLineItemId", "sku", "reason", "quantity", "removedAt" ON "ReturnItem" FOR EACH ROW
  WHEN (OLD."returnId" IS DISTINCT FROM NEW."returnId" OR OLD."orderLineItemId" IS DISTINCT FROM NEW."orderLineItemId" OR OLD."sku" IS DISTINCT FROM NEW."sku"
        OR OLD."reason" IS DISTINCT FROM NEW."reason" OR OLD."quantity" IS DISTINCT FROM NEW."quantity" OR OLD."removedAt" IS DISTINCT FROM NEW."removedAt")
  EXECUTE FUNCTION overview_return_changed();
CREATE TRIGGER "ReturnItem_overview_delete" AFTER DELETE ON "ReturnItem" FOR EACH ROW EXECUTE FUNCTION overview_return_changed();

-- Only changes to complete move a completion.
CREATE TRIGGER "ReturnStatusChange_overview_insert" AFTER INSERT ON "ReturnStatusChange" FOR EACH ROW
  WHEN (NEW."toStatus" = 'complete') EXECUTE FUNCTION overview_return_changed();
CREATE TRIGGER "ReturnStatusChange_overview_update" AFTER UPDATE OF "returnId", "toStatus", "createdAt" ON "ReturnStatusChange" FOR EACH ROW
  WHEN ((OLD."toStatus" = 'complete' OR NEW."toStatus" = 'complete')
        AND (OLD."returnId" IS DISTINCT FROM NEW."returnId" OR OLD."toStatus" IS DISTINCT FROM NEW."toStatus" OR OLD."createdAt" IS DISTINCT FROM NEW."createdAt"))
  EXECUTE FUNCTION overview_return_changed();
CREATE TRIGGER "ReturnStatusChange_overview_delete" AFTER DELETE ON "ReturnStatusChange" FOR EACH ROW
  WHEN (OLD."toStatus" = 'complete') EXECUTE FUNCTION overview_return_changed();

-- An ordered line: counted on its order's day; a changed SKU also moves the units returned of it.
CREATE FUNCTION "overview_line_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  o record;
BEGIN
  IF TG_OP <> 'INSERT' THEN
    -- Gone with its order (a cascade): the order's deletion took its lines back.
    SELECT p."storeId", p."placedAt" INTO o FROM "Order" p WHERE p.id = OLD."orderId";
    IF FOUND THEN PERFORM overview_add(o."storeId", 'ordered', o."placedAt"::date, OLD."sku", OLD."title", -1, -OLD."quantity", 0, 0); END IF;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    SELECT p."storeId", p."placedAt" INTO o FROM "Order" p WHERE p.id = NEW."orderId";
    IF FOUND THEN PERFORM overview_add(o."storeId", 'ordered', o."placedAt"::date, NEW."sku", NEW."title", 1, NEW."quantity", 0, 0); END IF;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD."sku" IS DISTINCT FROM NEW."sku" THEN
    PERFORM overview_recount_return(i."returnId") FROM "ReturnItem" i WHERE i."orderLineItemId" = NEW.id AND i."sku" IS NULL;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "OrderLineItem_overview_insert" AFTER INSERT ON "OrderLineItem" FOR EACH ROW EXECUTE FUNCTION overview_line_changed();
CREATE TRIGGER "OrderLineItem_overview_update" AFTER UPDATE OF "orderId", "sku", "title", "quantity" ON "OrderLineItem" FOR EACH ROW
  WHEN (OLD."orderId" IS DISTINCT FROM NEW."orderId" OR OLD."sku" IS DISTINCT FROM NEW."sku" OR OLD."title" IS DISTINCT FROM NEW."title" OR OLD."quantity" IS DISTINCT FROM NEW."quantity")
  EXECUTE FUNCTION overview_line_changed();
CREATE TRIGGER "OrderLineItem_overview_delete" AFTER DELETE ON "OrderLineItem" FOR EACH ROW EXECUTE FUNCTION overview_line_changed();

-- An order that moves day or store takes its lines along; one deleted takes them back while they are still there.
CREATE FUNCTION "overview_order_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM overview_add(OLD."storeId", 'ordered', OLD."placedAt"::date, l."sku", l."title", -count(*), -sum(l."quantity"), 0, 0)
  FROM "OrderLineItem" l WHERE l."orderId" = OLD.id GROUP BY l."sku", l."title";
  IF TG_OP = 'UPDATE' THEN
    PERFORM overview_add(NEW."storeId", 'ordered', NEW."placedAt"::date, l."sku", l."title", count(*), sum(l."quantity"), 0, 0)
    FROM "OrderLineItem" l WHERE l."orderId" = NEW.id GROUP BY l."sku", l."title";
    RETURN NULL;
  END IF;
  RETURN OLD;
END
$$;

CREATE TRIGGER "Order_overview_update" AFTER UPDATE OF "storeId", "placedAt" ON "Order" FOR EACH ROW
  WHEN (OLD."storeId" IS DISTINCT FROM NEW."storeId" OR OLD."placedAt"::date IS DISTINCT FROM NEW."placedAt"::date)
  EXECUTE FUNCTION overview_order_changed();
CREATE TRIGGER "Order_overview_delete" BEFORE DELETE ON "Order" FOR EACH ROW EXECUTE FUNCTION overview_order_changed();

-- A processing fee: counted on its day in its invoice's currency.
CREATE FUNCTION "overview_fee_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  i record;
BEGIN
  IF TG_OP <> 'INSERT' AND OLD."kind" = 'RETURN_PROCESSING_FEE' THEN
    -- Gone with its invoice (a cascade): the invoice's deletion took its fees back.
    SELECT v."storeId", v."currency" INTO i FROM "Invoice" v WHERE v.id = OLD."invoiceId";
    IF FOUND THEN PERFORM overview_add(i."storeId", 'fee', OLD."occurredAt"::date, i."currency", NULL, -1, 0, -OLD."amount", 0); END IF;
  END IF;
  IF TG_OP <> 'DELETE' AND NEW."kind" = 'RETURN_PROCESSING_FEE' THEN
    SELECT v."storeId", v."currency" INTO i FROM "Invoice" v WHERE v.id = NEW."invoiceId";
    IF FOUND THEN PERFORM overview_add(i."storeId", 'fee', NEW."occurredAt"::date, i."currency", NULL, 1, 0, NEW."amount", 0); END IF;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "InvoiceItem_overview_insert" AFTER INSERT ON "InvoiceItem" FOR EACH ROW
  WHEN (NEW."kind" = 'RETURN_PROCESSING_FEE') EXECUTE FUNCTION overview_fee_changed();
CREATE TRIGGER "InvoiceItem_overview_update" AFTER UPDATE OF "invoiceId", "kind", "amount", "occurredAt" ON "InvoiceItem" FOR EACH ROW
  WHEN ((OLD."kind" = 'RETURN_PROCESSING_FEE' OR NEW."kind" = 'RETURN_PROCESSING_FEE')
        AND (OLD."invoiceId" IS DISTINCT FROM NEW."invoiceId" OR OLD."kind" IS DISTINCT FROM NEW."kind" OR OLD."amount" IS DISTINCT FROM NEW."amount"
             OR OLD."occurredAt"::date IS DISTINCT FROM NEW."occurredAt"::date))
  EXECUTE FUNCTION overview_fee_changed();
CREATE TRIGGER "InvoiceItem_overview_delete" AFTER DELETE ON "InvoiceItem" FOR EACH ROW
  WHEN (OLD."kind" = 'RETURN_PROCESSING_FEE') EXECUTE FUNCTION overview_fee_changed();

CREATE FUNCTION "overview_invoice_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM overview_add(OLD."storeId", 'fee', x."occurredAt"::date, OLD."currency", NULL, -count(*), 0, -sum(x."amount"), 0)
  FROM "InvoiceItem" x WHERE x."invoiceId" = OLD.id AND x."kind" = 'RETURN_PROCESSING_FEE' GROUP BY x."occurredAt"::date;
  IF TG_OP = 'UPDATE' THEN
    PERFORM overview_add(NEW."storeId", 'fee', x."occurredAt"::date, NEW."currency", NULL, count(*), 0, sum(x."amount"), 0)
    FROM "InvoiceItem" x WHERE x."invoiceId" = NEW.id AND x."kind" = 'RETURN_PROCESSING_FEE' GROUP BY x."occurredAt"::date;
    RETURN NULL;
  END IF;
  RETURN OLD;
END
$$;

CREATE TRIGGER "Invoice_overview_update" AFTER UPDATE OF "storeId", "currency" ON "Invoice" FOR EACH ROW
  WHEN (OLD."storeId" IS DISTINCT FROM NEW."storeId" OR OLD."currency" IS DISTINCT FROM NEW."currency")
  EXECUTE FUNCTION overview_invoice_changed();
CREATE TRIGGER "Invoice_overview_delete" BEFORE DELETE ON "Invoice" FOR EACH ROW EXECUTE FUNCTION overview_invoice_changed();

-- Counts every row from scratch, as folded rows (transactionId 0): the backfill of this
-- migration, and of rows written with triggers off (a bulk load under session_replication_role).
CREATE FUNCTION "overview_rebuild"() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "ReturnsOverviewRollup";
  DELETE FROM "ReturnOverviewFact";
  -- overview_return_fact of every return, in joins of whole tables (a call per return takes a
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
END
$$;

SELECT overview_rebuild();
