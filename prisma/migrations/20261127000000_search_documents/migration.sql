-- Search (src/domain/search): every order, return, customer and product carries a search
-- document, its searchable text folded to lower case without accents ("Zoë" is "zoe"), with
-- phone numbers also as bare digits. A word of the query matches a part of the document
-- (`LIKE '%gmai%'`), which the trigram GIN index answers; the store's own condition is applied
-- to the few rows it finds. No search scans the table. (The index cannot lead with the store:
-- Prisma's schema cannot describe a GIN index over btree_gin's text operators.) The documents are written here, by triggers, so that every write (any
-- door, import, job or SQL) keeps them current and none of the service's code has to.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS unaccent;

-- AlterTable
ALTER TABLE "Customer" ADD COLUMN     "searchText" text;

-- AlterTable
ALTER TABLE "Order" ADD COLUMN     "searchText" text;

-- AlterTable
ALTER TABLE "Product" ADD COLUMN     "searchText" text;

-- AlterTable
ALTER TABLE "Return" ADD COLUMN     "searchText" text;

-- How a document and a query word are folded alike. Naming the dictionary makes unaccent
-- independent of search_path, so the function may be immutable (the planner folds a
-- parameter through it once, and estimates the pattern it yields).
CREATE FUNCTION "search_fold"(value text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN lower(unaccent('unaccent'::regdictionary, value));

-- A phone number as digits only: "+1 (415) 555-0107" is "14155550107".
CREATE FUNCTION "search_digits"(value text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN nullif(regexp_replace(value, '\D', '', 'g'), '');

-- What an order says of itself and its shopper (a return's document repeats it).
CREATE FUNCTION "order_search_fields"(o "Order") RETURNS text
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN concat_ws(E'\n', o.name, o."externalId", o."customerEmail", o."customerName", o."customerFirstName",
    o."customerLastName", o."customerPhone", search_digits(o."customerPhone"));

CREATE FUNCTION "order_search_document"(o "Order") RETURNS text
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN search_fold(concat_ws(E'\n', order_search_fields(o), array_to_string(o.tags, E'\n'),
    (SELECT string_agg(concat_ws(E'\n', l.sku, l.title), E'\n' ORDER BY l.position, l.id)
       FROM "OrderLineItem" l WHERE l."orderId" = o.id)));

CREATE FUNCTION "return_search_document"(r "Return") RETURNS text
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN search_fold(concat_ws(E'\n', r.id, r."externalReferenceId", r."trackingNumber", r.carrier, r."customerEmail",
    r."customerFirstName", r."customerLastName", array_to_string(r.tags, E'\n'),
    (SELECT order_search_fields(o) FROM "Order" o WHERE o.id = r."orderId"),
    (SELECT string_agg(concat_ws(E'\n', coalesce(i.sku, l.sku), coalesce(i.title, l.title), i.barcode, i.reason, i."reasonCode",
        i."customerComment"), E'\n' ORDER BY i.id)
       FROM "ReturnItem" i LEFT JOIN "OrderLineItem" l ON l.id = i."orderLineItemId" WHERE i."returnId" = r.id)));

CREATE FUNCTION "customer_search_document"(c "Customer") RETURNS text
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN search_fold(concat_ws(E'\n', c.email, c."firstName", c."lastName", c.name, array_to_string(c."phoneNumbers", E'\n'),
    (SELECT string_agg(search_digits(p), E'\n') FROM unnest(c."phoneNumbers") p),
    (SELECT string_agg(coalesce(v."stringValue", trim_scale(v."numberValue")::text), E'\n' ORDER BY v."declarationId")
       FROM "CustomFieldValue" v WHERE v."customerId" = c.id)));

CREATE FUNCTION "product_search_document"(p "Product") RETURNS text
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN search_fold(concat_ws(E'\n', p.title, p.sku, p.upc, array_to_string(p.barcodes, E'\n'), p.vendor, array_to_string(p.tags, E'\n'),
    (SELECT string_agg(v.value, E'\n' ORDER BY v."optionId") FROM "ProductOptionValue" v WHERE v."productId" = p.id)));

-- A row's own columns: its document is written before the row, whenever one of them is set.
-- (PL/pgSQL plans a trigger function per table, so each branch sees its own table's row.)
CREATE FUNCTION "search_document_own"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  CASE TG_TABLE_NAME
    WHEN 'Order' THEN NEW."searchText" := order_search_document(NEW);
    WHEN 'Return' THEN NEW."searchText" := return_search_document(NEW);
    WHEN 'Customer' THEN NEW."searchText" := customer_search_document(NEW);
    WHEN 'Product' THEN NEW."searchText" := product_search_document(NEW);
  END CASE;
  RETURN NEW;
END
$$;
CREATE TRIGGER "Order_search" BEFORE INSERT OR UPDATE OF name, "externalId", "customerEmail", "customerName", "customerFirstName",
  "customerLastName", "customerPhone", tags ON "Order" FOR EACH ROW EXECUTE FUNCTION "search_document_own"();
CREATE TRIGGER "Return_search" BEFORE INSERT OR UPDATE OF "orderId", "externalReferenceId", "trackingNumber", carrier, "customerEmail",
  "customerFirstName", "customerLastName", tags ON "Return" FOR EACH ROW EXECUTE FUNCTION "search_document_own"();
CREATE TRIGGER "Customer_search" BEFORE INSERT OR UPDATE OF email, "firstName", "lastName", name, "phoneNumbers"
  ON "Customer" FOR EACH ROW EXECUTE FUNCTION "search_document_own"();
CREATE TRIGGER "Product_search" BEFORE INSERT OR UPDATE OF title, sku, upc, barcodes, vendor, tags
  ON "Product" FOR EACH ROW EXECUTE FUNCTION "search_document_own"();

-- Rows of other tables that a document includes (an order's lines, a return's items, a
-- customer's custom fields, a product's option values) rewrite their parents' documents once
-- per statement, however many rows it wrote (the service writes an order's lines with one
-- createMany), and only where the document changed. (Statement triggers with
-- transition tables, not deferred constraint triggers: Prisma's introspection, which
-- `npm run db:check` runs, cannot read constraint triggers.)
CREATE FUNCTION "search_refresh_parents"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  parents text[];
BEGIN
  EXECUTE format('SELECT array_agg(DISTINCT %I) FROM changed_rows', TG_ARGV[1]) INTO parents;
  IF parents IS NULL THEN RETURN NULL; END IF;
  CASE TG_ARGV[0]
    WHEN 'Order' THEN
      UPDATE "Order" o SET "searchText" = d.doc
        FROM (SELECT x.id, order_search_document(x) AS doc FROM "Order" x WHERE x.id = ANY (parents)) d
       WHERE o.id = d.id AND o."searchText" IS DISTINCT FROM d.doc;
    WHEN 'Return' THEN
      UPDATE "Return" r SET "searchText" = d.doc
        FROM (SELECT x.id, return_search_document(x) AS doc FROM "Return" x WHERE x.id = ANY (parents)) d
       WHERE r.id = d.id AND r."searchText" IS DISTINCT FROM d.doc;
    WHEN 'Customer' THEN
      UPDATE "Customer" c SET "searchText" = d.doc
        FROM (SELECT x.id, customer_search_document(x) AS doc FROM "Customer" x WHERE x.id = ANY (parents)) d
       WHERE c.id = d.id AND c."searchText" IS DISTINCT FROM d.doc;
    WHEN 'Product' THEN
      UPDATE "Product" p SET "searchText" = d.doc
        FROM (SELECT x.id, product_search_document(x) AS doc FROM "Product" x WHERE x.id = ANY (parents)) d
       WHERE p.id = d.id AND p."searchText" IS DISTINCT FROM d.doc;
  END CASE;
  RETURN NULL;
END
$$;
CREATE TRIGGER "OrderLineItem_search_insert" AFTER INSERT ON "OrderLineItem" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "search_refresh_parents"('Order', 'orderId');
CREATE TRIGGER "OrderLineItem_search_update" AFTER UPDATE ON "OrderLineItem" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "search_refresh_parents"('Order', 'orderId');
CREATE TRIGGER "OrderLineItem_search_delete" AFTER DELETE ON "OrderLineItem" REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "search_refresh_parents"('Order', 'orderId');
CREATE TRIGGER "ReturnItem_search_insert" AFTER INSERT ON "ReturnItem" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "search_refresh_parents"('Return', 'returnId');
CREATE TRIGGER "ReturnItem_search_update" AFTER UPDATE ON "ReturnItem" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "search_refresh_parents"('Return', 'returnId');
CREATE TRIGGER "ReturnItem_search_delete" AFTER DELETE ON "ReturnItem" REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "search_refresh_parents"('Return', 'returnId');
CREATE TRIGGER "CustomFieldValue_search_insert" AFTER INSERT ON "CustomFieldValue" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "search_refresh_parents"('Customer', 'customerId');
CREATE TRIGGER "CustomFieldValue_search_update" AFTER UPDATE ON "CustomFieldValue" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "search_refresh_parents"('Customer', 'customerId');
CREATE TRIGGER "CustomFieldValue_search_delete" AFTER DELETE ON "CustomFieldValue" REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "search_refresh_parents"('Customer', 'customerId');
CREATE TRIGGER "ProductOptionValue_search_insert" AFTER INSERT ON "ProductOptionValue" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "search_refresh_parents"('Product', 'productId');
CREATE TRIGGER "ProductOptionValue_search_update" AFTER UPDATE ON "ProductOptionValue" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "search_refresh_parents"('Product', 'productId');
CREATE TRIGGER "ProductOptionValue_search_delete" AFTER DELETE ON "ProductOptionValue" REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "search_refresh_parents"('Product', 'productId');

-- A return's document repeats its order's shopper: orders whose document changed pass the
-- change on to their returns, in one statement however many orders one statement changed.
CREATE FUNCTION "return_search_of_orders"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('search.rebuilding', true) = 'on' THEN RETURN NULL; END IF;
  UPDATE "Return" r SET "searchText" = return_search_document(r)
    FROM new_orders n JOIN old_orders o ON o.id = n.id
   WHERE r."orderId" = n.id AND n."searchText" IS DISTINCT FROM o."searchText";
  RETURN NULL;
END
$$;
CREATE TRIGGER "Order_search_returns" AFTER UPDATE ON "Order" REFERENCING OLD TABLE AS old_orders NEW TABLE AS new_orders
  FOR EACH STATEMENT EXECUTE FUNCTION "return_search_of_orders"();

-- Every document written again: after this migration, after rows were loaded with triggers
-- off (session_replication_role = replica), or after the folding changed.
CREATE FUNCTION "search_documents_rebuild"() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('search.rebuilding', 'on', true);
  UPDATE "Order" o SET "searchText" = order_search_document(o);
  UPDATE "Return" r SET "searchText" = return_search_document(r);
  UPDATE "Customer" c SET "searchText" = customer_search_document(c);
  UPDATE "Product" p SET "searchText" = product_search_document(p);
  PERFORM set_config('search.rebuilding', 'off', true);
END
$$;

SELECT search_documents_rebuild();

-- CreateIndex
CREATE INDEX "Order_storeId_totalPrice_idx" ON "Order"("storeId", "totalPrice");

-- CreateIndex
CREATE INDEX "Order_storeId_placedAt_idx" ON "Order"("storeId", "placedAt");

-- CreateIndex
CREATE INDEX "Customer_search_idx" ON "Customer" USING GIN ("searchText" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Order_search_idx" ON "Order" USING GIN ("searchText" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Product_search_idx" ON "Product" USING GIN ("searchText" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Return_search_idx" ON "Return" USING GIN ("searchText" gin_trgm_ops);
