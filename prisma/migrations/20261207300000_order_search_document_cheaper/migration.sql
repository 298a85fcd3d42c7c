-- Less of the database's work per order created (issue 46), same documents and figures:
-- * A new order has no lines yet (its lines reference it), so the document its insert writes is
--   order_search_document's without the lines' subquery: the same text (concat_ws skips the
--   subquery's null), without an index scan and an aggregate over no rows. The lines' own
--   statement refreshes it once they are in, as before.
-- * search_refresh_parents found the parents with EXECUTE, which parses and plans its query at
--   every call (once per statement writing lines, items, values): a static query per table,
--   which PL/pgSQL plans once per session (it compiles a trigger function per table, so each
--   branch names its own table's column; the triggers' second argument, that column's name, is
--   no longer read).
-- * overview_orders_moved called overview_add_rows (an INSERT) with no rows whenever an order
--   was updated without moving store or day, as the lines' refresh of its document does at
--   every order created: it is called only with rows.
CREATE OR REPLACE FUNCTION "search_document_own"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  CASE TG_TABLE_NAME
    WHEN 'Order' THEN
      IF TG_OP = 'INSERT' THEN
        NEW."searchText" := search_fold(concat_ws(E'\n', order_search_fields(NEW), array_to_string(NEW.tags, E'\n')));
      ELSE
        NEW."searchText" := order_search_document(NEW);
      END IF;
    WHEN 'Return' THEN NEW."searchText" := return_search_document(NEW);
    WHEN 'Customer' THEN NEW."searchText" := customer_search_document(NEW);
    WHEN 'Product' THEN NEW."searchText" := product_search_document(NEW);
  END CASE;
  RETURN NEW;
END
$$;

CREATE OR REPLACE FUNCTION "search_refresh_parents"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  parents text[];
BEGIN
  CASE TG_ARGV[0]
    WHEN 'Order' THEN
      parents := ARRAY(SELECT DISTINCT c."orderId" FROM changed_rows c);
      IF cardinality(parents) = 0 THEN RETURN NULL; END IF;
      WITH d AS MATERIALIZED (SELECT x.id, order_search_document(x) AS doc FROM "Order" x WHERE x.id = ANY (parents))
      UPDATE "Order" o SET "searchText" = d.doc FROM d WHERE o.id = d.id AND o."searchText" IS DISTINCT FROM d.doc;
    WHEN 'Return' THEN
      parents := ARRAY(SELECT DISTINCT c."returnId" FROM changed_rows c);
      IF cardinality(parents) = 0 THEN RETURN NULL; END IF;
      WITH d AS MATERIALIZED (SELECT x.id, return_search_document(x) AS doc FROM "Return" x WHERE x.id = ANY (parents))
      UPDATE "Return" r SET "searchText" = d.doc FROM d WHERE r.id = d.id AND r."searchText" IS DISTINCT FROM d.doc;
    WHEN 'Customer' THEN
      parents := ARRAY(SELECT DISTINCT c."customerId" FROM changed_rows c);
      IF cardinality(parents) = 0 THEN RETURN NULL; END IF;
      WITH d AS MATERIALIZED (SELECT x.id, customer_search_document(x) AS doc FROM "Customer" x WHERE x.id = ANY (parents))
      UPDATE "Customer" c SET "searchText" = d.doc FROM d WHERE c.id = d.id AND c."searchText" IS DISTINCT FROM d.doc;
    WHEN 'Product' THEN
      parents := ARRAY(SELECT DISTINCT c."productId" FROM changed_rows c);
      IF cardinality(parents) = 0 THEN RETURN NULL; END IF;
      WITH d AS MATERIALIZED (SELECT x.id, product_search_document(x) AS doc FROM "Product" x WHERE x.id = ANY (parents))
      UPDATE "Product" p SET "searchText" = d.doc FROM d WHERE p.id = d.id AND p."searchText" IS DISTINCT FROM d.doc;
  END CASE;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION "overview_orders_moved"() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  moved "ReturnsOverviewRollup"[];
BEGIN
  moved := ARRAY(
    SELECT ROW(x."storeId", 'ordered', x."placedAt"::date, l."sku", l."title", 0, x.sign, x.sign * l."quantity", 0, 0)::"ReturnsOverviewRollup"
    FROM old_rows b JOIN new_rows a ON a.id = b.id
    CROSS JOIN LATERAL (VALUES (-1, b."storeId", b."placedAt"), (1, a."storeId", a."placedAt")) AS x(sign, "storeId", "placedAt")
    JOIN "OrderLineItem" l ON l."orderId" = a.id
    WHERE (b."storeId", b."placedAt"::date) IS DISTINCT FROM (a."storeId", a."placedAt"::date));
  IF cardinality(moved) > 0 THEN PERFORM overview_add_rows(moved); END IF;
  RETURN NULL;
END
$$;
