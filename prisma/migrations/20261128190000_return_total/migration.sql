-- The returns queue sorted by total (issue 43): a return's total is stored on it, so a page of
-- the queue by total is a range of the (store, total, id) index, as the pages by age and by last
-- change are. The total is the one Return.total shows (src/domain/returns.ts returnItemAmounts):
-- over the items still on the return, an ordered item's units at its line's price, less its share
-- of the line's discount, plus its share of the order's tax by its net's share of the order's
-- subtotal (both rounded half away from zero to the currency's digits); an imported item's units
-- at its unit price. It is written here, by triggers, as the search documents are, because what
-- it is made of changes in more places than the returns' own operations: items added, removed or
-- given back by a reset, and an order rewritten by a sync (its lines' prices and discounts, its
-- tax and subtotal). A test compares it with Return.total after each of those.

-- The search document's function takes a whole return (its SQL body depends on the row type, so
-- PostgreSQL refuses to add a column under it): dropped and made again as it was; the triggers
-- that call it look it up by name as they run.
DROP FUNCTION "return_search_document"("Return");

ALTER TABLE "Return" ADD COLUMN "total" DECIMAL(19,4) NOT NULL DEFAULT 0;

CREATE FUNCTION "return_search_document"(r "Return") RETURNS text
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN search_fold(concat_ws(E'\n', r.id, r."externalReferenceId", r."trackingNumber", r.carrier, r."customerEmail",
    r."customerFirstName", r."customerLastName", array_to_string(r.tags, E'\n'),
    (SELECT order_search_fields(o) FROM "Order" o WHERE o.id = r."orderId"),
    (SELECT string_agg(concat_ws(E'\n', coalesce(i.sku, l.sku), coalesce(i.title, l.title), i.barcode, i.reason, i."reasonCode",
        i."customerComment"), E'\n' ORDER BY i.id)
       FROM "ReturnItem" i LEFT JOIN "OrderLineItem" l ON l.id = i."orderLineItemId" WHERE i."returnId" = r.id)));

-- The currency's minor-unit digits, as src/domain/money.ts currencyExponent lists them.
CREATE FUNCTION "currency_exponent"(currency text) RETURNS int
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN CASE
    WHEN upper(currency) IN ('BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI',
                             'VND', 'VUV', 'XAF', 'XOF', 'XPF') THEN 0
    WHEN upper(currency) IN ('BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND') THEN 3
    ELSE 2
  END;

CREATE FUNCTION "return_total"(return_id text) RETURNS numeric
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN (
    SELECT coalesce(sum(CASE
             WHEN l.id IS NULL THEN coalesce(i."unitPrice", 0) * i.quantity
             ELSE n.net + CASE WHEN o."totalTax" IS NOT NULL AND o."subtotalPrice" > 0
                               THEN round(o."totalTax" * n.net / o."subtotalPrice", currency_exponent(o.currency)) ELSE 0 END
           END), 0)
      FROM "ReturnItem" i
      LEFT JOIN "OrderLineItem" l ON l.id = i."orderLineItemId"
      LEFT JOIN "Order" o ON o.id = l."orderId"
      CROSS JOIN LATERAL (
        SELECT coalesce(l.price, 0) * i.quantity
               - round(coalesce(l.discount, 0) * i.quantity / greatest(l.quantity, 1), currency_exponent(o.currency)) AS net) n
     WHERE i."returnId" = return_id AND i."removedAt" IS NULL);

-- Writes the total of each return named, where it changed.
CREATE FUNCTION "return_total_write"(return_ids text[]) RETURNS void LANGUAGE sql AS $$
  UPDATE "Return" r SET total = t.total
    FROM (SELECT x.id, return_total(x.id) AS total FROM unnest(return_ids) AS x(id)) t
   WHERE r.id = t.id AND r.total IS DISTINCT FROM t.total;
$$;

-- A return's items: once per statement, however many rows it wrote (an update cannot name its
-- columns beside a transition table; an update that changes nothing of the total writes nothing).
CREATE FUNCTION "return_total_of_items"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM return_total_write(ARRAY(SELECT DISTINCT "returnId" FROM changed_rows));
  RETURN NULL;
END
$$;
CREATE TRIGGER "ReturnItem_total_insert" AFTER INSERT ON "ReturnItem" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "return_total_of_items"();
CREATE TRIGGER "ReturnItem_total_update" AFTER UPDATE ON "ReturnItem" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "return_total_of_items"();
CREATE TRIGGER "ReturnItem_total_delete" AFTER DELETE ON "ReturnItem" REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "return_total_of_items"();

-- An order's amounts, only when one the total reads changed (a line's deletion deletes its
-- return items, which the triggers above see).
CREATE FUNCTION "return_total_of_order"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  CASE TG_TABLE_NAME
    WHEN 'OrderLineItem' THEN
      PERFORM return_total_write(ARRAY(SELECT DISTINCT "returnId" FROM "ReturnItem" WHERE "orderLineItemId" = NEW.id));
    WHEN 'Order' THEN
      PERFORM return_total_write(ARRAY(SELECT id FROM "Return" WHERE "orderId" = NEW.id));
  END CASE;
  RETURN NULL;
END
$$;
CREATE TRIGGER "OrderLineItem_return_total" AFTER UPDATE OF price, discount, quantity ON "OrderLineItem" FOR EACH ROW
  WHEN (OLD.price IS DISTINCT FROM NEW.price OR OLD.discount IS DISTINCT FROM NEW.discount OR OLD.quantity IS DISTINCT FROM NEW.quantity)
  EXECUTE FUNCTION "return_total_of_order"();
CREATE TRIGGER "Order_return_total" AFTER UPDATE OF "totalTax", "subtotalPrice", currency ON "Order" FOR EACH ROW
  WHEN (OLD."totalTax" IS DISTINCT FROM NEW."totalTax" OR OLD."subtotalPrice" IS DISTINCT FROM NEW."subtotalPrice" OR OLD.currency IS DISTINCT FROM NEW.currency)
  EXECUTE FUNCTION "return_total_of_order"();

-- The total is derived, as the search document is: its changes are not the return's history.
DROP TRIGGER "Return_audit" ON "Return";
CREATE TRIGGER "Return_audit" AFTER INSERT OR UPDATE OR DELETE ON "Return" FOR EACH ROW EXECUTE FUNCTION "audit_record"('id', '', 'total');

UPDATE "Return" SET total = return_total(id) WHERE return_total(id) <> 0;

CREATE INDEX "Return_storeId_total_id_idx" ON "Return"("storeId", "total", "id");
