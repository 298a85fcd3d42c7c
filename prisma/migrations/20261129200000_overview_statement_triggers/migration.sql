-- The overview's triggers (migration overview_rollups) fire once per statement instead of once
-- per row: a statement writing many rows hands them over as transition tables, and the returns
-- they name are recounted together, each once, in a few set-based statements. Per row, a bulk
-- insert of 100,000 returns with their items recounted every return at each of its rows (a
-- plpgsql call and a dozen statements each), past ten minutes on PostgreSQL.
--
-- Transition tables come with three limits that shape what follows: one event per trigger, no
-- column list (UPDATE OF) and no WHEN on OLD/NEW, so each UPDATE trigger fires on every update
-- statement and keeps only the rows whose counted columns changed; and AFTER triggers only. The
-- deletion of an order or an invoice therefore stays a BEFORE DELETE row trigger: it takes back
-- its lines or fees while they are still there, and an AFTER trigger would find them gone with
-- the cascade.
--
-- The functions below run with JIT off: their statements are planned blind (a function's rows,
-- an array's elements), the estimated costs pass jit_above_cost, and compiling them took 0.7 s of
-- a 1-second recount of 5,000 returns, where the work itself takes milliseconds.

DROP TRIGGER "Return_overview_insert" ON "Return";
DROP TRIGGER "Return_overview_update" ON "Return";
DROP TRIGGER "Return_overview_delete" ON "Return";
DROP TRIGGER "ReturnItem_overview_insert" ON "ReturnItem";
DROP TRIGGER "ReturnItem_overview_update" ON "ReturnItem";
DROP TRIGGER "ReturnItem_overview_delete" ON "ReturnItem";
DROP TRIGGER "ReturnStatusChange_overview_insert" ON "ReturnStatusChange";
DROP TRIGGER "ReturnStatusChange_overview_update" ON "ReturnStatusChange";
DROP TRIGGER "ReturnStatusChange_overview_delete" ON "ReturnStatusChange";
DROP TRIGGER "OrderLineItem_overview_insert" ON "OrderLineItem";
DROP TRIGGER "OrderLineItem_overview_update" ON "OrderLineItem";
DROP TRIGGER "OrderLineItem_overview_delete" ON "OrderLineItem";
DROP TRIGGER "Order_overview_update" ON "Order";
DROP TRIGGER "InvoiceItem_overview_insert" ON "InvoiceItem";
DROP TRIGGER "InvoiceItem_overview_update" ON "InvoiceItem";
DROP TRIGGER "InvoiceItem_overview_delete" ON "InvoiceItem";
DROP TRIGGER "Invoice_overview_update" ON "Invoice";
DROP FUNCTION "overview_return_changed"();
DROP FUNCTION "overview_line_changed"();
DROP FUNCTION "overview_fee_changed"();
DROP FUNCTION "overview_recount_return"(text);
DROP FUNCTION "overview_return_fact"(text);

-- Adds rows of differences in the current transaction, summed per key first (one row per key
-- may be written once per statement); the rows of a store that is gone are dropped with it.
CREATE FUNCTION "overview_add_rows"(d "ReturnsOverviewRollup"[]) RETURNS void LANGUAGE sql SET jit = off AS $$
  INSERT INTO "ReturnsOverviewRollup" AS r ("storeId", "figure", "day", "key", "detail", "transactionId", "returns", "units", "amount", "amount2")
  SELECT x."storeId", x."figure", x."day", x."key", x."detail", txid_current(), sum(x."returns"), sum(x."units"), sum(x."amount"), sum(x."amount2")
  FROM unnest(d) AS x
  WHERE EXISTS (SELECT 1 FROM "Store" s WHERE s.id = x."storeId")
  GROUP BY 1, 2, 3, 4, 5
  HAVING sum(x."returns") <> 0 OR sum(x."units") <> 0 OR sum(x."amount") <> 0 OR sum(x."amount2") <> 0
  ON CONFLICT ("storeId", "figure", "day", "key", "detail", "transactionId") DO UPDATE
    SET "returns" = r."returns" + excluded."returns", "units" = r."units" + excluded."units",
        "amount" = r."amount" + excluded."amount", "amount2" = r."amount2" + excluded."amount2"
$$;

-- The returns `ids` name as they count now (those gone are left out), as overview_rebuild counts
-- every return; each looked up by its id.
CREATE FUNCTION "overview_return_facts"(ids text[]) RETURNS SETOF "ReturnOverviewFact" LANGUAGE sql STABLE AS $$
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
    FROM "Return" r WHERE r.id = ANY(ids)
  ) AS x
$$;

-- Recounts the returns `ids` name (repeats and NULLs allowed): takes back what each counted for,
-- adds what it counts for now, in one row of differences per key.
CREATE FUNCTION "overview_recount_returns"(ids text[]) RETURNS void LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  counted "ReturnOverviewFact"[];
  now_counts "ReturnOverviewFact"[];
  diffs "ReturnsOverviewRollup"[];
  gone text[];
  changed "ReturnOverviewFact"[];
  d record;
  left_returns bigint;
  left_units bigint;
BEGIN
  ids := ARRAY(SELECT DISTINCT x FROM unnest(ids) AS x WHERE x IS NOT NULL ORDER BY 1);
  IF cardinality(ids) = 0 THEN RETURN; END IF;
  -- Locked in one order, so two transactions recounting a return take turns (never each waiting
  -- on the other); the statements after the lock see what the first committed.
  PERFORM 1 FROM "ReturnOverviewFact" WHERE "returnId" = ANY(ids) ORDER BY "returnId" FOR UPDATE;
  SELECT coalesce(array_agg(f), '{}') INTO counted FROM "ReturnOverviewFact" f WHERE f."returnId" = ANY(ids);
  SELECT coalesce(array_agg(f), '{}') INTO now_counts FROM overview_return_facts(ids) AS f;
  SELECT coalesce(array_agg(ROW(x."storeId", x."figure", x."day", x."key", x."detail", 0, x."returns", x."units", x."amount", x."amount2")::"ReturnsOverviewRollup"), '{}')
  INTO diffs
  FROM (
    SELECT c."storeId", c."figure", c."day", c."key", c."detail", sum(c."returns")::bigint AS "returns", sum(c."units")::bigint AS "units", sum(c."amount") AS "amount", sum(c."amount2") AS "amount2"
    FROM (
      SELECT c.* FROM unnest(now_counts) AS f CROSS JOIN LATERAL overview_return_counts(f) AS c
      UNION ALL
      SELECT c."storeId", c."figure", c."day", c."key", c."detail", -c."returns", -c."units", -c."amount", -c."amount2"
      FROM unnest(counted) AS f CROSS JOIN LATERAL overview_return_counts(f) AS c
    ) AS c
    GROUP BY 1, 2, 3, 4, 5
    HAVING sum(c."returns") <> 0 OR sum(c."units") <> 0 OR sum(c."amount") <> 0 OR sum(c."amount2") <> 0
  ) AS x;
  PERFORM overview_add_rows(ARRAY(SELECT x FROM unnest(diffs) AS x WHERE NOT (x."figure" = 'reason' AND x."returns" < 0)));
  FOR d IN SELECT * FROM unnest(diffs) AS x WHERE x."figure" = 'reason' AND x."returns" < 0 LOOP
    -- A reason is a shopper's words: when returns stop counting for one (an erasure rewrote it,
    -- an item went), the reason's committed rows of the day are taken up into one row of this
    -- transaction, none if it is down to nothing, so no row keeps words no return has.
    WITH taken AS (
      DELETE FROM "ReturnsOverviewRollup" r
      WHERE r."storeId" = d."storeId" AND r."figure" = 'reason' AND r."day" = d."day" AND r."key" IS NOT DISTINCT FROM d."key"
      RETURNING r."returns", r."units"
    )
    SELECT coalesce(sum(t."returns"), 0)::bigint, coalesce(sum(t."units"), 0)::bigint INTO left_returns, left_units FROM taken t;
    IF left_returns + d."returns" <> 0 OR left_units + d."units" <> 0 THEN
      PERFORM overview_add(d."storeId", 'reason', d."day", d."key", NULL, left_returns + d."returns", left_units + d."units", 0, 0);
    END IF;
  END LOOP;
  -- The returns gone and the facts that changed, paired by a full join (planned as a hash or a
  -- merge join: the arrays may hold 100,000 returns each).
  SELECT coalesce(array_agg(c."returnId") FILTER (WHERE n."returnId" IS NULL), '{}'),
         coalesce(array_agg(n) FILTER (WHERE n."returnId" IS NOT NULL AND c IS DISTINCT FROM n), '{}')
  INTO gone, changed
  FROM unnest(counted) AS c FULL JOIN unnest(now_counts) AS n ON n."returnId" = c."returnId";
  DELETE FROM "ReturnOverviewFact" f WHERE f."returnId" = ANY(gone);
  INSERT INTO "ReturnOverviewFact"
  SELECT n.* FROM unnest(changed) AS n WHERE EXISTS (SELECT 1 FROM "Store" s WHERE s.id = n."storeId")
  ON CONFLICT ("returnId") DO UPDATE SET "storeId" = excluded."storeId", "openedAt" = excluded."openedAt", "status" = excluded."status",
    "currency" = excluded."currency", "closedAt" = excluded."closedAt", "openSeconds" = excluded."openSeconds",
    "refunded" = excluded."refunded", "storeCredit" = excluded."storeCredit", "items" = excluded."items";
END
$$;

-- A Return row names itself; its items and changes name it in "returnId". An update recounts the
-- returns on both sides of the rows whose counted columns changed (a row whose key changed
-- meets no partner and counts as changed).
CREATE FUNCTION "overview_returns_changed"() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM overview_recount_returns(ARRAY(SELECT n.id FROM new_rows n));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM overview_recount_returns(ARRAY(SELECT o.id FROM old_rows o));
  ELSE
    PERFORM overview_recount_returns(ARRAY(
      SELECT coalesce(o.id, n.id) FROM old_rows o FULL JOIN new_rows n ON n.id = o.id
      WHERE (o."storeId", o."createdAt", o."status", o."currency", o."totalRefund", o."totalStoreCredit")
            IS DISTINCT FROM (n."storeId", n."createdAt", n."status", n."currency", n."totalRefund", n."totalStoreCredit")));
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION "overview_return_items_changed"() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM overview_recount_returns(ARRAY(SELECT n."returnId" FROM new_rows n));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM overview_recount_returns(ARRAY(SELECT o."returnId" FROM old_rows o));
  ELSE
    PERFORM overview_recount_returns(ARRAY(
      SELECT unnest(ARRAY[o."returnId", n."returnId"]) FROM old_rows o FULL JOIN new_rows n ON n.id = o.id
      WHERE (o."returnId", o."orderLineItemId", o."sku", o."reason", o."quantity", o."removedAt")
            IS DISTINCT FROM (n."returnId", n."orderLineItemId", n."sku", n."reason", n."quantity", n."removedAt")));
  END IF;
  RETURN NULL;
END
$$;

-- Only changes to complete move a completion.
CREATE FUNCTION "overview_return_status_changes_changed"() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM overview_recount_returns(ARRAY(SELECT n."returnId" FROM new_rows n WHERE n."toStatus" = 'complete'));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM overview_recount_returns(ARRAY(SELECT o."returnId" FROM old_rows o WHERE o."toStatus" = 'complete'));
  ELSE
    PERFORM overview_recount_returns(ARRAY(
      SELECT unnest(ARRAY[o."returnId", n."returnId"]) FROM old_rows o FULL JOIN new_rows n ON n.id = o.id
      WHERE (o."toStatus" = 'complete' OR n."toStatus" = 'complete')
        AND (o."returnId", o."toStatus", o."createdAt") IS DISTINCT FROM (n."returnId", n."toStatus", n."createdAt")));
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Return_overview_insert" AFTER INSERT ON "Return" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION overview_returns_changed();
CREATE TRIGGER "Return_overview_update" AFTER UPDATE ON "Return" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION overview_returns_changed();
CREATE TRIGGER "Return_overview_delete" AFTER DELETE ON "Return" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION overview_returns_changed();
CREATE TRIGGER "ReturnItem_overview_insert" AFTER INSERT ON "ReturnItem" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION overview_return_items_changed();
CREATE TRIGGER "ReturnItem_overview_update" AFTER UPDATE ON "ReturnItem" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION overview_return_items_changed();
CREATE TRIGGER "ReturnItem_overview_delete" AFTER DELETE ON "ReturnItem" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION overview_return_items_changed();
CREATE TRIGGER "ReturnStatusChange_overview_insert" AFTER INSERT ON "ReturnStatusChange" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION overview_return_status_changes_changed();
CREATE TRIGGER "ReturnStatusChange_overview_update" AFTER UPDATE ON "ReturnStatusChange" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION overview_return_status_changes_changed();
CREATE TRIGGER "ReturnStatusChange_overview_delete" AFTER DELETE ON "ReturnStatusChange" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION overview_return_status_changes_changed();

-- Ordered lines: counted on their order's day (lines whose order is gone were taken back by its
-- deletion); a changed SKU also moves the units returned of it.
CREATE FUNCTION "overview_lines_changed"() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM overview_add_rows(ARRAY(
      SELECT ROW(o."storeId", 'ordered', o."placedAt"::date, n."sku", n."title", 0, 1, n."quantity", 0, 0)::"ReturnsOverviewRollup"
      FROM new_rows n JOIN "Order" o ON o.id = n."orderId"));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM overview_add_rows(ARRAY(
      SELECT ROW(o."storeId", 'ordered', o."placedAt"::date, l."sku", l."title", 0, -1, -l."quantity", 0, 0)::"ReturnsOverviewRollup"
      FROM old_rows l JOIN "Order" o ON o.id = l."orderId"));
  ELSE
    PERFORM overview_add_rows(ARRAY(
      SELECT ROW(o."storeId", 'ordered', o."placedAt"::date, x."sku", x."title", 0, x.sign, x.sign * x."quantity", 0, 0)::"ReturnsOverviewRollup"
      FROM old_rows b JOIN new_rows a ON a.id = b.id
      CROSS JOIN LATERAL (VALUES (-1, b."orderId", b."sku", b."title", b."quantity"), (1, a."orderId", a."sku", a."title", a."quantity"))
        AS x(sign, "orderId", "sku", "title", "quantity")
      JOIN "Order" o ON o.id = x."orderId"
      WHERE (b."orderId", b."sku", b."title", b."quantity") IS DISTINCT FROM (a."orderId", a."sku", a."title", a."quantity")));
    PERFORM overview_recount_returns(ARRAY(
      SELECT i."returnId" FROM old_rows b JOIN new_rows a ON a.id = b.id
      JOIN "ReturnItem" i ON i."orderLineItemId" = a.id AND i."sku" IS NULL
      WHERE b."sku" IS DISTINCT FROM a."sku"));
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "OrderLineItem_overview_insert" AFTER INSERT ON "OrderLineItem" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION overview_lines_changed();
CREATE TRIGGER "OrderLineItem_overview_update" AFTER UPDATE ON "OrderLineItem" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION overview_lines_changed();
CREATE TRIGGER "OrderLineItem_overview_delete" AFTER DELETE ON "OrderLineItem" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION overview_lines_changed();

-- Orders that move day or store take their lines along.
CREATE FUNCTION "overview_orders_moved"() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
BEGIN
  PERFORM overview_add_rows(ARRAY(
    SELECT ROW(x."storeId", 'ordered', x."placedAt"::date, l."sku", l."title", 0, x.sign, x.sign * l."quantity", 0, 0)::"ReturnsOverviewRollup"
    FROM old_rows b JOIN new_rows a ON a.id = b.id
    CROSS JOIN LATERAL (VALUES (-1, b."storeId", b."placedAt"), (1, a."storeId", a."placedAt")) AS x(sign, "storeId", "placedAt")
    JOIN "OrderLineItem" l ON l."orderId" = a.id
    WHERE (b."storeId", b."placedAt"::date) IS DISTINCT FROM (a."storeId", a."placedAt"::date)));
  RETURN NULL;
END
$$;

CREATE TRIGGER "Order_overview_update" AFTER UPDATE ON "Order" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION overview_orders_moved();

-- Processing fees: counted on their day in their invoice's currency (fees whose invoice is gone
-- were taken back by its deletion).
CREATE FUNCTION "overview_fees_changed"() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM overview_add_rows(ARRAY(
      SELECT ROW(v."storeId", 'fee', n."occurredAt"::date, v."currency", NULL, 0, 1, 0, n."amount", 0)::"ReturnsOverviewRollup"
      FROM new_rows n JOIN "Invoice" v ON v.id = n."invoiceId" WHERE n."kind" = 'RETURN_PROCESSING_FEE'));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM overview_add_rows(ARRAY(
      SELECT ROW(v."storeId", 'fee', o."occurredAt"::date, v."currency", NULL, 0, -1, 0, -o."amount", 0)::"ReturnsOverviewRollup"
      FROM old_rows o JOIN "Invoice" v ON v.id = o."invoiceId" WHERE o."kind" = 'RETURN_PROCESSING_FEE'));
  ELSE
    PERFORM overview_add_rows(ARRAY(
      SELECT ROW(v."storeId", 'fee', x."occurredAt"::date, v."currency", NULL, 0, x.sign, 0, x.sign * x."amount", 0)::"ReturnsOverviewRollup"
      FROM old_rows b JOIN new_rows a ON a.id = b.id
      CROSS JOIN LATERAL (VALUES (-1, b."invoiceId", b."kind", b."occurredAt", b."amount"), (1, a."invoiceId", a."kind", a."occurredAt", a."amount"))
        AS x(sign, "invoiceId", "kind", "occurredAt", "amount")
      JOIN "Invoice" v ON v.id = x."invoiceId"
      WHERE x."kind" = 'RETURN_PROCESSING_FEE'
        AND (b."invoiceId", b."kind", b."amount", b."occurredAt"::date) IS DISTINCT FROM (a."invoiceId", a."kind", a."amount", a."occurredAt"::date)));
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "InvoiceItem_overview_insert" AFTER INSERT ON "InvoiceItem" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION overview_fees_changed();
CREATE TRIGGER "InvoiceItem_overview_update" AFTER UPDATE ON "InvoiceItem" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION overview_fees_changed();
CREATE TRIGGER "InvoiceItem_overview_delete" AFTER DELETE ON "InvoiceItem" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION overview_fees_changed();

-- Invoices that move store or currency take their fees along.
CREATE FUNCTION "overview_invoices_moved"() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
BEGIN
  PERFORM overview_add_rows(ARRAY(
    SELECT ROW(x."storeId", 'fee', f."occurredAt"::date, x."currency", NULL, 0, x.sign, 0, x.sign * f."amount", 0)::"ReturnsOverviewRollup"
    FROM old_rows b JOIN new_rows a ON a.id = b.id
    CROSS JOIN LATERAL (VALUES (-1, b."storeId", b."currency"), (1, a."storeId", a."currency")) AS x(sign, "storeId", "currency")
    JOIN "InvoiceItem" f ON f."invoiceId" = a.id AND f."kind" = 'RETURN_PROCESSING_FEE'
    WHERE (b."storeId", b."currency") IS DISTINCT FROM (a."storeId", a."currency")));
  RETURN NULL;
END
$$;

CREATE TRIGGER "Invoice_overview_update" AFTER UPDATE ON "Invoice" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION overview_invoices_moved();
